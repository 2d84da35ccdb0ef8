"""The prediction table every method exports (docs/architecture.md): the same leading columns for a
cross-generation prediction, counts at new inputs, a new program's target trace and a GPU not built yet, so a
spreadsheet or a script reads any of them the same way.

Leading columns, in this order: ``id`` (what was predicted: a workload, ``program/block@inputs``,
``program/phase k``), ``predicted``, ``lower``, ``upper`` (the interval; equal to ``predicted`` for an exact
count), ``level`` (its nominal level: the share of such intervals expected to hold the true value), ``how``
(the model or rule that made the number), ``applicable`` (whether the input lies where the method was shown to
work) and ``why`` (the reason when not), ``baseline`` (the naive estimate beside it). Then each method's own
columns, then the provenance (model, data fingerprint, code version, date) as constant columns.
"""

from __future__ import annotations

CORE = ("id", "predicted", "lower", "upper", "level", "how", "applicable", "why", "baseline")


def frame(core: dict, extra: dict | None = None, provenance: dict | None = None):
    """A DataFrame with the :data:`CORE` columns first (every one must be given: a column, or one value for all
    rows), then ``extra`` (a column of the same name as a core one is refused), then ``provenance``."""
    import pandas as pd

    missing = [c for c in CORE if c not in core]
    unknown = [c for c in core if c not in CORE]
    if missing or unknown:
        raise ValueError(f"prediction table: missing {missing}, not core {unknown}")
    clash = [c for c in (extra or {}) if c in CORE]
    if clash:
        raise ValueError(f"prediction table: {clash} are core columns")
    df = pd.DataFrame({**{c: core[c] for c in CORE}, **(extra or {})})
    for k, v in (provenance or {}).items():
        if k not in df.columns:
            df[k] = v
    return df
