"""A program never run on the target: its target trace (cycles or power per phase, and the whole program)
predicted from its host run, with intervals (docs/architecture.md, "Evaluate, then predict").

**Input.** The host run as a per-sample trace (the shipped ``armpm_samples.parquet`` format: ``program``,
``run``, ``freq_mhz``, ``duration_s``, ``power_w`` or ``energy_j``, one column per PMU event, ``sample``
optional; or the raw armpm trace, :func:`modeling.build.armpm.read_trace`) cut into phases of
``granularity`` retired instructions exactly as the phase tables are (:func:`host_phases`, the host side
of :func:`modeling.build.armpm.align`); or a phase table's host columns. Target columns a table may carry
are dropped before anything else and never read.

**Training.** The phases of every training program at that frequency pair (default: the shipped table; a
program with the predicted one's name is left out of it, so a shipped program's own target never helps).

**Model.** ``auto`` (default) chooses among LACross, the global model, the host x median per-phase ratio
and the host x median whole-program ratio (:mod:`modeling.phases.evaluate`) by program-grouped
cross-validation on the training programs, the program as the unit: the lowest mean whole-program error
over the held-out programs wins, and a model has to beat the whole-program ratio (the naive answer for a
program) by more than rounding to be chosen over it, so ``auto`` is never worse than that ratio in the
cross-validation it is chosen by. ``selection`` says in words which won and with what error beside the
best other candidate. Or one model by name (``nnls-baseline`` and ``mean-baseline`` too). The winner is then
fitted on all training programs (LACross and the global model choose eps and T by their own
program-grouped CV, as in evaluation).

**Intervals** (level 0.9 by default), from the same cross-validation's out-of-fold predictions of the
model used, on the log scale (a ratio judges a prediction; the bounds stay positive):

* per phase: rule ``per_application`` of :mod:`modeling.intervals.conformal` with the program as the
  group: each training program's own ``level``-quantile of ``|log(measured / predicted)|`` over its phases,
  then the ``ceil(level (G + 1))``-th smallest of those G quantiles. Phases of one program share one bias
  (they are not exchangeable with each other), and the new program is a new group, so the program is the
  unit; pooling phases would let the longest programs decide.
* whole program: one residual per held-out program, ``|log(measured total / predicted total)|`` (cycles
  summed over phases; power as the program's average: target energy / target time measured, the
  host-time-weighted mean of the phase predictions predicted), and the ``ceil(level (G + 1))``-th smallest
  of the G residuals (split-conformal rank over programs). A total is not the sum of the phase bounds:
  phase errors partly cancel, partly share the program's bias; only held-out totals show which.

With too few programs for the level (``ceil(level (G + 1)) > G``, fewer than 9 programs at 90 %): per phase
the largest program quantile is used and the level the data supports, ``G / (G + 1)``, is reported; the
whole program gets no interval (``total["lower"]``/``["upper"]`` None, ``total_half_width`` None) and a note
says how many programs the level needs: a whole-program interval from one residual per program would
otherwise be the single largest error seen, a bound that means nothing at the level printed.

Each phase carries the LACross neighbourhood fall-back flag (fewer than max(2d, 10) training phases within
eps: the nearest ones were used).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from modeling.build import armpm
from modeling.intervals import conformal
from modeling.errors import ConfigError, DataError
from modeling.phases import data
from modeling.phases.evaluate import EPS_GRID, MODELS, T_GRID, evaluate, fill_edges, program_ratio, tune
from modeling.phases.model import nnls_fit
from modeling.phases.model import predict as lacross_predict
from modeling.phases.prediction import AUTO, UNITS, PhasePrediction  # noqa: F401 - the result, imported from here too

#: what ``auto`` chooses among, in the order ties go (the naive whole-program answer first)
AUTO_MODELS = ("program-ratio", "ratio-baseline", "lacross", "global")
RATIOS = ("program-ratio", "ratio-baseline")
#: per-phase MAPE differences (percentage points) below this are ties
TIE = 1e-6
#: columns of a per-sample trace (besides the events)
SAMPLE_NEED = ("program", "freq_mhz", "duration_s")
#: a phase table's columns that belong to the target run (dropped on input, never read)
TARGET_COLS = ("target_cycles", "target_time_s", "target_power_w", "target_run", "target_freq_mhz")


# ------------------------------------------------------------------ the host run as phases

def _is_phase_table(frame: pd.DataFrame) -> bool:
    return "host_" + armpm.INSTR in frame.columns


def host_only(frame: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """The frame without target columns; returns (frame, names of the columns dropped)."""
    drop = [c for c in frame.columns if str(c) in TARGET_COLS or str(c).startswith("target_")]
    return frame.drop(columns=drop), drop


def check_trace(frame: pd.DataFrame) -> str:
    """``"phases"`` or ``"samples"``; ``DataError`` naming the missing columns of a trace that is neither."""
    frame = frame.rename(columns={c: armpm.META[c] for c in frame.columns if c in armpm.META})
    if _is_phase_table(frame):
        need = ["program", "host_time_s", "host_power_w"]
        missing = [c for c in need if c not in frame.columns]
        if missing:
            raise DataError(f"The phase table lacks column(s) {', '.join(missing)}.")
        return "phases"
    need = [*SAMPLE_NEED, armpm.INSTR, armpm.CYCLES]
    missing = [c for c in need if c not in frame.columns]
    if "power_w" not in frame.columns and "energy_j" not in frame.columns:
        missing.append("power_w (or energy_j)")
    if missing:
        raise DataError(f"The host trace lacks column(s) {', '.join(missing)}: a per-sample trace needs program, "
                        f"freq_mhz, duration_s, power_w, {armpm.INSTR}, {armpm.CYCLES} and the PMU event columns "
                        f"(or a phase table: program, host_{armpm.INSTR}, host_time_s, host_power_w, "
                        "host_<EVENT>).")
    return "samples"


def host_phases(run: armpm.Run, granularity: float = armpm.DEFAULT_GRANULARITY) -> pd.DataFrame:
    """One host run cut into phases of ``granularity`` retired instructions: the host columns of
    :func:`modeling.build.armpm.align` (same edges, same sums), with the run's first and last samples as two
    more rows (``edge``, phase -1 and P) when the trace has them, so the rows sum to the whole run."""
    if granularity < armpm.SAMPLE_SLACK * run.per_sample_instr:
        raise DataError(f"A granularity of {granularity:.3g} instructions is finer than one sample of the host "
                        f"run ({run.per_sample_instr:.3g} instructions per sample). Use at least "
                        f"{armpm.rounded_up(armpm.SAMPLE_SLACK * run.per_sample_instr):.3g}.")
    P = max(1, int(round(run.instructions / granularity)))
    edges = np.linspace(0.0, 1.0, P + 1)

    def spans(name):
        return np.diff(np.interp(edges, run.u, run.cum[name]))

    out = {"program": run.program, "host_run": run.run, "phase": np.arange(P), "u_start": edges[:-1],
           "u_end": edges[1:]}
    for c in run.cum:
        if c not in ("duration_s", "energy_j"):
            out[f"host_{c}"] = spans(c)
    ht, he = spans("duration_s"), spans("energy_j")
    out.update(host_time_s=ht, host_power_w=he / ht)
    out = pd.DataFrame(out)
    out[armpm.EDGE] = False
    if run.head and run.tail:
        rows = []
        for phase, u, h in ((-1, 0.0, run.head), (P, 1.0, run.tail)):
            r = {"program": run.program, "host_run": run.run, "phase": phase, "u_start": u, "u_end": u,
                 armpm.EDGE: True}
            r.update({f"host_{c}": h[c] for c in run.cum if c not in ("duration_s", "energy_j")})
            r.update(host_time_s=h["duration_s"], host_power_w=h["energy_j"] / h["duration_s"])
            rows.append(r)
        out = pd.concat([pd.DataFrame(rows[:1]), out, pd.DataFrame(rows[1:])], ignore_index=True)
    return out


def _samples_of(frame: pd.DataFrame) -> pd.DataFrame:
    """A per-sample frame in the cleaned format (``energy_j`` from power x duration when absent)."""
    f = frame.rename(columns={c: armpm.META[c] for c in frame.columns if c in armpm.META})
    if "energy_j" not in f.columns:
        f = f.assign(energy_j=pd.to_numeric(f["power_w"], errors="coerce") * pd.to_numeric(f["duration_s"],
                                                                                        errors="coerce"))
    if "run" not in f.columns:
        f = f.assign(run=1)
    if "sample" not in f.columns:
        f = f.assign(sample=f.groupby(["program", "run", "freq_mhz"]).cumcount())
    events = [c for c in armpm.event_columns(f) if c not in ("sample", "duration_s", "energy_j", "timestamp_ns")]
    cols = [*events, "duration_s", "energy_j", "freq_mhz"]
    if armpm.EDGE not in f.columns:
        f = f.assign(**{armpm.EDGE: False})
    for c in cols:
        f[c] = pd.to_numeric(f[c], errors="coerce")
    bad = f[cols].isna().any(axis=1) | ~np.isfinite(f[cols].to_numpy(float)).all(axis=1)
    if bad.any():
        rows = ", ".join(str(i + 2) for i in np.flatnonzero(bad.to_numpy())[:5])
        raise DataError(f"{int(bad.sum())} sample(s) have a missing or non-numeric value (data rows {rows}).")
    if (f["duration_s"] <= 0).any():
        raise DataError("Every sample needs a positive duration_s.")
    f[armpm.EDGE] = armpm.is_edge(f)
    return f[["program", "run", "freq_mhz", "sample", armpm.EDGE, "duration_s", "energy_j", *events]]


def new_program(frame: pd.DataFrame, host_freq: float, granularity: float | None = None,
                program: str | None = None, run: int | None = None, training_samples: pd.DataFrame | None = None,
                target_freq: float | None = None) -> tuple[pd.DataFrame, list]:
    """The host phases of the program to predict from a trace or a phase table; returns (phases, notes); the
    granularity used is ``phases.attrs["granularity"]`` (a phase table's: None, as it was cut).

    Target columns are dropped first (and named in the notes). A trace with several programs needs
    ``program``; with several runs at ``host_freq`` the lowest-numbered one is used unless ``run`` says.
    ``granularity`` None: the default rule (:func:`modeling.phases.granularity.rule`) over the host run and
    ``training_samples`` at ``host_freq`` and ``target_freq``, the same number the training phases are cut at."""
    frame, dropped = host_only(frame.copy())
    notes = [f"column(s) {', '.join(map(str, dropped))} of the target run ignored, never read"] if dropped else []
    kind = check_trace(frame)
    progs = sorted(frame["program"].astype(str).unique().tolist())
    if not progs:
        raise DataError("The host trace has no rows.")
    if program is None:
        if len(progs) > 1:
            raise DataError(f"The trace holds {len(progs)} programs ({', '.join(progs[:8])}…); choose one.")
        program = progs[0]
    elif program not in progs:
        raise DataError(f"No program {program!r} in the trace; it has {', '.join(progs[:8])}.")
    frame = frame[frame["program"].astype(str) == program]
    if kind == "phases":
        if "host_freq_mhz" in frame.columns:
            freqs = sorted(set(frame["host_freq_mhz"].astype(float)))
            if float(host_freq) not in freqs:
                raise DataError(f"The phase table's host ran at {', '.join(f'{f:g}' for f in freqs)} MHz, "
                                f"not {host_freq:g}.")
            frame = frame[frame["host_freq_mhz"].astype(float) == float(host_freq)]
        if "host_run" in frame.columns:
            runs = sorted(set(frame["host_run"].tolist()))
            pick = runs[0] if run is None else run
            if pick not in runs:
                raise DataError(f"No host run {pick} of {program}; it has {', '.join(map(str, runs))}.")
            if len(runs) > 1:
                notes.append(f"host run {pick} used (the table has runs {', '.join(map(str, runs))})")
            frame = frame[frame["host_run"] == pick]
        ph = frame.sort_values("phase") if "phase" in frame.columns else frame
        ph = ph.reset_index(drop=True)
        if "phase" not in ph.columns:
            ph = ph.assign(phase=np.arange(len(ph)))
        for c in [c for c in ph.columns if str(c).startswith("host_") and c not in ("host_run", "host_freq_mhz")]:
            ph[c] = pd.to_numeric(ph[c], errors="coerce")
        ph.attrs["granularity"] = granularity
        return ph, notes
    s = _samples_of(frame)
    freqs = sorted(set(s["freq_mhz"].tolist()))
    if float(host_freq) not in freqs:
        raise DataError(f"The trace's {program} ran at {', '.join(f'{f:g}' for f in freqs)} MHz, not at the "
                        f"host frequency {host_freq:g} MHz.")
    other = [f for f in freqs if f != float(host_freq)]
    if other:
        notes.append(f"samples at {', '.join(f'{f:g}' for f in other)} MHz ignored, never read")
    s = s[s["freq_mhz"] == float(host_freq)]
    runs = sorted(set(s["run"].tolist()))
    pick = runs[0] if run is None else run
    if pick not in runs:
        raise DataError(f"No host run {pick} of {program}; the trace has {', '.join(map(str, runs))}.")
    if len(runs) > 1:
        notes.append(f"host run {pick} used (the trace has runs {', '.join(map(str, runs))})")
    g = s[s["run"] == pick]
    if len(armpm.core(g)) < 2:
        raise DataError(f"The host run of {program} has fewer than 2 samples.")
    events = [c for c in g.columns if c not in ("program", "run", "freq_mhz", "sample", "duration_s", "energy_j",
                                                armpm.EDGE)]
    if granularity is None:
        from modeling.phases.granularity import rule

        freqs = (host_freq,) if target_freq is None else (host_freq, target_freq)
        others = () if training_samples is None else (training_samples,)
        granularity = rule(g, *others, freqs=freqs).value
    ph = host_phases(armpm.run_of(g, events), granularity)
    ph.attrs["granularity"] = granularity
    return ph, notes


# ------------------------------------------------------------------ predicting

def _total(target: str, values: np.ndarray, host_time: np.ndarray) -> float:
    if target == "cycles":
        return float(np.sum(values))
    return float(np.sum(values * host_time) / np.sum(host_time))


def choose_model(cv: dict) -> str:
    """Of :data:`AUTO_MODELS`, the one with the lowest mean whole-program error in program-grouped CV
    (``program_mean_ape``; the program is the unit); ties go to the first in that order, so a model must beat
    the whole-program ratio by more than rounding (LACross and the global model coincide when CV picks
    eps = 100 % and differ in the 10th digit)."""
    best = None
    for m in AUTO_MODELS:
        if m in cv and (best is None or cv[m]["program_mean_ape"] < cv[best]["program_mean_ape"] - TIE):
            best = m
    return best


def selection_text(cv: dict, used: str, requested: str) -> str:
    """In words: the model used and its program-grouped CV whole-program error beside the best other
    candidate's (and the whole-program ratio's, when neither is it)."""
    from modeling.phases.evaluate import LABELS

    def err(m):
        return f"{cv[m]['program_mean_ape']:.2f} %"

    pool = [m for m in (AUTO_MODELS if requested == AUTO else cv) if m in cv and m != used]
    if not pool or used not in cv:
        return ""
    other = min(pool, key=lambda m: cv[m]["program_mean_ape"])
    if requested != AUTO:
        return (f"{LABELS[used]} as asked: {err(used)} mean whole-run error in program-grouped CV, where "
                f"{LABELS[other]} was {err(other)}.")
    if used in RATIOS:
        text = (f"The {LABELS[used]} is used: no model beat it in program-grouped CV (mean whole-run error "
                f"{err(used)} against {err(other)} for the best other candidate, {LABELS[other]}).")
    else:
        text = (f"{LABELS[used]} is used: in program-grouped CV its mean whole-run error was {err(used)} "
                f"against {err(other)} for {LABELS[other]}")
        text += ("." if other == "program-ratio" else
                 f" and {err('program-ratio')} for the {LABELS['program-ratio']}.")
    return text


def phase_half_width(abs_resid, programs, level: float) -> tuple[float, float]:
    """Log half-width of the phase interval (rule ``per_application``, programs as groups) and the
    supported level."""
    return conformal.group_half_width(np.asarray(abs_resid, float), np.asarray(programs), level,
                                      "per_application")


def total_half_width(abs_resid, level: float) -> tuple[float, float]:
    """The ``ceil(level (G + 1))``-th smallest of G held-out programs' |log total residuals| (the largest,
    with the supported level G / (G + 1), when G is too small)."""
    if len(abs_resid) < 2:
        raise DataError("Whole-program intervals need at least 2 training programs.")
    return conformal.conformal_quantile(abs_resid, level)


def _fit_predict(model: str, train: pd.DataFrame, test: pd.DataFrame, target: str, features: str, norm: str,
                 seed: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """(predictions, fall-back flags, chosen settings) of ``model`` fitted on all of ``train``."""
    y = train[data.TARGETS[target]].to_numpy(float)
    host = data.HOST_OF_TARGET[target]
    fb = np.zeros(len(test), bool)
    if model == "ratio-baseline":
        return test[host].to_numpy(float) * np.median(y / train[host].to_numpy(float)), fb, {}
    if model == "program-ratio":
        return test[host].to_numpy(float) * program_ratio(train, target), fb, {}
    if model == "mean-baseline":
        return np.full(len(test), y.mean()), fb, {}
    d = data.design(train, test, norm, features)
    if model == "nnls-baseline":
        return d.V @ nnls_fit(d.X, y), fb, {}
    eps_grid = EPS_GRID if model == "lacross" else (100.0,)
    e_, t_, err = tune(train, target, features, norm, eps_grid, T_GRID, seed)
    p = lacross_predict(d.X, y, d.V, e_, t_, seed=seed)
    return p.pred, p.fallback, {"eps_pct": e_, "t_factor": None if math.isinf(t_) else t_, "inner_mape": err}


def predict_program(host: pd.DataFrame, training: pd.DataFrame, target: str = "cycles", model: str = AUTO,
                    level: float = 0.9, features: str = "counters", norm: str = "z", folds: int = 5,
                    seed: int = 0, host_freq: float | None = None, target_freq: float | None = None,
                    granularity: float = armpm.DEFAULT_GRANULARITY, training_name: str = data.SHIPPED_NAME,
                    notes=(), progress=None) -> PhasePrediction:
    """Predict the target trace of the program in ``host`` (its host phases, :func:`new_program`) from the
    ``training`` phase table (module docstring). ``host``'s target columns, if any, are dropped unread."""
    t0 = time.perf_counter()
    if target not in data.TARGETS:
        raise ConfigError(f"Unknown target {target!r}; use cycles or power.")
    if model != AUTO and model not in MODELS:
        raise ConfigError(f"Unknown model {model!r}; use {AUTO} or one of {', '.join(MODELS)}.")
    conformal.conformal_rank(level, 1)  # checks 0 < level < 1
    host, _ = host_only(host)
    notes = list(notes)
    program = str(host["program"].iloc[0])
    train = training
    if program in set(training["program"].astype(str)):
        train = training[training["program"].astype(str) != program]
        notes.append(f"{program} is in the training table: left out of training (its target never used)")
    train = train.reset_index(drop=True)
    events = data.event_names(train)
    required = ["host_" + armpm.INSTR, "host_time_s", "host_power_w", data.HOST_OF_TARGET[target]]
    missing = [c for c in dict.fromkeys(required) if c not in host.columns]
    if missing:
        raise DataError(f"The host trace lacks the column(s) {', '.join(c.removeprefix('host_') for c in missing)}"
                        " that every model needs.")
    lacking = [c for c in events if c not in host.columns]
    if lacking:  # the model is trained on the events both have; the host run decides which exist
        train = train.drop(columns=lacking)
        events = data.event_names(train)
        notes.append(f"event(s) {', '.join(c.removeprefix('host_') for c in lacking)} of the training data are "
                     f"not in the host run: dropped from the model (trained on {len(events)} events: "
                     f"{', '.join(c.removeprefix('host_') for c in events)})")
    need = [*events, *required]
    vals = host[list(dict.fromkeys(need))].to_numpy(float)
    if not np.isfinite(vals).all() or (host["host_time_s"].to_numpy(float) <= 0).any():
        raise DataError("Some host phases have missing, infinite or non-positive values.")
    n_prog = int(train["program"].nunique())
    fit = armpm.core(train).reset_index(drop=True)  # a run's edges are predicted, never trained on
    if n_prog < 3:
        raise DataError(f"Predicting a new program needs at least 3 training programs; there are {n_prog}.")

    # program-grouped CV on the training programs: the model's choice and its residuals
    def prog(done, total, label):
        if progress:
            progress(0.8 * done / total, f"cross-validation: {label}")

    res = evaluate(train, target, features, norm, folds=folds, seed=seed, progress=prog)
    cv = {m.model: {"per_phase_mape": m.per_phase_mape, "program_mean_ape": m.program_mean_ape,
                    "program_max_ape": m.program_max_ape} for m in res.models}
    used = choose_model(cv) if model == AUTO else model
    core_rows = ~armpm.is_edge(train)
    y = train[data.TARGETS[target]].to_numpy(float)[core_rows]
    floor = conformal.log_floor(y)
    oof = np.asarray(res.phase_predictions[used], float)[core_rows]
    r_phase = np.abs(np.log(y) - conformal.to_log(oof, floor))
    groups = train["program"].astype(str).to_numpy()[core_rows]
    w_phase, sup_phase = phase_half_width(r_phase, groups, level)
    tot = pd.DataFrame(res.programs)
    r_run = np.abs(np.log(tot["actual"].to_numpy(float))
                   - conformal.to_log(tot[f"{used}|predicted"].to_numpy(float), floor))
    # one residual per held-out program (its runs share the program's bias): the largest of its runs'
    r_total = pd.Series(r_run).groupby(tot["program"].astype(str).to_numpy()).max().to_numpy()
    w_total, sup_total = total_half_width(r_total, level)
    total_ok = sup_total >= level
    ape = tot[f"{used}|ape"].to_numpy(float)
    expected = {"runs": int(len(ape)), "programs": int(len(r_total)), "median_ape": float(np.median(ape)),
                "mean_ape": float(np.mean(ape)), "max_ape": float(np.max(ape))}
    if not total_ok:
        notes.append(f"no {level * 100:g} % interval on the whole program: {len(r_total)} training programs are "
                     f"too few (a held-out-program rank at that level needs at least {conformal.units_needed(level)}; "
                     f"they support {sup_total * 100:.0f} %); expect an error like the held-out training "
                     f"programs' in the same cross-validation: median {expected['median_ape']:.1f} %, largest "
                     f"{expected['max_ape']:.1f} % over {expected['runs']} whole runs of {expected['programs']} "
                     "programs")
    cover_phase = conformal.held_out_coverage(r_phase, groups, level, "per_application", groups)
    cover_total = conformal.held_out_coverage(r_total, np.arange(len(r_total)), level, "pooled")
    if progress:
        progress(0.85, f"fitting {used} on all {n_prog} training programs")

    edge = armpm.is_edge(host)
    pred, fb = np.full(len(host), np.nan), np.zeros(len(host), bool)
    pred[~edge], fb[~edge], chosen = _fit_predict(used, fit, host[~edge], target, features, norm, seed)
    pred = fill_edges(host, pred, target)  # the edges at the run's own predicted ratio
    if (pred <= 0).any():
        notes.append(f"{int((pred <= 0).sum())} phase prediction(s) at or below zero raised to {floor:.3g} "
                     "for the interval")
    lp = conformal.to_log(pred, floor)
    ht = host["host_time_s"].to_numpy(float)
    total = _total(target, pred, ht)  # the whole run: the phases and the run's edges
    lt = float(conformal.to_log([total], floor)[0])
    hv = host[data.HOST_OF_TARGET[target]].to_numpy(float)
    base = hv * np.median(fit[data.TARGETS[target]].to_numpy(float) / fit[data.HOST_OF_TARGET[target]].to_numpy(float))
    instr = host["host_" + armpm.INSTR].to_numpy(float)
    ends = np.cumsum(instr)
    k = ~edge  # the phases listed; the edges only in the total
    edges = {"host_share": float(hv[edge].sum() / hv.sum()) if target == "cycles" else
             float(ht[edge].sum() / ht.sum()), "predicted": float(pred[edge].sum()) if target == "cycles" else
             (float(np.sum(pred[edge] * ht[edge]) / np.sum(ht[edge])) if edge.any() else 0.0),
             "rows": int(edge.sum())}
    return PhasePrediction(
        program=program, host_freq=host_freq, target_freq=target_freq, target=target, requested_model=model,
        model=used, level=level, level_supported=min(sup_phase, sup_total), granularity=granularity,
        phase=[int(p) for p in host["phase"][k]], start_instructions=(ends - instr)[k].tolist(),
        end_instructions=ends[k].tolist(), predicted=pred[k].tolist(), lower=np.exp(lp - w_phase)[k].tolist(),
        upper=np.exp(lp + w_phase)[k].tolist(), fallback=[bool(f) for f in fb[k]], host_value=hv[k].tolist(),
        baseline=base[k].tolist(),
        total={"predicted": total, "lower": float(np.exp(lt - w_total)) if total_ok else None,
               "upper": float(np.exp(lt + w_total)) if total_ok else None,
               "host": _total(target, hv, ht), "baseline": _total(target, base, ht),
               "program_ratio": _total(target, hv * program_ratio(fit, target), ht),
               "edges": edges, "expected_error": expected},
        phase_half_width=w_phase, total_half_width=w_total if total_ok else None, cv=cv,
        cv_coverage={"phases_percent": cover_phase["workloads"], "phases_per_program_percent": cover_phase["folds"],
                     "totals_percent": cover_total["workloads"]},
        n_programs=n_prog, n_phases=int(len(fit)), training=training_name, features=features, norm=norm,
        chosen=chosen, notes=notes, seconds=time.perf_counter() - t0, selection=selection_text(cv, used, model))


