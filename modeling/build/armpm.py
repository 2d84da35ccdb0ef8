"""ODROID-XU3 PMU and power traces (armpm, BSD licence) -> per-run samples and aligned program phases.

Source format: tab-separated, the header line starts with ``#``; one row per
~0.5 s sample of one program run on the Cortex-A15 cluster: ``#Timestamp``
(ns), ``Benchmark``, ``Run(#)``, ``CPU(4) Frequency(MHz)``, temperature,
voltage, current, ``A15 Power(W)``, then PMU event counts of that sample
(per-sample deltas of CPU4, e.g. ``CPU_CYCLES``, ``INST_RETIRED``). A trace a
user brings may have another event set (the columns the file has are used) or
configuration columns (``Cores(#)``, read as ``cores``; any other ``Name(#)``
column but ``Run(#)``, read as ``config_name``): a configuration is part of a
run's identity, never a counter. PARSEC traces in this layout record each run
once on 1 core and once on 2 under the same ``Run(#)``; the two are kept apart
as separate runs (numbered after the first configuration's, the ``cores``
column recording each run's count) instead of being joined into one.

**Time gaps.** A sample longer than ``GAP_FACTOR`` times its run's median
sample is a defect (two recordings under one run number, or a stopped
logger): such a run is left out and the note names the gap.

**Samples.** A sample covers the time since the previous timestamp. The first
sample of a run has no start (its duration is estimated as its CPU cycles at
the run's clock, at most the run's median sample) and the last may be cut
short: both are kept as the run's *edges* (``edge`` True, ``sample`` -1 and n),
counted in every whole-run total but never cut into phases, never used to fit a
model nor to judge one phase. Dropping them left 3-6 % of a short run's cycles
out of its total. Energy of a sample = its power x its duration.

**Phases** (LACross 4, phases of equal retired instructions). A host run and a
target run of the same program are aligned on each run's cumulative
``INST_RETIRED`` normalized by its own total (totals differ 1-8 % between
runs); phase p covers the normalized span [p/P, (p+1)/P] in both runs, P =
round(host instructions / granularity). Every cumulative quantity (counters,
time, energy) is interpolated linearly inside a sample. Per phase: the host's
counter sums (features), its time and average power; the target's cycles, time
and average power (energy / time). The runs' edges follow as two more rows
(``edge`` True, phase -1 for the first sample and P for the last; host and
target edges paired as they are, not by instructions), so a run's rows sum to
its whole run.

A granularity finer than about one sample of the run with the most
instructions per sample cannot be supported: its phases would be interpolated
copies of one sample. Such a request is refused with the numbers.

**Quality control.** A run whose instruction total differs from the median of
the same program's runs (all frequencies) by more than 10 % is excluded and
listed.
"""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from modeling.errors import DataError

INSTR = "INST_RETIRED"
CYCLES = "CPU_CYCLES"
META = {"#Timestamp": "timestamp_ns", "Benchmark": "program", "Run(#)": "run",
        "CPU(4) Frequency(MHz)": "freq_mhz", "A15 Power(W)": "power_w"}
DROP = ("CPU(4) Temperature(C)", "A15 Voltage(V)", "A15 Current(A)")
#: configuration columns by name in the trace -> name in the samples (any other "Name(#)" -> "config_name")
CONFIG = {"Cores(#)": "cores"}
#: a sample this many times longer than its run's median sample is a gap (module docstring)
GAP_FACTOR = 10.0
QC_TOLERANCE = 0.10
DEFAULT_GRANULARITY = 2e9
#: a granularity may be this much finer than one sample of the densest run (sample lengths vary a little)
SAMPLE_SLACK = 0.95


EDGE = "edge"


def as_flags(values: pd.Series) -> np.ndarray:
    """A column of flags as booleans, however a file wrote them (True/False, "true"/"false", 1/0)."""
    if pd.api.types.is_bool_dtype(values):
        return values.to_numpy(bool)
    if pd.api.types.is_numeric_dtype(values):
        return pd.to_numeric(values).fillna(0).to_numpy(float) != 0
    return values.astype(str).str.strip().str.lower().isin(["true", "1", "1.0", "yes"]).to_numpy()


