"""A GPGPU-Sim / Accel-Sim simulation's standard output, one record per kernel launch, read line by line.

What the simulator prints (``gpgpu_sim::gpu_print_stat`` in gpgpu-sim_distribution's
``src/gpgpu-sim/gpu-sim.cc``, and ``print_simulation_time`` after it): a configuration dump (``-option value
# description`` lines), then, each time a kernel finishes, a block that starts with ``kernel_name = NAME...``
and ``kernel_launch_uid = UID...`` (several names and uids when concurrent kernels finished together: they
share the block) followed by ``gpu_sim_cycle``, ``gpu_sim_insn``, ``gpu_ipc`` (this kernel), ``gpu_tot_*``
(cumulative over the run), occupancy, cache, DRAM and interconnect statistics, and ends with
``gpgpu_simulation_time``, ``gpgpu_simulation_rate`` and ``gpgpu_silicon_slowdown``. A run that finished
prints ``GPGPU-Sim: *** exit detected ***``; one stopped by ``-gpgpu_max_insn`` / ``-gpgpu_max_cycle``
prints ``GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **``, and the block it
printed last (or prints after it) is of a kernel that did not finish.

Read here:

* every ``name = number`` line inside a block (``%``, ``GB/Sec``, ``x`` after the number are units), the
  ``prefix: a = 1, b = 2`` and ``a=1 b=2`` lines as ``prefix.a``, ``prefix.b``; the statistics each DRAM
  channel prints after its ``DRAM[n]:`` line (up to the next memory partition or the L2 summary) as
  ``DRAM[n].name``, so that the channels do not overwrite one another; ``gpgpu_simulation_time`` as its seconds
  and the two ``gpgpu_simulation_rate`` lines as ``gpgpu_simulation_rate_inst`` and
  ``gpgpu_simulation_rate_cycle``; ``nan`` / ``-nan`` as missing values;
* ``kernel_stream_id`` when the block prints it, else the stream of the kernel's ``pushing kernel ... to
  stream N`` line (GPGPU-Sim) or of the ``-cuda stream id = N`` line of its trace header (Accel-Sim);
* a ``gpu_tot_X`` statistic whose per-kernel ``gpu_X`` the block lacks (``gpu_tot_issued_cta``) gives
  ``gpu_X`` as the difference from the previous block's value (the first block's is its own);
* a block is complete once its ``gpgpu_silicon_slowdown`` line, the next block, or the exit marker is
  read. Left out, with a note naming the kernel: the block cut by an instruction / cycle limit, a block the
  file ends in without the exit marker, and a kernel launched after the last block of a file without it.
"""

from __future__ import annotations

import hashlib
import math
import re
from array import array

from modeling.errors import DataError
from modeling.tables.simulators.records import SimFile, SimRecord, WorkloadKey, demangle, normalise_kernel

EXIT_MARKER = "GPGPU-Sim: *** exit detected ***"
LIMIT_MARKER = "GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **"
#: the per-kernel statistics every GPGPU-Sim version since 3.x prints; a block without them is noted
CORE = ("gpu_sim_cycle", "gpu_sim_insn", "gpu_ipc", "gpu_tot_sim_cycle", "gpu_tot_sim_insn")
#: names gpu_print_stat and the statistics it calls print in GPGPU-Sim 3.x and 4.x (prefixes); a statistic
#: outside these is kept and named in a note (another simulator version or a modified simulator)
KNOWN = re.compile(
    r"^(gpu_|gpgpu_|max_total_param_size|partiton_|L2_|L1[DICTW]?_|Total_core_cache|total_|averagem|avg_|"
    r"max|mrq|dq|mf_|icnt|kernel_|ctas_completed|num_|n_|warp|single_issue|dual_issue|Warp|Stall|W\d|"
    r"traffic|Req|req|dram|DRAM|bw|row|Row|bank|Bank|shader|Shader|cache|Cache|mem|Mem|sm_|SM|"
    r"power|Power|tot|accumulated|cycles|insn|inst|ipc|occupancy|stall|Stall|lat|Lat|"
    r"concurrent|local|global|const|tex|shared|param|regs|cmd|activity|dram|n_|number|RB|Mean|chip|Reply|"
    r"mrqq|Bank_Level)",
    re.IGNORECASE)