def predict_trace(frame: pd.DataFrame, host_freq: float, target_freq: float, target: str = "cycles",
                  model: str = AUTO, level: float = 0.9, training: pd.DataFrame | None = None,
                  training_name: str = data.SHIPPED_NAME, granularity: float | None = None,
                  program: str | None = None, run: int | None = None, training_samples: pd.DataFrame | None = None,
                  **kw) -> PhasePrediction:
    """:func:`new_program` then :func:`predict_program`. Training: ``training`` (a phase table, cut at
    ``granularity``), else ``training_samples`` (a samples frame) cut at the pair, else the shipped traces.
    ``granularity`` None: the default rule over the host run and the training samples
    (:func:`modeling.phases.granularity.rule`), one number for both; the result says which. (A ready
    ``training`` table without ``granularity``: the rule over the host run alone.)"""
    pool = data.shipped_samples() if training is None and training_samples is None else training_samples
    host, notes = new_program(frame, host_freq, granularity, program, run, training_samples=pool,
                              target_freq=target_freq)
    if granularity is None:
        granularity = host.attrs.get("granularity")
        if granularity is None:  # a phase table: the training's own default
            granularity = (data.granularity_of(pool, host_freq, target_freq).value if pool is not None
                           else data.DEFAULT_GRANULARITY)
        from modeling.phases.granularity import PREFERRED

        if granularity > PREFERRED:
            notes.append(f"phases of {granularity:.3g} instructions: the default rule (about one sample of the "
                         f"densest run of the host trace and the training data at {host_freq:g}/{target_freq:g} "
                         f"MHz; {PREFERRED:.3g} when the samples allow)")
    if training is None:
        training = (data.shipped_pair(host_freq, target_freq, granularity) if training_samples is None
                    else data.pair_from(training_samples, host_freq, target_freq, granularity))
    return predict_program(host, training, target, model, level, host_freq=float(host_freq),
                           target_freq=float(target_freq), granularity=granularity, training_name=training_name,
                           notes=notes, **kw)


def read_trace_file(path) -> tuple[pd.DataFrame, list]:
    """A host trace from a file: Parquet, CSV, or the raw armpm trace (tab-separated, optionally gzip); returns
    (frame, notes of what reading the raw trace kept apart or left out)."""
    from pathlib import Path

    path = Path(path)
    if not path.exists():
        raise DataError(f"No file {path}.")
    raw = path.read_bytes()
    if raw.startswith(b"PAR1"):
        return pd.read_parquet(path), []
    head = raw[:4096]
    if raw[:2] == b"\x1f\x8b" or (b"\t" in head and b"," not in head.split(b"\n", 1)[0]):
        return armpm.samples(armpm.read_trace(raw), cores=None)
    return pd.read_csv(path), []