def is_edge(frame: pd.DataFrame) -> np.ndarray:
    """Per row: a run's edge (first or last sample; all False for a frame without the column)."""
    return as_flags(frame[EDGE]) if EDGE in frame.columns else np.zeros(len(frame), bool)


def core(s: pd.DataFrame) -> pd.DataFrame:
    """The rows cut into phases (a samples frame or phase table without its runs' edges, module docstring)."""
    return s[~is_edge(s)] if EDGE in s.columns else s


def read_trace(path_or_bytes) -> pd.DataFrame:
    """The raw trace as a frame with normalized meta column names; ``DataError`` for a file that is not one."""
    raw = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        df = pd.read_csv(io.BytesIO(raw), sep="\t")
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataError(f"Not a tab-separated trace: {exc}") from None
    df.columns = [str(c).strip() for c in df.columns]
    if "Timestamp" in df.columns and "#Timestamp" not in df.columns:
        df = df.rename(columns={"Timestamp": "#Timestamp"})
    missing = [c for c in META if c not in df.columns]
    if missing:
        raise DataError(f"The trace lacks column(s) {', '.join(missing)}; expected the armpm layout "
                        "(#Timestamp, Benchmark, Run(#), CPU(4) Frequency(MHz), A15 Power(W), PMU events).")
    config = {c: CONFIG.get(c, "config_" + c[:-3].strip().lower().replace(" ", "_"))
              for c in df.columns if c in CONFIG or (c.endswith("(#)") and c not in META)}
    df = df.rename(columns={**META, **config}).drop(columns=[c for c in DROP if c in df.columns])
    if INSTR not in df.columns:
        raise DataError(f"The trace has no {INSTR} column: phases are defined by retired instructions.")
    return df


def config_columns(df: pd.DataFrame) -> list[str]:
    """The configuration columns (a run's core count and the like: part of the run, not a counter)."""
    return [c for c in df.columns if c in CONFIG.values() or str(c).startswith("config_")]


def event_columns(df: pd.DataFrame) -> list[str]:
    """The PMU event columns the trace has (numeric columns other than the meta and configuration ones)."""
    skip = set(META.values()) | set(config_columns(df)) | {EDGE}
    return [c for c in df.columns if c not in skip and pd.api.types.is_numeric_dtype(df[c])]


