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

import numpy as np

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
_NAME = re.compile(r"[A-Za-z_][\w\[\]. ]*\Z")
_PREFIX_NAME = re.compile(r"[A-Za-z_][\w\[\].]*\Z")
_PAIR = re.compile(r"(\w+)\s*=\s*" + _NUM)
_SIM_TIME = re.compile(r"\((\d+) sec\)")
_SIM_RATE = re.compile(r"^\s*(\d+)\s*\((inst|cycle)/sec\)")
_PUSH = re.compile(r"pushing kernel '(.+?)' to stream (\d+)")
_LAUNCH = re.compile(r"launching kernel name: (\S+) uid: (\d+)")
_OPTION = re.compile(r"^(-\w+)\s+(.*?)\s+#")
#: options that name the workload, not the simulated machine: left out of the configuration's hash
_WORKLOAD_OPTIONS = {"-trace", "-kernels", "-config"}
#: Accel-Sim's trace list, ``.../<app>/<args>/traces/kernelslist.g``: the run's application and arguments
_TRACE_PATH = re.compile(r"([^/\s]+)/([^/\s]+)/traces/kernelslist\.g$")
_TRACE_STREAM = re.compile(r"^-cuda stream id = (\d+)")
_DRAM_END = ("Memory Partition ", "=", "L2_cache_bank", "L2_total")
_UNITS = {"GB/Sec": "GB/s"}
#: a line starting so is never stored by the plain ``name = number`` path of read_log (the markers, the
#: block's own lines, the DRAM channels' bounds, the statistics read specially)
_SPECIAL = ("kernel_", "gpgpu_si", "GPGPU-Sim", "DRAM[", "Memory Partition", "L2_cache_bank", "L2_total", "=")
#: the first characters of the lines without ``=`` that handle() reads (the markers, the block's own lines, the
#: DRAM channels' bounds, the configuration's options); the others, without "kernel" in them, say nothing
_NO_EQ_FIRST = frozenset("kGgDMLl-=")
#: most distinct texts before a line's ``=`` whose verdict read_log keeps
_PLAIN_CACHE = 100_000


def _plain_name(head: str) -> str | None:
    """The statistic's name when a line ``head = value`` whose value is one number is a plain statistic
    (stored as ``name`` with no unit by the line-by-line rules: Block.line), None when any other rule
    could apply to it (then the line is read by those rules)."""
    name = head.strip()
    if ":" in head or "'" in head or head.startswith(_SPECIAL) or name.startswith(_SPECIAL):
        return None
    return name if _NAME.match(name) else None


def _number(token: str) -> tuple[float, str] | None:
    """A printed value and the unit glued to it (``23.4%``, ``943333x``), or None."""
    unit = ""
    if token.endswith("%"):
        token, unit = token[:-1], "%"
    elif token.endswith("x") and token[:-1][-1:].isdigit():
        token, unit = token[:-1], "x"
    try:
        return float(token), unit
    except ValueError:
        return None


class _Block:
    __slots__ = ("names", "uids", "stream", "values", "units", "context")

    def __init__(self, names: list):
        self.names, self.uids, self.stream, self.values, self.units, self.context = names, [], None, {}, {}, ""

    def put(self, name: str, value: float, unit: str = "") -> None:
        self.values[name] = value
        if unit:
            self.units[name] = unit

    def line(self, s: str) -> None:
        """One line of the block's statistics."""
        if s.startswith("DRAM[") and "]:" in s:
            self.context = s[: s.index("]") + 1] + "."
            return
        if self.context and s.startswith(_DRAM_END):
            self.context = ""
        eq = s.count("=")
        if eq == 0:
            return
        if eq == 1:
            name, _, rest = s.partition("=")
            name = name.strip()
            if ":" in name:  # "prefix: a = 1"
                prefix, _, name = name.partition(":")
                name = f"{prefix.strip()}.{name.strip()}"
                if not _PREFIX_NAME.match(name):
                    return
            elif not _NAME.match(name):
                return
            tokens = rest.split()
            if not tokens:
                return
            if name.startswith("gpgpu_simulation_"):
                if name == "gpgpu_simulation_time":
                    m = _SIM_TIME.search(rest)
                    if m:
                        self.put(name, float(m.group(1)), "s")
                    return
                if name == "gpgpu_simulation_rate":
                    m = _SIM_RATE.match(rest)
                    if m:
                        self.put(f"gpgpu_simulation_rate_{m.group(2)}", float(m.group(1)), f"{m.group(2)}/s")
                    return
            if len(tokens) > 2:
                return
            got = _number(tokens[0])
            if got is None:
                return
            value, unit = got
            if len(tokens) == 2:
                if not re.fullmatch(r"[A-Za-z%][A-Za-z/%]*", tokens[1]):
                    return
                unit = _UNITS.get(tokens[1], tokens[1])
            if name in ("kernel_stream_id", "kernel_stream"):
                self.stream = int(value)
                return
            self.put(self.context + name, value, unit)
            return
        # several "a = 1" pairs: "prefix: a = 1, b = 2" or "a=1 b=2"
        head, colon, rest = s.partition(":")
        if colon and "=" not in head and _PREFIX_NAME.match(head.strip()):
            prefix = head.strip() + "."
        else:
            prefix, rest = "", s
        if _PAIR.sub("", rest).strip(" ,\t"):
            return  # text besides the pairs: not a statistics line
        values, head = self.values, self.context + prefix
        for k, v in _PAIR.findall(rest):  # float() reads every number _NUM matches
            values[head + k] = float(v)


