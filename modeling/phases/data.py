"""Phase tables for LACross: the shipped cBench traces (``data/armpm_*.parquet``) or a user's, and features.

A phase table has one row per aligned phase (:func:`modeling.build.armpm.align`): ``program``, the host's
``host_<EVENT>`` sums, ``host_time_s``, ``host_power_w``, and the target's ``target_cycles``,
``target_time_s``, ``target_power_w``.

Feature normalizations (``norm``):

* ``raw``: the host's event counts per phase (the paper);
* ``rate``: counts per retired instruction;
* ``z`` (default): per-instruction rates standardized on the training phases, plus a bias column of ones.

``features="counters+host"`` adds the host phase's time and average power (then every result says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from modeling import DATA_DIR
from modeling.build import armpm
from modeling.errors import ConfigError, DataError

#: the shipped traces' name, as the pages and the command line say it
SHIPPED_NAME = "shipped cBench (ODROID-XU3)"
NORMS = ("z", "rate", "raw")
FEATURE_SETS = ("counters", "counters+host")
TARGETS = {"cycles": "target_cycles", "power": "target_power_w"}
HOST_OF_TARGET = {"cycles": "host_CPU_CYCLES", "power": "host_power_w"}
DEFAULT_GRANULARITY = armpm.DEFAULT_GRANULARITY


@lru_cache(maxsize=1)
def shipped_samples() -> pd.DataFrame:
    return pd.read_parquet(DATA_DIR / "armpm_samples.parquet")


@lru_cache(maxsize=1)
def shipped_phases() -> pd.DataFrame:
    return pd.read_parquet(DATA_DIR / "armpm_phases.parquet")


@lru_cache(maxsize=32)
def _excluded() -> pd.DataFrame:
    return armpm.quality(shipped_samples())


@lru_cache(maxsize=16)
def _phases_at(host_freq: float, target_freq: float, granularity: float) -> pd.DataFrame:
    return armpm.phase_table(shipped_samples(), host_freq, target_freq, granularity, _excluded())


def frequencies() -> list[float]:
    return sorted(shipped_samples()["freq_mhz"].unique().tolist())


def granularity_of(samples: pd.DataFrame, host_freq: float, target_freq: float):
    """The default granularity of a samples frame at a pair (:func:`modeling.phases.granularity.rule`)."""
    from modeling.phases.granularity import rule

    return rule(samples, freqs=(host_freq, target_freq))


def shipped_granularity(host_freq: float, target_freq: float):
    """The default granularity of the shipped traces at a pair (:func:`modeling.phases.granularity.rule`)."""
    return _shipped_rule(float(host_freq), float(target_freq))


@lru_cache(maxsize=16)
def _shipped_rule(host_freq: float, target_freq: float):
    return granularity_of(shipped_samples(), host_freq, target_freq)


def shipped_pair(host_freq: float, target_freq: float, granularity: float | None = None) -> pd.DataFrame:
    """The shipped phases of one frequency pair at ``granularity`` (None: the default rule's; the shipped
    table at the granularity it was built at)."""
    freqs = frequencies()
    for f, what in ((host_freq, "host"), (target_freq, "target")):
        if float(f) not in freqs:
            raise ConfigError(f"No {what} frequency {f:g} MHz; the traces have {', '.join(f'{x:g}' for x in freqs)}.")
    if granularity is None:
        granularity = shipped_granularity(host_freq, target_freq).value
    if granularity == armpm.DEFAULT_GRANULARITY:
        p = shipped_phases()
        return p[(p["host_freq_mhz"] == host_freq) & (p["target_freq_mhz"] == target_freq)].reset_index(drop=True)
    return _phases_at(float(host_freq), float(target_freq), float(granularity))


def excluded_runs(samples: pd.DataFrame | None = None) -> list[dict]:
    """Runs left out by quality control (instruction total > 10 % from the program's median), as records."""
    bad = _excluded() if samples is None else armpm.quality(samples)
    return bad.to_dict("records")


def samples_from(directory) -> pd.DataFrame:
    """The cleaned samples a ``build-data armpm --out DIR`` wrote (``DIR/armpm_samples.parquet``)."""
    from pathlib import Path

    path = Path(directory) / "armpm_samples.parquet"
    if not path.exists():
        raise DataError(f"No {path.name} in {directory}; build it with "
                        "'python -m modeling build-data armpm --source TRACE --out DIR'.")
    return pd.read_parquet(path)


def pair_from(samples: pd.DataFrame, host_freq: float, target_freq: float,
              granularity: float | None = None) -> pd.DataFrame:
    """Phases of one frequency pair from a samples frame (quality control applied) at ``granularity`` (None:
    the default rule's, :func:`granularity_of`)."""
    if granularity is None:
        granularity = granularity_of(samples, host_freq, target_freq).value
    return armpm.phase_table(samples, host_freq, target_freq, granularity, armpm.quality(samples))


def supported_granularity(samples: pd.DataFrame, host_freq: float, target_freq: float) -> tuple[float, str | None]:
    """(the default granularity at the pair, a note when the trace's samples raised it above the preferred
    one, else None): :func:`modeling.phases.granularity.rule`, the one rule."""
    g = granularity_of(samples, host_freq, target_freq)
    return g.value, (f"phases of {g.value:.3g} instructions ({g.hint})" if g.raised else None)


def event_names(phases: pd.DataFrame) -> list[str]:
    """Host event columns with information (constant ones, e.g. a software counter never incremented, dropped)."""
    cols = [c for c in phases.columns if c.startswith("host_") and c[5:].isupper()]
    return [c for c in cols if np.ptp(phases[c].to_numpy(float)) > 0]


@dataclass
class Design:
    """Features of the training and test phases in one normalization; ``names`` label the columns."""

    X: np.ndarray
    V: np.ndarray
    names: list


def design(train: pd.DataFrame, test: pd.DataFrame, norm: str = "z", features: str = "counters") -> Design:
    """Feature matrices of training and test phases (statistics from the training phases only)."""
    if norm not in NORMS:
        raise ConfigError(f"Unknown normalization {norm!r}; use one of {', '.join(NORMS)}.")
    if features not in FEATURE_SETS:
        raise ConfigError(f"Unknown feature set {features!r}; use one of {', '.join(FEATURE_SETS)}.")
    events = event_names(train)
    instr = "host_" + armpm.INSTR
    if instr not in events and norm != "raw":
        raise DataError(f"Rates need the host's {armpm.INSTR} column.")

    def raw(df):
        cols = list(events)
        M = df[cols].to_numpy(float)
        if norm != "raw":
            M = M / df[[instr]].to_numpy(float)
            keep = [i for i, c in enumerate(cols) if c != instr]  # instructions per instruction is 1
            M, cols = M[:, keep], [cols[i] for i in keep]
        if features == "counters+host":
            M = np.hstack([M, df[["host_time_s", "host_power_w"]].to_numpy(float)])
            cols = cols + ["host_time_s", "host_power_w"]
        return M, cols

    X, names = raw(train)
    V, _ = raw(test)
    if norm == "z":
        mu, sd = X.mean(axis=0), X.std(axis=0)
        sd = np.where(sd > 0, sd, 1.0)
        X, V = (X - mu) / sd, (V - mu) / sd
        X, V = np.hstack([X, np.ones((len(X), 1))]), np.hstack([V, np.ones((len(V), 1))])
        names = names + ["bias"]
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(V))):
        raise DataError("Some phases have non-finite features (a phase with no instructions or no time).")
    return Design(X, V, names)


def check_phase_table(df: pd.DataFrame) -> pd.DataFrame:
    """A user's phase table: the columns LACross needs, finite positive targets, at least two programs."""
    need = ["program", "host_" + armpm.INSTR, "host_time_s", "host_power_w", *TARGETS.values()]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise DataError(f"The phase table lacks column(s) {', '.join(missing)}.")
    if not event_names(df):
        raise DataError("The phase table has no varying host event columns (host_<EVENT>).")
    for c in TARGETS.values():
        v = pd.to_numeric(df[c], errors="coerce")
        if not (np.isfinite(v) & (v > 0)).all():
            raise DataError(f"{c} must be a positive number in every phase.")
    if df["program"].nunique() < 2:
        raise DataError("Held-out programs need a table with at least two programs.")
    return df