_NUM = r"([-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)|-?nan|-?inf)"
_SINGLE = re.compile(r"^\s*([A-Za-z_][\w\[\]. ]*?)\s*=\s*" + _NUM + r"\s*(%|[A-Za-z][A-Za-z/]*)?\s*$")
_PREFIX = re.compile(r"^\s*([A-Za-z_][\w\[\].]*)\s*:\s*")
_PAIRS = re.compile(r"^(?:\s*\w+\s*=\s*" + _NUM + r"\s*,?)+\s*$")
_PAIR = re.compile(r"(\w+)\s*=\s*" + _NUM)
_DRAM = re.compile(r"^DRAM\[(\d+)\]:")
_DRAM_END = re.compile(r"^(Memory Partition \d+:|=+|L2_cache_bank|L2_total)")
_SIM_TIME = re.compile(r"^\s*gpgpu_simulation_time\s*=.*\((\d+) sec\)")
_SIM_RATE = re.compile(r"^\s*gpgpu_simulation_rate\s*=\s*(\d+)\s*\((inst|cycle)/sec\)")
_SLOWDOWN = re.compile(r"^\s*gpgpu_silicon_slowdown\s*=\s*" + _NUM + r"x")
_PUSH = re.compile(r"pushing kernel '(.+?)' to stream (\d+)")
_LAUNCH = re.compile(r"launching kernel name: (\S+) uid: (\d+)")
_OPTION = re.compile(r"^(-\w+)\s+(.*?)\s+#")
#: options that name the workload, not the simulated machine: left out of the configuration's hash
_WORKLOAD_OPTIONS = {"-trace", "-kernels", "-config"}
#: Accel-Sim's trace list, ``.../<app>/<args>/traces/kernelslist.g``: the run's application and arguments
_TRACE_PATH = re.compile(r"([^/\s]+)/([^/\s]+)/traces/kernelslist\.g$")
_TRACE_STREAM = re.compile(r"^-cuda stream id = (\d+)")
_UNITS = {"%": "%", "GB/Sec": "GB/s", "x": "x"}


def _float(text: str) -> float:
    t = text.lower()
    if t.endswith("nan"):
        return math.nan
    return float(text)


class _Block:
    __slots__ = ("names", "uids", "stream", "values", "line", "context")

    def __init__(self, names: list, line: int):
        self.names, self.uids, self.stream, self.values, self.line = names, [], None, {}, line
        self.context = ""