def _split_configurations(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Runs of one program under one ``Run(#)`` but different configurations become separate runs: per
    program, the (configuration, run) pairs in order are numbered 1, 2, ... (the same at every frequency, so
    a host run still pairs with the target run of its configuration). Returns (frame, notes)."""
    config = config_columns(df)
    if not config or not (df.groupby("program")[config].nunique() > 1).any(axis=None):
        return df, []
    keys = df[["program", *config, "run"]].drop_duplicates().sort_values(["program", *config, "run"])
    keys["new_run"] = keys.groupby("program").cumcount() + 1
    df = df.merge(keys, on=["program", *config, "run"], how="left", validate="many_to_one")
    moved = keys[keys["new_run"] != keys["run"]]
    shown = "; ".join(f"{r.program} run {r.run} on {', '.join(f'{c} {getattr(r, c)}' for c in config)} -> "
                      f"run {r.new_run}" for r in moved.head(4).itertuples())
    note = (f"runs with different {', '.join(config)} kept apart as separate runs ({len(keys)} runs of "
            f"{keys['program'].nunique()} programs; {shown}{' …' if len(moved) > 4 else ''}); the "
            f"{', '.join(config)} column records each run's configuration")
    return df.assign(run=df["new_run"]).drop(columns="new_run"), [note]


def samples(df: pd.DataFrame, cores: int | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Per-run samples with ``duration_s`` and ``energy_j``, first and last sample of each run dropped.

    ``cores``: keep runs on this many cores when the trace has a ``cores`` column (None: keep all, runs of
    different core counts apart, :func:`_split_configurations`). Runs with a time gap are left out
    (``GAP_FACTOR``). Returns (samples, notes about what was kept apart or dropped).
    """
    notes = []
    if "cores" in df.columns and cores is not None:
        n = int((df["cores"] != cores).sum())
        if n:
            notes.append(f"{n} samples of runs on other than {cores} core(s) left out")
        df = df[df["cores"] == cores]
    events = event_columns(df)
    config = config_columns(df)
    bad = df[events + ["power_w", "timestamp_ns", "freq_mhz"]].isna().any(axis=1)
    if bad.any():
        notes.append(f"{int(bad.sum())} samples with missing values left out")
        df = df[~bad]
    df, split = _split_configurations(df)
    notes += split
    parts, gaps = [], []
    for (prog, run, freq), g in df.groupby(["program", "run", "freq_mhz"], sort=True):
        g = g.sort_values("timestamp_ns")
        dur = np.diff(g["timestamp_ns"].to_numpy(np.int64)) / 1e9
        if len(dur) > 2 and dur.max() > GAP_FACTOR * np.median(dur):
            gaps.append(f"{prog} run {run} at {freq:g} MHz has a sample of {dur.max():,.6g} s (median "
                        f"{np.median(dur):.3g} s)")
            continue
        if len(g) < 4:
            notes.append(f"{prog} run {run} at {freq} MHz: fewer than 4 samples, left out")
            continue
        med = float(np.median(dur))
        first = float(g[CYCLES].iloc[0]) / (float(freq) * 1e6) if CYCLES in g.columns else med
        g = g.assign(duration_s=np.concatenate([[min(first, med) if first > 0 else med], dur]))
        n = len(g) - 2
        g = g.assign(energy_j=g["power_w"] * g["duration_s"], sample=np.concatenate([[-1], np.arange(n), [n]]),
                     **{EDGE: np.r_[True, np.zeros(n, bool), True]})
        parts.append(g)
    if gaps:
        notes.append(f"{len(gaps)} run(s) with a time gap inside left out (a sample over {GAP_FACTOR:g}x the "
                     f"run's median: two recordings under one run number?): {'; '.join(gaps[:4])}"
                     f"{' …' if len(gaps) > 4 else ''}")
    if not parts:
        raise DataError("No run has enough samples (at least 4)" + (f"; {notes[-1]}" if gaps else "") + ".")
    out = pd.concat(parts, ignore_index=True)
    cols = ["program", "run", "freq_mhz", *config, "sample", EDGE, "duration_s", "energy_j", "power_w", *events]
    return out[cols], notes


def quality(s: pd.DataFrame, tolerance: float = QC_TOLERANCE) -> pd.DataFrame:
    """Runs whose instruction total differs from the median of the program's runs (of the same configuration,
    e.g. core count: a core's share of the work depends on it) by more than ``tolerance``: columns program,
    run, freq_mhz, instructions, program_median, deviation."""
    config = config_columns(s)
    s = core(s)
    tot = s.groupby(["program", *config, "run", "freq_mhz"])[INSTR].sum().rename("instructions").reset_index()
    tot["program_median"] = tot.groupby(["program", *config])["instructions"].transform("median")
    tot["deviation"] = tot["instructions"] / tot["program_median"] - 1
    return tot[tot["deviation"].abs() > tolerance].drop(columns=config).reset_index(drop=True)


@dataclass
class Run:
    """One run's cumulative quantities at its sample boundaries (first boundary 0)."""

    program: str
    run: int
    freq_mhz: float
    u: np.ndarray  # cumulative instructions / total, at boundaries
    cum: dict = field(default_factory=dict)  # name -> cumulative values at boundaries
    per_sample_instr: float = 0.0
    head: dict | None = None  # name -> the first sample's value (the run's edges, module docstring)
    tail: dict | None = None  # name -> the last sample's value

    @property
    def instructions(self) -> float:
        return float(self.cum[INSTR][-1])


def run_of(g: pd.DataFrame, events: list[str]) -> Run:
    """One run's samples as a :class:`Run` (its edges, when the frame marks them, as ``head`` and ``tail``)."""
    g = g.sort_values("sample")
    names = [*events, "duration_s", "energy_j"]
    edge = is_edge(g)
    head = tail = None
    if edge.any():
        e = g[edge]
        first, last = e[e["sample"] < 0], e[e["sample"] >= 0]
        head = {c: float(first[c].sum()) for c in names} if len(first) else None
        tail = {c: float(last[c].sum()) for c in names} if len(last) else None
        g = g[~edge]
    cum = {c: np.concatenate([[0.0], np.cumsum(g[c].to_numpy(float))]) for c in [*events, "duration_s", "energy_j"]}
    total = cum[INSTR][-1]
    if total <= 0:
        raise DataError(f"{g['program'].iloc[0]} run {g['run'].iloc[0]} retired no instructions.")
    r = g.iloc[0]
    return Run(str(r["program"]), int(r["run"]), float(r["freq_mhz"]), cum[INSTR] / total, cum,
               float(np.median(g[INSTR])), head, tail)


def rounded_up(x: float) -> float:
    """``x`` rounded up to two significant digits (a bound shown is one that holds)."""
    if not (x > 0 and np.isfinite(x)):
        return float(x)
    step = 10.0 ** (np.floor(np.log10(x)) - 1)
    v = float(np.ceil(x / step - 1e-9) * step)
    v = float(f"{v:.2g}")
    return v if v >= x else float(f"{v + step:.2g}")


def finest_granularity(host: Run, target: Run) -> float:
    """About one sample of the run retiring the most instructions per sample (the coarser sampling)."""
    return max(host.per_sample_instr, target.per_sample_instr)


def align(host: Run, target: Run, granularity: float = DEFAULT_GRANULARITY, events: list[str] | None = None
          ) -> pd.DataFrame:
    """Phases of ``granularity`` retired host instructions, aligned between the two runs (module docstring).

    Columns: program, phase, u_start, u_end, host instructions, host event sums, host_time_s, host_power_w,
    target_cycles, target_time_s, target_power_w. Raises ``DataError`` for a granularity finer than the data
    supports.
    """
    fine = finest_granularity(host, target)
    if granularity < SAMPLE_SLACK * fine:
        raise DataError(f"A granularity of {granularity:.3g} instructions is finer than one sample of the "
                        f"{'host' if host.per_sample_instr >= target.per_sample_instr else 'target'} run "
                        f"({fine:.3g} instructions per sample): its phases would be interpolated copies of one "
                        f"sample. Use at least {rounded_up(SAMPLE_SLACK * fine):.3g}.")
    P = max(1, int(round(host.instructions / granularity)))
    edges = np.linspace(0.0, 1.0, P + 1)
    events = events or [c for c in host.cum if c not in ("duration_s", "energy_j")]

    def spans(run: Run, name: str) -> np.ndarray:
        return np.diff(np.interp(edges, run.u, run.cum[name]))

    out = {"program": host.program, "phase": np.arange(P), "u_start": edges[:-1], "u_end": edges[1:]}
    for c in events:
        out[f"host_{c}"] = spans(host, c)
    ht, he = spans(host, "duration_s"), spans(host, "energy_j")
    tt, te = spans(target, "duration_s"), spans(target, "energy_j")
    out.update(host_time_s=ht, host_power_w=he / ht, target_cycles=spans(target, CYCLES), target_time_s=tt,
               target_power_w=te / tt)
    out = pd.DataFrame(out)
    if host.head and host.tail and target.head and target.tail:
        rows = []
        for phase, u, h, t in ((-1, 0.0, host.head, target.head), (P, 1.0, host.tail, target.tail)):
            r = {"program": host.program, "phase": phase, "u_start": u, "u_end": u}
            r.update({f"host_{c}": h[c] for c in events})
            r.update(host_time_s=h["duration_s"], host_power_w=h["energy_j"] / h["duration_s"],
                     target_cycles=t[CYCLES], target_time_s=t["duration_s"],
                     target_power_w=t["energy_j"] / t["duration_s"])
            rows.append(r)
        out = pd.concat([pd.DataFrame(rows[:1]), out, pd.DataFrame(rows[1:])], ignore_index=True)
        out[EDGE] = np.r_[True, np.zeros(P, bool), True]
    else:
        out[EDGE] = False
    return out


def runs_table(s: pd.DataFrame) -> dict:
    """{(program, run, freq): Run} of a samples frame."""
    events = [c for c in s.columns if c not in ("program", "run", "freq_mhz", "sample", "duration_s", "energy_j",
                                                "power_w", EDGE, *config_columns(s))]
    return {k: run_of(g, events) for k, g in s.groupby(["program", "run", "freq_mhz"], sort=True)}


def phase_table(s: pd.DataFrame, host_freq: float, target_freq: float, granularity: float = DEFAULT_GRANULARITY,
                excluded: pd.DataFrame | None = None) -> pd.DataFrame:
    """All programs' phases for one frequency pair. Host run r pairs with target run r; at one frequency (the
    noise floor) a run pairs with the program's next run (run 1 predicts run 2), one direction only: with
    both directions a program's phases would sum to the same total on both sides, and its whole-program
    error would be zero by construction. Excluded runs (``quality``) are left out."""
    runs = runs_table(s)
    bad = set() if excluded is None else {(r.program, int(r.run), float(r.freq_mhz)) for r in excluded.itertuples()}
    parts = []
    for (prog, run, freq), host in runs.items():
        if freq != host_freq or (prog, run, freq) in bad:
            continue
        if host_freq != target_freq:
            other = run
        else:
            other = min((r for (p, r, f) in runs if p == prog and f == freq and r > run), default=None)
            if other is None:
                continue
        key = (prog, other, float(target_freq))
        if key not in runs or key in bad:
            continue
        ph = align(host, runs[key], granularity)
        ph.insert(1, "host_run", run)
        ph.insert(2, "target_run", other)
        for c in config_columns(s):  # the run's configuration, recorded beside it (never a host_ feature)
            ph[c] = s.loc[(s["program"] == prog) & (s["run"] == run) & (s["freq_mhz"] == freq), c].iloc[0]
        parts.append(ph)
    if not parts:
        raise DataError(f"No program has runs at both {host_freq:g} and {target_freq:g} MHz.")
    out = pd.concat(parts, ignore_index=True)
    out.insert(1, "host_freq_mhz", float(host_freq))
    out.insert(2, "target_freq_mhz", float(target_freq))
    return out


def build(source, out_dir, granularity: float | None = None, rule=None) -> dict:
    """Write ``armpm_samples.parquet`` (cleaned samples) and ``armpm_phases.parquet`` (every frequency pair at
    ``granularity``; None: ``rule(samples)``'s value, the default rule over all the trace's frequencies, which
    ``build-data`` passes: :func:`modeling.phases.granularity.rule`; without a rule, the preferred 2e9) into
    ``out_dir``; returns a summary."""
    out_dir = Path(out_dir)
    s, notes = samples(read_trace(source))
    excluded = quality(s)
    freqs = sorted(s["freq_mhz"].unique().tolist())
    if granularity is None and rule is not None:
        g = rule(s)
        granularity = g.value
        if g.raised:
            notes.append(f"phases of {g.value:.3g} instructions ({g.hint})")
    granularity = DEFAULT_GRANULARITY if granularity is None else granularity
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = [phase_table(s, h, t, granularity, excluded) for h in freqs for t in freqs]
    phases = pd.concat(tables, ignore_index=True)
    s.to_parquet(out_dir / "armpm_samples.parquet", index=False)
    phases.to_parquet(out_dir / "armpm_phases.parquet", index=False)
    return {"samples": int(len(s)), "runs": int(s.groupby(["program", "run", "freq_mhz"]).ngroups),
            "programs": int(s["program"].nunique()), "frequencies": freqs, "phases": int(len(phases)),
            "granularity": granularity, "excluded_runs": excluded.to_dict("records"), "notes": notes,
            "events": [c for c in s.columns if c.isupper()]}
