"""What every simulator reader returns: one :class:`SimRecord` per kernel launch (GPGPU-Sim) or per dump
(gem5), each with its :class:`WorkloadKey` and configuration key, gathered per file in a :class:`SimFile`
and per import in a :class:`SimImport`.

The workload key is what a measured run is joined on: the application, its arguments (normalised as
Accel-Sim names its run folders: every character outside ``[A-Za-z0-9]`` becomes ``_``, an argument string
longer than 256 characters becomes ``hashed_args_<md5>``, no arguments ``NO_ARGS``), the kernel's name
(demangled with the machine's ``c++filt``, or, without it, a free function's name read from its mangled
form; then without its parameter list, as the profiler readers name kernels:
``modeling.tables.profilers.workloads.kernel_base``) and the occurrence of that name in the run (0 for its
first launch). A gem5 dump has no kernel: its kernel is empty and its occurrence is the
dump's number. The configuration key names the simulated machine (the run folder's name in Accel-Sim's
layout, else a short hash of the configuration the file itself prints, else ``default``).

Values are kept per file in one table of names (``SimFile.names``) and per record as an array of floats in
that order (NaN where a record lacks a statistic or the simulator printed ``nan``), so that a log of
tens of thousands of launches with a thousand statistics each stays within a few hundred megabytes.
"""

from __future__ import annotations

import hashlib
import math
import re
import shutil
import subprocess
from array import array
from dataclasses import dataclass, field

import pandas as pd

from modeling.tables.profilers.workloads import kernel_base

#: arguments longer than this are hashed, as Accel-Sim's ``get_argfoldername`` does
LONG_ARGUMENTS = 256


def argument_folder(args: str | None) -> str:
    """An argument string as Accel-Sim names its run folder (see the module's text)."""
    if args is None or not str(args).strip():
        return "NO_ARGS"
    if len(str(args)) > LONG_ARGUMENTS:
        return "hashed_args_" + hashlib.md5(str(args).encode()).hexdigest()
    return re.sub(r"[^A-Za-z0-9]", "_", str(args).strip())


def demangle(names: list[str]) -> dict[str, str]:
    """Itanium-mangled names (``_Z...``) demangled with the machine's ``c++filt`` when it has one; a name
    that cannot be demangled is kept as printed."""
    mangled = sorted({n for n in names if n.startswith("_Z")})
    out = {n: _plain_function(n) for n in names}
    tool = shutil.which("c++filt")
    if not mangled or tool is None:
        return out
    try:
        done = subprocess.run([tool], input="\n".join(mangled) + "\n", capture_output=True, text=True,
                              timeout=30, check=True).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return out
    for m, d in zip(mangled, done):
        out[m] = d.strip() or m
    return out


def _plain_function(name: str) -> str:
    """A mangled free function's name without the demangler (``_Z6vecAddPfS_S_i`` -> ``vecAdd``); any other
    name as it is."""
    m = re.match(r"^_Z(\d+)", name)
    if m and len(name) >= m.end() + int(m.group(1)):
        return name[m.end(): m.end() + int(m.group(1))]
    return name


def normalise_kernel(name: str, demangled: dict[str, str] | None = None) -> str:
    """A kernel's name as the workload key holds it: demangled, without its parameter list, spaces single."""
    name = re.sub(r"\s+", " ", str(name).strip())
    if demangled is not None:
        name = demangled.get(name, name)
    return kernel_base(name) if name else ""


@dataclass(frozen=True)
class WorkloadKey:
    application: str
    arguments: str
    kernel: str
    occurrence: int

    @property
    def text(self) -> str:
        """One string for the key: ``application/arguments--kernel--occurrence`` (Accel-Sim's
        ``app/args--kernel--N`` of ``get_stats.py -K``)."""
        base = f"{self.application}/{self.arguments}"
        return f"{base}--{self.kernel}--{self.occurrence}" if self.kernel else f"{base}--dump--{self.occurrence}"

    def to_dict(self) -> dict:
        return {"application": self.application, "arguments": self.arguments, "kernel": self.kernel,
                "occurrence": self.occurrence, "text": self.text}


