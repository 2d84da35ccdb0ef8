"""What a plan starts from: the workload table, the cost of simulating each workload, and the budget.

A plan table is a workload table (``docs``: the canonical workload table) in which the target column holds
the values simulated so far: a row with a value is *measured*, a row with an empty target is a *candidate*
(a workload that could be simulated next). Its cost is the simulator hours one simulation of it takes, read
from a column (``cost_col``, in hours) or estimated from the host's run time as ``host time x slowdown``
(``slowdown``: how many times slower the simulator runs than the host; host time in seconds, so hours are
``host_s * slowdown / 3600``). The budget is a number of workloads (``"20"``) or of simulator hours
(``"40h"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from modeling.errors import ConfigError, DataError, NotEnoughDataError


class PlanInputError(DataError):
    """The table, cost or budget given to the planner cannot be used as given."""


@dataclass(frozen=True)
class Budget:
    """How much the next batch may spend: ``kind`` is ``"count"`` (workloads) or ``"hours"`` (simulator hours)."""

    kind: str
    amount: float

    def __str__(self) -> str:
        return f"{self.amount:g} workloads" if self.kind == "count" else f"{self.amount:g} simulator hours"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "amount": self.amount, "text": str(self)}


def parse_budget(text) -> Budget:
    """``"20"`` (20 workloads) or ``"40h"`` / ``"7.5 h"`` (simulator hours) as a :class:`Budget`."""
    s = str(text).strip().lower()
    m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)\s*(h|hours?)?", s)
    if not m:
        raise ConfigError(f"Budget {text!r} is not understood: give a number of workloads (e.g. 20) or of "
                          "simulator hours (e.g. 40h).")
    amount = float(m.group(1))
    if m.group(2):
        if not amount > 0:
            raise ConfigError("The budget in hours must be above zero.")
        return Budget("hours", amount)
    if amount != int(amount) or amount < 1:
        raise ConfigError(f"A budget in workloads is a whole number of at least 1, got {text!r}.")
    return Budget("count", float(int(amount)))


@dataclass
class PlanTable:
    """The validated table: counters ``X`` (n, p) of every workload, ``y`` (n,) with NaN for candidates,
    ``ids``, ``groups`` (application, or None), ``cost`` (n,) in simulator hours and where it came from."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list
    ids: np.ndarray
    groups: np.ndarray | None
    cost: np.ndarray
    cost_source: str
    host_index: int | None
    target: str
    skipped: list

    @property
    def measured(self) -> np.ndarray:
        return np.isfinite(self.y)

    @property
    def candidates(self) -> np.ndarray:
        return ~np.isfinite(self.y)

    def subset(self, rows) -> PlanTable:
        """The table restricted to ``rows`` (a boolean mask or indices), e.g. only the measured workloads."""
        g = None if self.groups is None else self.groups[rows]
        return PlanTable(self.X[rows], self.y[rows], self.feature_names, self.ids[rows], g, self.cost[rows],
                         self.cost_source, self.host_index, self.target, [])


def _cost_from_column(frame: pd.DataFrame, col: str, text_dropped: dict | None) -> np.ndarray:
    if col not in frame.columns:
        raise PlanInputError(f"Cost column {col!r} is not in the table.")
    dropped = (text_dropped or {}).get(col)
    if dropped or not pd.api.types.is_numeric_dtype(frame[col]):
        rows = (dropped or {}).get("rows") or list(np.flatnonzero(pd.to_numeric(frame[col], errors="coerce").isna()
                                                                   & frame[col].notna()))
        where = f" (data rows {', '.join(str(int(r) + 1) for r in rows[:10])})" if len(rows) else ""
        raise PlanInputError(f"Cost column {col!r} holds text where simulator hours are expected{where}: give "
                             "every workload a number of hours, or use --slowdown with the host time instead.")
    cost = frame[col].to_numpy(dtype=float)
    bad = ~np.isfinite(cost)
    if bad.any():
        raise PlanInputError(f"Cost column {col!r} is empty or infinite for {int(bad.sum())} workload(s) (data rows "
                             f"{', '.join(str(int(r) + 1) for r in np.flatnonzero(bad)[:10])}): every workload "
                             "needs a cost.")
    low = cost <= 0
    if low.any():
        raise PlanInputError(f"Cost column {col!r} has {int(low.sum())} value(s) at or below zero (data rows "
                             f"{', '.join(str(int(r) + 1) for r in np.flatnonzero(low)[:10])}): a simulation "
                             "always costs some time; fix those rows.")
    return cost