def read_log(lines, source: str, application: str, arguments: str, configuration: str | None,
             identity_from_log: bool = False) -> SimFile:
    """The kernel launches of a GPGPU-Sim / Accel-Sim log given as an iterator of byte lines (a file opened
    in binary mode is one: nothing more than a line is held). ``configuration`` None: a short hash of the
    configuration options the log prints (those naming the workload, ``-trace``, left out).
    ``identity_from_log``: the application and arguments are taken from Accel-Sim's ``-trace`` option
    (``.../<app>/<args>/traces/kernelslist.g``) when the log prints it, ``application`` and ``arguments``
    otherwise."""
    out = SimFile(source, "gpgpusim-log")
    config_hash = hashlib.sha1()
    done: list[_Block] = []
    block: _Block | None = None
    exit_seen = limit_seen = False
    cut: list[str] = []
    pushed: dict[str, int] = {}
    launched: list[str] = []
    unknown: list[str] = []
    seen_names: set = set()
    trace_identity = None
    trace_stream = None
    n = 0

    def close():
        nonlocal block
        if block is not None:
            if limit_seen:
                cut.append(f"{' '.join(block.names)} (launch {','.join(block.uids) or '?'}): stopped by the "
                           "instruction / cycle limit")
            else:
                done.append(block)
            block = None

    for raw in lines:
        n += 1
        line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        s = line.rstrip("\r\n")
        if block is None:
            if s.startswith("kernel_name"):
                m = re.match(r"^kernel_name\s*=\s*(.*)$", s)
                if m:
                    block = _Block(m.group(1).split(), n)
                    continue
            m = _OPTION.match(s)
            if m and not done and not launched:
                if m.group(1) == "-trace":
                    t = _TRACE_PATH.search(m.group(2).strip())
                    trace_identity = (t.group(1), t.group(2)) if t else None
                if m.group(1) not in _WORKLOAD_OPTIONS:
                    config_hash.update(f"{m.group(1)} {m.group(2)}".encode())
                continue
            m = _TRACE_STREAM.match(s)
            if m:
                trace_stream = int(m.group(1))
                continue
            if EXIT_MARKER in s:
                exit_seen = True
            elif LIMIT_MARKER in s:
                limit_seen = True
                if done:  # the block printed last before the marker is of the kernel the limit stopped
                    b = done.pop()
                    cut.append(f"{' '.join(b.names)} (launch {','.join(b.uids) or '?'}): stopped by the "
                               "instruction / cycle limit")
            else:
                m = _PUSH.search(s) or _LAUNCH.search(s)
                if m:
                    launched.append(m.group(1) + (f" (launch {m.group(2)})" if m.re is _LAUNCH else ""))
                    if m.re is _PUSH:
                        pushed[m.group(1)] = int(m.group(2))
                    elif trace_stream is not None:
                        pushed[m.group(1)] = trace_stream
            continue
        # inside a block
        if s.startswith("kernel_name"):
            m = re.match(r"^kernel_name\s*=\s*(.*)$", s)
            if m:
                close()
                block = _Block(m.group(1).split(), n)
                continue
        if EXIT_MARKER in s:
            exit_seen = True
            close()
            continue
        if LIMIT_MARKER in s:
            limit_seen = True
            close()  # the block open now is the one the limit stopped
            continue
        if s.startswith("kernel_launch_uid"):
            block.uids = s.split("=", 1)[1].split()
            continue
        m = _SIM_TIME.match(s)
        if m:
            block.values["gpgpu_simulation_time"] = (float(m.group(1)), "s")
            continue
        m = _SIM_RATE.match(s)
        if m:
            block.values[f"gpgpu_simulation_rate_{m.group(2)}"] = (float(m.group(1)), f"{m.group(2)}/s")
            continue
        m = _SLOWDOWN.match(s)
        if m:
            block.values["gpgpu_silicon_slowdown"] = (_float(m.group(1)), "x")
            close()
            continue
        m = _DRAM.match(s)
        if m:
            block.context = f"DRAM[{m.group(1)}]."
            continue
        if block.context and _DRAM_END.match(s):
            block.context = ""
        m = _SINGLE.match(s)
        if m:
            name = m.group(1).strip()
            if name in ("kernel_stream_id", "kernel_stream"):
                block.stream = int(float(m.group(2)))
                continue
            block.values[block.context + name] = (_float(m.group(2)), _UNITS.get(m.group(3) or "", m.group(3) or ""))
            continue
        m = _PREFIX.match(s)
        prefix, rest = (m.group(1) + ".", s[m.end():]) if m else ("", s)
        if "=" in rest and _PAIRS.match(rest):
            for k, v in _PAIR.findall(rest):
                block.values[f"{block.context}{prefix}{k}"] = (_float(v), "")
            continue
        m = _PUSH.search(s) or _LAUNCH.search(s)
        if m:
            launched.append(m.group(1) + (f" (launch {m.group(2)})" if m.re is _LAUNCH else ""))
            if m.re is _PUSH:
                pushed[m.group(1)] = int(m.group(2))

    if block is not None:
        if exit_seen:
            close()
        else:
            cut.append(f"{' '.join(block.names)} (launch {','.join(block.uids) or '?'}): the file ends inside "
                       "its statistics, without the simulator's exit marker")
            block = None
    if not exit_seen and not limit_seen:
        printed = sum(len(b.names) for b in done) + sum(1 for _ in cut)
        if len(launched) > printed:
            cut.append(f"{launched[-1]}: launched after the last statistics block and never finished (the "
                       "file has no exit marker)")
        elif not cut:
            out.notes.append("The file has no exit marker (GPGPU-Sim: *** exit detected ***): the simulation "
                             "may have been stopped after its last complete kernel.")
    if not done and not cut:
        raise DataError(f"{source}: a GPGPU-Sim log without any kernel statistics block (kernel_name = ...). "
                        "Nothing was imported from it.")
    configuration = configuration or ("gpgpusim-" + config_hash.hexdigest()[:10])
    if identity_from_log and trace_identity:
        application, arguments = trace_identity
    names = demangle([k for b in done for k in b.names])
    counts: dict[str, int] = {}
    previous: dict[str, float] = {}
    derived: set = set()
    for i, b in enumerate(done):
        vals = dict(b.values)
        for name, (v, unit) in b.values.items():
            if name.startswith("gpu_tot_"):
                own = "gpu_" + name[len("gpu_tot_"):]
                if own not in vals and not re.search(r"ipc|occupancy|rate|parallism", own):
                    vals[own] = (v - previous.get(name, 0.0), unit)
                    derived.add(f"{own} from {name}")
                previous[name] = v
        kernels = [normalise_kernel(k, names) for k in b.names]
        kernel = " + ".join(kernels)
        occurrence = counts.get(kernel, 0)
        counts[kernel] = occurrence + 1
        data = array("d")
        nans = set()
        for name, (v, unit) in vals.items():
            j = out.index(name)
            if name not in seen_names:
                seen_names.add(name)
                if unit:
                    out.units[name] = unit
                if not KNOWN.match(name):
                    unknown.append(name)
            if math.isnan(v):
                nans.add(j)
            if j >= len(data):
                data.extend([math.nan] * (j + 1 - len(data)))
            data[j] = v
        notes = []
        if len(b.names) > 1:
            notes.append(f"concurrent kernels {', '.join(b.names)} finished together and share this block")
        missing = [c for c in CORE if c not in b.values]
        if missing:
            notes.append(f"the block lacks {', '.join(missing)} (another simulator version?)")
        stream = b.stream if b.stream is not None else pushed.get(b.names[0]) if b.names else None
        uid = int(b.uids[0]) if b.uids and b.uids[0].isdigit() else None
        out.records.append(SimRecord(WorkloadKey(application, arguments, kernel, occurrence), configuration, i,
                                     " ".join(b.names), uid, stream, data, out, notes, frozenset(nans)))
    if derived:
        out.notes.append("Per-kernel values taken from the cumulative ones by difference: "
                         + "; ".join(sorted(derived)) + ".")
    if unknown:
        out.notes.append(f"{len(unknown)} statistic(s) this reader does not know from GPGPU-Sim's "
                         f"gpu_print_stat, kept as printed: {', '.join(unknown[:10])}"
                         + (" ..." if len(unknown) > 10 else "") + ".")
    for c in cut:
        out.notes.append(f"Left out: {c}.")
    if not out.records:
        raise DataError(f"{source}: no complete kernel in the log. " + " ".join(out.notes)
                        + " Nothing was imported from it.")
    return out