def _json_number(v: float):
    """A value as JSON holds it: ``nan`` and the infinities (which JSON has no number for) as null."""
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


@dataclass
class SimRecord:
    """One kernel launch or one dump. ``dump`` is its position among the file's records (0-based) as
    printed; ``kernel`` the name as printed (the key holds it normalised)."""
    key: WorkloadKey
    configuration: str
    dump: int
    kernel: str
    launch_uid: int | None
    stream: int | None
    data: array
    file: SimFile
    notes: list = field(default_factory=list)
    #: indices of the statistics this record printed as ``nan`` (kept as missing values, not absent)
    nans: frozenset = frozenset()

    @property
    def values(self) -> dict:
        """Statistic -> value (NaN for ``nan``), the statistics this record printed."""
        names = self.file.names
        return {names[i]: v for i, v in enumerate(self.data) if not math.isnan(v) or i in self.nans}

    def to_dict(self) -> dict:
        return {"source": self.file.source, "format": self.file.format, "key": self.key.to_dict(),
                "configuration": self.configuration, "dump": self.dump, "kernel": self.kernel,
                "launch_uid": self.launch_uid, "stream": self.stream,
                "values": {k: _json_number(v) for k, v in self.values.items()}, "notes": list(self.notes)}


@dataclass
class SimFile:
    """The records of one file and what its reader said about it."""
    source: str
    format: str
    records: list = field(default_factory=list)
    names: list = field(default_factory=list)
    units: dict = field(default_factory=dict)
    #: canonical statistic name -> the name the file printed, where they differ (gem5's renamings)
    original: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    _index: dict = field(default_factory=dict, repr=False)

    def index(self, name: str) -> int:
        i = self._index.get(name)
        if i is None:
            i = self._index[name] = len(self.names)
            self.names.append(name)
        return i

    def to_dict(self) -> dict:
        return {"source": self.source, "format": self.format, "records": len(self.records),
                "statistics": len(self.names), "units": self.units, "original_names": self.original,
                "notes": list(self.notes)}


KEY_COLUMNS = ["source", "format", "application", "arguments", "kernel", "occurrence", "workload",
               "configuration", "dump", "kernel_printed", "launch_uid", "stream"]


@dataclass
class SimImport:
    """What an import read: its files, the files refused (path, reason) and notes."""
    files: list = field(default_factory=list)
    refused: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def records(self) -> list:
        return [r for f in self.files for r in f.records]

    def frame(self) -> pd.DataFrame:
        """One row per record: the key columns, then one column per statistic (NaN where absent)."""
        rows = []
        for r in self.records:
            k = r.key
            rows.append({"source": r.file.source, "format": r.file.format, "application": k.application,
                         "arguments": k.arguments, "kernel": k.kernel, "occurrence": k.occurrence,
                         "workload": k.text, "configuration": r.configuration, "dump": r.dump,
                         "kernel_printed": r.kernel, "launch_uid": r.launch_uid, "stream": r.stream, **r.values})
        return pd.DataFrame(rows, columns=None if rows else KEY_COLUMNS)

    def long(self) -> pd.DataFrame:
        """The tidy table: one row per record and statistic (workload, configuration, dump, metric, value,
        unit, source)."""
        rows = []
        for f in self.files:
            for r in f.records:
                for name, v in r.values.items():
                    rows.append((r.key.text, r.configuration, r.dump, name, v, f.units.get(name, ""), f.source))
        return pd.DataFrame(rows, columns=["workload", "configuration", "dump", "metric", "value", "unit",
                                           "source"])

    def to_dict(self) -> dict:
        return {"files": [f.to_dict() for f in self.files], "records": [r.to_dict() for r in self.records],
                "refused": [{"source": s, "reason": m} for s, m in self.refused], "notes": list(self.notes)}