def read_plan_table(frame: pd.DataFrame, target: str, id_col: str, *, host_col: str | None = None,
                    group_col: str | None = None, cost_col: str | None = None, slowdown: float | None = None,
                    features: list | None = None, text_dropped: dict | None = None) -> PlanTable:
    """Validate a plan table.

    Parameters
    ----------
    frame : the workload table (:func:`modeling.tables.reading.read_table` ``.frame``)
    target : the target column: values simulated so far, empty for the candidates
    id_col : workload id column (unique): the batch names workloads by it
    host_col : the host's own measure of the target (e.g. host time, seconds); needed for ``slowdown``
    group_col : application column (stratified choice; the new-applications situation)
    cost_col : simulator hours per workload; or ``slowdown``: hours = host_col x slowdown / 3600
    features : counter columns (default: every numeric column but target, id, group and cost)
    text_dropped : the reader's record of text cells turned empty (``Table.text_dropped``)
    """
    if (cost_col is None) == (slowdown is None):
        raise ConfigError("Give the cost of a simulation either as a cost column (hours per workload) or as a "
                          "simulator slowdown over the host time, not both and not neither.")
    named = [c for c in (target, id_col, host_col, group_col) if c]
    missing = [c for c in named if c not in frame.columns]
    if missing:
        raise PlanInputError(f"Column(s) not in the table: {', '.join(missing)}.")
    if not pd.api.types.is_numeric_dtype(frame[target]) or (text_dropped or {}).get(target):
        raise PlanInputError(f"Target column {target!r} holds text; it must hold the simulated values (empty for "
                             "workloads not simulated yet).")
    if cost_col is not None:
        cost, source = _cost_from_column(frame, cost_col, text_dropped), f"column {cost_col!r} (hours)"
    else:
        if host_col is None:
            raise ConfigError("--slowdown needs the host time column (--host-col) to estimate simulator hours.")
        if not (np.isfinite(slowdown) and slowdown > 0):
            raise ConfigError(f"The simulator slowdown must be a positive number, got {slowdown!r}.")
        host = frame[host_col].to_numpy(dtype=float)
        if not np.all(np.isfinite(host)) or np.any(host <= 0):
            raise PlanInputError(f"Host time column {host_col!r} has missing, zero or negative values: it cannot "
                                 "estimate a simulation's cost; give a cost column instead.")
        cost, source = host * float(slowdown) / 3600.0, f"{host_col} x {slowdown:g} / 3600 (slowdown {slowdown:g})"
    skip = {target, id_col, group_col, cost_col}
    if features:
        feats = list(features)
    else:
        feats = [c for c in frame.columns if c not in skip and pd.api.types.is_numeric_dtype(frame[c])]
    if host_col and host_col not in feats:
        feats.append(host_col)
    nonnum = [c for c in feats if c not in frame.columns or not pd.api.types.is_numeric_dtype(frame[c])]
    if nonnum:
        raise PlanInputError(f"Counter column(s) missing or not numeric: {', '.join(map(str, nonnum[:10]))}.")
    if not feats:
        raise PlanInputError("The table has no numeric counter columns.")
    ids = frame[id_col].astype(str).to_numpy()
    dup = pd.Series(ids).duplicated()
    if dup.any():
        raise PlanInputError(f"Workload ids in {id_col!r} are not unique: {', '.join(ids[dup.to_numpy()][:5])}.")
    X = frame[feats].to_numpy(dtype=float)
    y = frame[target].to_numpy(dtype=float)
    if np.isinf(y).any():
        raise PlanInputError(f"Target {target!r} has infinite values; fix or remove those rows.")
    if (y[np.isfinite(y)] <= 0).any():
        raise PlanInputError(f"Target {target!r} has values at or below zero: a simulated time or cycle count is "
                             "positive.")
    ok = np.all(np.isfinite(X), axis=1)
    if not ok.any():
        raise PlanInputError("Every workload has a missing or infinite counter value.")
    groups = frame[group_col].astype(str).to_numpy() if group_col else None
    table = PlanTable(X[ok], y[ok], feats, ids[ok], None if groups is None else groups[ok], cost[ok], source,
                      feats.index(host_col) if host_col else None, target, [str(i) for i in ids[~ok]])
    if not table.candidates.any():
        raise NotEnoughDataError(f"No candidates: every workload has a value in {target!r}. The workloads to plan "
                                 "are the rows with an empty target; add the ones not simulated yet.")
    return table


def check_budget(table: PlanTable, budget: Budget) -> None:
    """Refuse a budget that cannot buy one candidate."""
    cheapest = float(np.min(table.cost[table.candidates]))
    if budget.kind == "hours" and budget.amount < cheapest:
        raise ConfigError(f"A budget of {budget.amount:g} simulator hours is below the cheapest candidate's cost "
                          f"({cheapest:.3g} h): raise the budget to at least that.")


def merge_results(frame: pd.DataFrame, results: pd.DataFrame, id_col: str, target: str) -> pd.DataFrame:
    """The table with the simulated values of ``results`` (columns ``id_col`` and ``target``) filled in by id.

    An id of ``results`` that is not in ``frame`` is refused, naming it (a typo would otherwise lose a
    simulation silently); the table is returned as a new frame, ``frame`` is left as it was.
    """
    for c in (id_col, target):
        if c not in results.columns:
            raise PlanInputError(f"The results table has no column {c!r}: it needs the workload id and the "
                                 "simulated value.")
    if not pd.api.types.is_numeric_dtype(results[target]):
        raise PlanInputError(f"The results' {target!r} column holds text; it must hold the simulated values.")
    rid = results[id_col].astype(str)
    known = set(frame[id_col].astype(str))
    unknown = [i for i in rid if i not in known]
    if unknown:
        raise PlanInputError(f"{len(unknown)} result id(s) are not workloads of the dataset: "
                             f"{', '.join(unknown[:10])}. Check the id column; nothing was merged.")
    if rid.duplicated().any():
        raise PlanInputError(f"The results name a workload twice: {', '.join(rid[rid.duplicated()].tolist()[:5])}.")
    vals = dict(zip(rid, results[target].to_numpy(dtype=float)))
    out = frame.copy()
    fid = out[id_col].astype(str)
    has = fid.isin(vals.keys())
    new = fid[has].map(vals).to_numpy(dtype=float)
    if not np.all(np.isfinite(new) & (new > 0)):
        raise PlanInputError("A result value is empty, infinite or at or below zero; nothing was merged.")
    out[target] = out[target].astype(float)
    out.loc[has.to_numpy(), target] = new
    return out


__all__ = ["Budget", "PlanInputError", "PlanTable", "check_budget", "merge_results", "parse_budget",
           "read_plan_table"]