def read_log(lines, source: str, application: str, arguments: str, configuration: str | None,
             identity_from_log: bool = False) -> SimFile:
    """The kernel launches of a GPGPU-Sim / Accel-Sim log given as an iterator of byte lines (a file opened
    in binary mode is one: nothing more than a line is held, and each block becomes its record as soon as
    it ends). ``configuration`` None: a short hash of the configuration options the log prints (those
    naming the workload, ``-trace``, left out). ``identity_from_log``: the application and arguments are
    taken from Accel-Sim's ``-trace`` option (``.../<app>/<args>/traces/kernelslist.g``) when the log prints
    it, ``application`` and ``arguments`` otherwise."""
    out = SimFile(source, "gpgpusim-log")
    config_hash = hashlib.sha1()
    block: _Block | None = None
    exit_seen = limit_seen = False
    cut: list[str] = []
    pushed: dict[str, int] = {}
    launched: list[str] = []
    unknown: list[str] = []
    previous: dict[str, float] = {}
    derived: set = set()
    trace_identity = None
    trace_stream = None
    printed = 0
    layouts: dict = {}

    def describe(names, uids) -> str:
        return f"{' '.join(names)} (launch {','.join(uids) or '?'})"

    def close():
        nonlocal block, printed
        b, block = block, None
        if b is None:
            return
        printed += len(b.names)
        if limit_seen:
            cut.append(describe(b.names, b.uids) + ": stopped by the instruction / cycle limit")
            return
        vals = b.values
        missing = [c for c in CORE if c not in vals]
        # blocks of one kernel print the same statistics in the same order: what the first of them needed
        # (which cumulative statistics give a per-kernel one, where each value goes) is kept for the others
        signature = tuple(vals)
        layout = layouts.get(signature)
        if layout is not None:
            plan, where = layout
            for name, own in plan:
                v = vals[name]
                if own:
                    vals[own] = v - previous.get(name, 0.0)
                previous[name] = v
            got = np.fromiter(vals.values(), float, len(vals))
            full = np.full(len(out.names), math.nan)
            full[where] = got
            data = array("d")
            data.frombytes(full.tobytes())
            nans = where[np.isnan(got)].tolist()
        else:
            plan = []
            for name in [k for k in vals if k.startswith("gpu_tot_")]:
                v = vals[name]
                own = "gpu_" + name[len("gpu_tot_"):]
                if own not in vals and not re.search(r"ipc|occupancy|rate|parallism", own):
                    vals[own] = v - previous.get(name, 0.0)
                    derived.add(f"{own} from {name}")
                    plan.append((name, own))
                else:
                    plan.append((name, None))
                previous[name] = v
            data = array("d", [math.nan]) * (len(out.names) + 8)
            nans = set()
            where = []
            for name, v in vals.items():
                j = out._index.get(name)
                if j is None:
                    j = out.index(name)
                    if name in b.units:
                        out.units[name] = b.units[name]
                    if not KNOWN.match(name):
                        unknown.append(name)
                if j >= len(data):
                    data.extend([math.nan] * (j + 1 - len(data)))
                if v != v:
                    nans.add(j)
                data[j] = v
                where.append(j)
            del data[len(out.names):]
            layouts[signature] = (plan, np.array(where, dtype=np.intp))
        notes = []
        if len(b.names) > 1:
            notes.append(f"concurrent kernels {', '.join(b.names)} finished together and share this block")
        if missing:
            notes.append(f"the block lacks {', '.join(missing)} (another simulator version?)")
        stream = b.stream if b.stream is not None else pushed.get(b.names[0]) if b.names else None
        uid = int(b.uids[0]) if b.uids and b.uids[0].isdigit() else None
        out.records.append(SimRecord(WorkloadKey("", "", "", 0), "", len(out.records), " ".join(b.names), uid,
                                     stream, data, out, notes, frozenset(nans)))

    def launch(m) -> None:
        if m.re is _PUSH:
            launched.append(m.group(1))
            pushed[m.group(1)] = int(m.group(2))
        else:
            launched.append(f"{m.group(1)} (launch {m.group(2)})")
            if trace_stream is not None:
                pushed[m.group(1)] = trace_stream

    def handle(s: str) -> None:
        """One line (without its line end) that is not a plain ``name = number`` statistic."""
        nonlocal block, exit_seen, limit_seen, trace_identity, trace_stream
        c = s[:1]
        if c == "k" and s.startswith("kernel_name"):
            name, eq, rest = s.partition("=")
            if eq and name.strip() == "kernel_name":
                close()
                block = _Block(rest.split())
                return
        if block is not None:
            if c == "k" and s.startswith("kernel_launch_uid"):
                block.uids = s.partition("=")[2].split()
                return
            if c == "G" and s.startswith("GPGPU-Sim: *"):
                if EXIT_MARKER in s:
                    exit_seen = True
                    close()
                    return
                if LIMIT_MARKER in s:
                    limit_seen = True
                    close()  # the block open now is the one the limit stopped
                    return
            if c == "g" and s.startswith("gpgpu_silicon_slowdown"):
                got = _number(s.partition("=")[2].strip())
                if got is not None:
                    block.put("gpgpu_silicon_slowdown", got[0], "x")
                close()
                return
            if c == "G" or c == "l":
                m = _PUSH.search(s) or _LAUNCH.search(s)
                if m:
                    launch(m)
                    return
            block.line(s)
            return
        # outside a block: the configuration, launches and the markers
        if c == "-":
            m = _OPTION.match(s)
            if m and not out.records and not launched:
                if m.group(1) == "-trace":
                    t = _TRACE_PATH.search(m.group(2).strip())
                    trace_identity = (t.group(1), t.group(2)) if t else None
                if m.group(1) not in _WORKLOAD_OPTIONS:
                    config_hash.update(f"{m.group(1)} {m.group(2)}".encode())
                return
            m = _TRACE_STREAM.match(s)
            if m:
                trace_stream = int(m.group(1))
            return
        if c == "G" and s.startswith("GPGPU-Sim: *"):
            if EXIT_MARKER in s:
                exit_seen = True
            elif LIMIT_MARKER in s:
                limit_seen = True
                if out.records:  # the block printed last before the marker is of the kernel the limit stopped
                    r = out.records.pop()
                    cut.append(f"{r.kernel} (launch {r.launch_uid if r.launch_uid is not None else '?'}): "
                               "stopped by the instruction / cycle limit")
            return
        if "kernel" in s:
            m = _PUSH.search(s) or _LAUNCH.search(s)
            if m:
                launch(m)

    # The lines come in pieces that end at a line's end (a line, or a chunk of many lines). The most common
    # line, a plain ``name = number`` statistic, is stored here at once: the verdict on the text before its
    # ``=`` (_plain_name) is kept, and float() reads the value exactly when the line-by-line rules would (one
    # number, no unit). Every other line goes through handle().
    vals = ctx = None
    plain: dict = {}
    missing = plain.get
    for raw in lines:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        for line in text.split("\n"):
            head, eq, value = line.partition("=")
            if eq:
                name = missing(head, "")
                if name == "":
                    name = _plain_name(head)
                    if len(plain) < _PLAIN_CACHE:
                        plain[head] = name
                if name is not None:
                    try:
                        x = float(value)
                    except ValueError:
                        if vals is None and "kernel" not in line:
                            continue  # outside a block such a line says nothing (handle would skip it)
                    else:
                        if vals is not None:
                            vals[ctx + name] = x
                        continue
            elif line[:1] not in _NO_EQ_FIRST and "kernel" not in line:
                continue  # no "=", and no rule reads a line that starts so (handle would skip it)
            handle(line.rstrip("\r\n"))
            if block is None:
                vals = None
            else:
                vals, ctx = block.values, block.context

    if block is not None:
        if exit_seen:
            close()
        else:
            cut.append(describe(block.names, block.uids) + ": the file ends inside its statistics, without the "
                       "simulator's exit marker")
            block = None
    if not exit_seen and not limit_seen:
        if len(launched) > printed:
            cut.append(f"{launched[-1]}: launched after the last statistics block and never finished (the "
                       "file has no exit marker)")
        elif not cut:
            out.notes.append("The file has no exit marker (GPGPU-Sim: *** exit detected ***): the simulation "
                             "may have been stopped after its last complete kernel.")
    if not out.records and not cut:
        raise DataError(f"{source}: a GPGPU-Sim log without any kernel statistics block (kernel_name = ...). "
                        "Nothing was imported from it.")
    configuration = configuration or ("gpgpusim-" + config_hash.hexdigest()[:10])
    if identity_from_log and trace_identity:
        application, arguments = trace_identity
    names = demangle([k for r in out.records for k in r.kernel.split()])
    counts: dict[str, int] = {}
    for i, r in enumerate(out.records):
        kernel = " + ".join(normalise_kernel(k, names) for k in r.kernel.split())
        occurrence = counts.get(kernel, 0)
        counts[kernel] = occurrence + 1
        r.key = WorkloadKey(application, arguments, kernel, occurrence)
        r.configuration = configuration
        r.dump = i
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
