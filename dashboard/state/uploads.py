"""Upload handling: decode, parse, describe, and turn a column mapping into a dataset.

Pure functions over bytes and DataFrames; the data page calls them.
"""

from __future__ import annotations

import base64
import binascii
import threading
import unicodedata
from contextlib import contextmanager

import numpy as np
import pandas as pd

from dashboard.settings import MAX_UPLOAD_BYTES
from modeling.errors import DataError
from modeling.parallel import ForkSafeLock
from modeling.tables.decoded_size import read_cost
from modeling.tables.reading import Table, read_csv_bytes, read_parquet_bytes
from modeling.tables.repeats import DEFAULT_K, aggregate_repeats
from modeling.tables.workload import MISSING_RULES, handle_missing, missing_report

MIN_ROWS = 3
MIN_FEATURES = 2
HOST_TIME_NAMES = ("host_time", "host_seconds", "host_time_s")
UNIT_MAX = 16
#: what a target unit may hold besides letters and digits (any script: µs, Ω, m²): no markup, no quotes
UNIT_SIGNS = " ./*^·°_%()-"


def decode_upload(contents: str) -> bytes:
    """Bytes of a ``dcc.Upload`` data URL, size-checked before decoding."""
    if not isinstance(contents, str) or "," not in contents:
        raise DataError("The upload did not arrive as a file; try again.")
    b64 = contents.split(",", 1)[1]
    if len(b64) * 3 // 4 > MAX_UPLOAD_BYTES:
        raise DataError(f"The file is larger than the {MAX_UPLOAD_BYTES // 2**20} MB limit.")
    try:
        return base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise DataError("The upload is corrupted (invalid base64); try again.") from None


#: An upload whose reading is expected to take at least this much memory is read by one thread of a server
#: process at a time. The expectation is :func:`modeling.tables.decoded_size.read_cost`: what the file decodes
#: to, counted per column from its metadata with dictionary pages expanded (Parquet) or from its line and
#: header-field count (CSV), not the file's size: a 60 kB Parquet file can decode to 500 MB. With a server
#: process's 4 threads, uploads add at most one large read (bounded by
#: :data:`~modeling.tables.decoded_size.UPLOAD_BOUND_BYTES`) and three below this.
LARGE_PARSE_BYTES = 32 * 2**20
#: How long a large file waits for the one before it, then the user is asked to try again.
LARGE_PARSE_WAIT_SECONDS = 120.0
_LARGE_PARSE = ForkSafeLock()  # renewed in a forked job (modeling.parallel)
_HOLDING = threading.local()  # whether this thread holds _LARGE_PARSE (through one_large_read)


def _parse(raw: bytes, filename: str | None) -> Table:
    if raw.startswith(b"PAR1"):
        return read_parquet_bytes(raw)
    name = filename.lower() if isinstance(filename, str) else ""
    if name.endswith((".pkl", ".pickle", ".joblib", ".npy", ".npz")):
        raise DataError("Pickled or joblib files are never loaded; upload a CSV or Parquet table.")
    return read_csv_bytes(raw)


@contextmanager
def one_large_read(cost: int):
    """Around the reading of an upload expected to take ``cost`` bytes of memory (:func:`read_cost`): a large
    one waits for any other large one this process is reading (a table or a profiler's output), then the
    user is asked to try again. Nested in the same thread (the /data page holds it over reading, staging and
    the preview; :func:`parse_upload` inside), the inner one is the outer one's turn."""
    if cost < LARGE_PARSE_BYTES or getattr(_HOLDING, "large", False):  # small, or this thread's turn already
        yield
        return
    if not _LARGE_PARSE.acquire(timeout=LARGE_PARSE_WAIT_SECONDS):
        raise DataError("Another large file is being read on this server; try again in a minute.")
    _HOLDING.large = True
    try:
        yield
    finally:
        _HOLDING.large = False
        _LARGE_PARSE.release()
        _release_unused()


def _release_unused() -> None:
    """Hand the memory Arrow's pool and the C allocator keep after a large read back to the system (a
    1,000,000-row table left 80-90 MB held in Arrow's pool after everything was dropped, measured), so the
    next large read in this process does not come on top of it."""
    import ctypes

    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # glibc only; elsewhere the allocator keeps its pages
    except (OSError, AttributeError):
        pass


def parse_upload(raw: bytes, filename: str | None = None) -> Table:
    """The table of an uploaded file; one expected to take much memory (by what it decodes to, not its size)
    waits for any other such one this process is reading."""
    with one_large_read(read_cost(raw)):
        return _parse(raw, filename)


def describe_columns(table: Table) -> list[dict]:
    """Per-column facts for the preview: kind, missing values, constant, conversions."""
    out = []
    for c in table.frame.columns:
        s = table.frame[c]
        numeric = pd.api.types.is_numeric_dtype(s)
        vals = s.to_numpy(dtype=float) if numeric else None
        n_missing = int((~np.isfinite(vals)).sum()) if numeric else int(s.isna().sum())
        issues = []
        if table.conversions.get(c):
            issues.append(table.conversions[c])
        if n_missing == len(s):
            issues.append("all values empty")
        elif numeric and np.nanmax(vals[np.isfinite(vals)]) == np.nanmin(vals[np.isfinite(vals)]):
            issues.append("constant")
        out.append({"column": str(c), "kind": "number" if numeric else "text", "missing": n_missing,
                    "issues": "; ".join(issues)})
    return out


def missing_preview(table: Table, id_col: str | None, targets=()) -> dict:
    """Rows and columns that miss values among the numeric columns (features are chosen later); the chosen
    ``targets`` are left out: an empty target is a workload to predict, not a missing feature value."""
    df = table.frame
    numeric = [str(c) for c in df.columns if pd.api.types.is_numeric_dtype(df[c]) and str(c) != id_col
               and str(c) not in set(targets)]
    return missing_report(df, numeric, id_col)


def missing_text(report: dict, n_rows: int) -> str:
    """One sentence on what misses values, naming rows and columns (empty when nothing does)."""
    if not report["rows"]:
        return ""
    cols = list(report["columns"].items())
    shown = ", ".join(f"{c} ({n} rows)" for c, n in cols[:6]) + (f" and {len(cols) - 6} more" if len(cols) > 6 else "")
    ids = ", ".join(report["row_ids"][:8]) + (" …" if report["rows"] > 8 else "")
    return (f"{report['rows']} of {n_rows} workloads miss a value in {len(cols)} column(s): {shown}. "
            f"Workloads affected: {ids}. Choose below what to do with them; nothing is dropped silently.")


def guess_mapping(table: Table) -> dict:
    df = table.frame
    cols = [str(c) for c in df.columns]
    text = [c for c in cols if not pd.api.types.is_numeric_dtype(df[c])]
    lower = {c.lower(): c for c in cols}
    id_col = lower.get("workload") or lower.get("id") or (text[0] if text else None)
    group = lower.get("application") or lower.get("app") or lower.get("group")
    repeat = lower.get("repeat") or lower.get("run")
    host_time = next((lower[k] for k in HOST_TIME_NAMES if k in lower), None)
    sims = [c for c in cols if c.lower().startswith(("sim_time", "sim_seconds", "simulator"))]
    return {"id_col": id_col, "group_col": group if group != id_col else None, "repeat_col": repeat,
            "host_time_col": host_time, "sim_cols": sims if host_time else []}


def pair_simulator_columns(sim_cols: list, targets: list) -> dict:
    """Pair each simulator-time column with the target its name ends with (longest name wins)."""
    pairs: dict = {}
    for col in sim_cols:
        hits = sorted((t for t in targets if col.endswith(t) and t != col), key=len, reverse=True)
        if not hits:
            raise DataError(f"Simulator-time column {col!r} names none of the targets ({', '.join(targets)}); "
                            "end its name with its target's, e.g. sim_time@<target>.")
        if hits[0] in pairs:
            raise DataError(f"Two simulator-time columns for target {hits[0]!r}: {pairs[hits[0]]!r} and {col!r}.")
        pairs[hits[0]] = col
    return pairs


def _check_times(frame: pd.DataFrame, cols: list) -> None:
    for c in cols:
        if not pd.api.types.is_numeric_dtype(frame[c]):
            raise DataError(f"Time column {c!r} is not numeric (seconds expected).")
        v = frame[c].to_numpy(dtype=float)
        if (v[np.isfinite(v)] <= 0).any():
            raise DataError(f"Time column {c!r} has zero or negative values; times must be positive seconds "
                            "(leave a cell empty when a workload was not run).")


def _data_rows(rows) -> str:
    rows = [int(r) + 1 for r in rows]
    return ", ".join(map(str, rows[:5])) + (" …" if len(rows) > 5 else "")


def target_report(frame: pd.DataFrame, targets: list, id_col: str | None = None,
                  text_dropped: dict | None = None) -> dict:
    """Check the target columns; per target, the workloads that have no value (the workloads to predict).

    An empty (or N/A) cell means "not measured on this target": allowed. Text that is not a number
    (``text_dropped``, from the reader) and infinite or overflowing values are measurements that went
    wrong: refused with their data-row numbers (1 = the first row under the header). Returns
    ``{target: {"count": n, "ids": [first 8 ids]}}``; with repeated runs (an id on several rows) a
    workload counts as unmeasured when none of its runs has a value.
    """
    out = {}
    for t in targets:
        col = frame[t]
        if not pd.api.types.is_numeric_dtype(col):
            if col.isna().all() or col.astype(str).str.strip().eq("").all():
                raise DataError(f"Target column {t!r} is empty: no workload has a value for it.")
            raise DataError(f"Target column {t!r} is not numeric.")
        text = (text_dropped or {}).get(t) or {}
        if text.get("count"):
            raise DataError(f"Target column {t!r} has {text['count']} value(s) that are not numbers (data rows "
                            f"{_data_rows(text['rows'])}); fix or remove those rows. An empty cell is fine: "
                            "that workload is kept as one to predict.")
        vals = col.to_numpy(dtype=float)
        inf = np.isinf(vals)
        if inf.any():
            raise DataError(f"Target column {t!r} has {int(inf.sum())} infinite or overflowing value(s) (data rows "
                            f"{_data_rows(np.flatnonzero(inf))}); fix or remove those rows.")
        measured = pd.Series(np.isfinite(vals), index=frame.index)
        ids = frame[id_col].astype(str) if id_col and id_col in frame else pd.Series(
            [f"row {i + 1}" for i in range(len(frame))], index=frame.index)
        any_value = measured.groupby(ids.to_numpy(), sort=False).any()
        todo = any_value.index[~any_value.to_numpy()]
        out[t] = {"count": int(len(todo)), "ids": [str(i) for i in todo[:8]]}
    return out


def unmeasured_text(report: dict) -> str:
    """One sentence per target with workloads to predict (empty when every workload has every target)."""
    parts = []
    for t, u in report.items():
        if u["count"]:
            ids = ", ".join(u["ids"]) + (" …" if u["count"] > len(u["ids"]) else "")
            one = u["count"] == 1
            parts.append(f"{u['count']} workload{' has' if one else 's have'} no value for {t}: "
                         f"{'it is' if one else 'they are'} kept as workload{'' if one else 's'} to predict "
                         f"(see /predict), not trained on ({ids}).")
    return " ".join(parts)


def missing_after_targets(frame: pd.DataFrame, targets, id_col) -> str:
    """:func:`missing_text` once targets are chosen (they are not features); ``targets`` and ``id_col`` come
    from the browser: values that are not column names are ignored."""
    cols = {str(c) for c in frame.columns}
    targets = [t for t in targets if isinstance(t, str) and t in cols] if isinstance(targets, list) else []
    id_col = id_col if isinstance(id_col, str) and id_col in cols else None
    return missing_text(missing_preview(Table(frame, None), id_col, targets), len(frame))


def target_preview(frame: pd.DataFrame, info: dict, targets, id_col) -> tuple[str, str]:
    """What the chosen targets hold, before Save: ``(kind, sentence)``.

    kind "ok" with the sentence of :func:`unmeasured_text` (empty when every workload has every target), or
    "error" with why Save would refuse them. ``targets`` and ``id_col`` come from the browser: anything but
    column names of the staged table is refused."""
    try:
        m = checked_mapping({"targets": targets, "id_col": id_col})
        cols = {str(c) for c in frame.columns}
        unknown = [c for c in m["targets"] + [m["id_col"]] if c and c not in cols]
        if unknown:
            raise DataError(f"Column(s) not in the file: {', '.join(unknown)}.")
        report = target_report(frame, m["targets"], m["id_col"], (info or {}).get("text_dropped"))
    except DataError as exc:
        return "error", str(exc)
    return "ok", unmeasured_text(report)


def checked_unit(unit) -> str:
    """The target's unit as typed on /data (e.g. s, ms, cycles, J), checked: short, printable, letters,
    digits and a few signs only (no markup, nothing a spreadsheet would run). Empty or nothing: "" (no unit
    given). Anything else is refused with what to change."""
    if unit is None:
        return ""
    if not isinstance(unit, str):
        raise DataError("Invalid target unit: expected a short text such as s, ms, cycles or J.")
    unit = unit.strip()
    if len(unit) > UNIT_MAX:
        raise DataError(f"The target unit is {len(unit)} characters long; at most {UNIT_MAX} (e.g. s, ms, cycles, "
                        "J), or leave it empty when the values have no unit.")
    bad = sorted({ch for ch in unit if not (unicodedata.category(ch)[0] in "LN" or ch in UNIT_SIGNS)})
    if bad:
        shown = ", ".join(repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}" for ch in bad[:5])
        signs = " ".join(UNIT_SIGNS.strip())
        raise DataError(f"The target unit may hold letters, digits, spaces and the signs {signs} only: remove {shown}.")
    if unit and unit[0] in "-.":
        raise DataError("The target unit cannot start with '-' or '.'; write it as it is said, e.g. ms or 1/s.")
    return unit


def host_feature_text(host_col, columns) -> str:
    """One sentence saying that the host's own metric is also a feature (empty when no host metric is
    chosen). A chosen host column always is one: :func:`build_dataset` adds it to the features when they
    leave it out. ``host_col`` comes from the browser: anything but one of ``columns`` counts as none."""
    if not isinstance(host_col, str) or host_col not in {str(c) for c in columns}:
        return ""
    return (f"{host_col} is the host's own metric (the baseline and the ratio transforms use it) and also one of "
            "the features, so the models see the host's measurement as an input: legitimate, and often the "
            "strongest single predictor, but their accuracy then rests partly on it.")


SINGLE_ROLES = ("id_col", "group_col", "host_col", "repeat_col", "host_time_col")
LIST_ROLES = ("targets", "features", "sim_cols")


def checked_mapping(mapping: dict) -> dict:
    """A column mapping as the form sends it, with every value's type checked: one column name
    (or nothing) per single role, a list of names per list role. The values come from the
    browser, so anything else is refused with the role it was sent for."""
    out = {}
    for role in SINGLE_ROLES:
        v = mapping.get(role)
        if v not in (None, "") and not isinstance(v, str):
            raise DataError(f"Invalid choice for {role}: expected one column name.")
        out[role] = v or None
    rule = mapping.get("missing") or None  # None: not chosen (fine only when nothing misses a value)
    if rule is not None and (not isinstance(rule, str) or rule not in MISSING_RULES):
        raise DataError(f"Invalid choice for missing values: use one of {', '.join(MISSING_RULES)}.")
    out["missing"] = rule
    for role in LIST_ROLES:
        v = mapping.get(role) or []
        if not isinstance(v, list) or not all(isinstance(c, str) for c in v):
            raise DataError(f"Invalid choice for {role}: expected a list of column names.")
        out[role] = v
    return out


def build_dataset(frame: pd.DataFrame, mapping: dict, k: float = DEFAULT_K, text_dropped: dict | None = None,
                  min_rows: int = MIN_ROWS):
    """Validate a mapping and produce (table, raw or None, notes).

    An empty target cell is a workload not measured on that target: it is kept (a workload to predict,
    not trained on; ``notes["unmeasured"]``), while text that is not a number or an infinite value in a
    target is refused (:func:`target_report`; ``text_dropped`` is the reader's
    :attr:`~modeling.tables.reading.Table.text_dropped`, which tells such cells from empty ones).

    mapping: id_col, group_col (optional), targets (list), features (list, empty =
    all other numeric), host_col (optional), repeat_col (optional), missing (the
    rule for missing feature values, ``modeling.tables.workload.MISSING_RULES``;
    none given: refused when a feature value is missing, so nothing is dropped unasked), and for the
    model-vs-simulator chart (HALWPE Fig. 12) host_time_col (optional: seconds to
    run a workload on the host) and sim_cols (optional: simulator seconds, one
    column per target, named after it).

    ``min_rows``: the fewest workloads a dataset may hold (:data:`MIN_ROWS`, what a model needs, for a table
    upload; 1 for a profiler import, where one run is a dataset to add to). A dataset with fewer than
    :data:`MIN_ROWS` workloads (or measured values of a target) is saved with ``notes["few"]``; the pages that
    train a model refuse it with the reason when run.
    """
    mapping = checked_mapping(mapping)
    cols = [str(c) for c in frame.columns]
    id_col, group, host, rep, host_time = (mapping.get(k) or None for k in (
        "id_col", "group_col", "host_col", "repeat_col", "host_time_col"))
    targets = list(mapping.get("targets") or [])
    sim_cols = list(mapping.get("sim_cols") or [])
    named = [c for c in (id_col, group, host, rep, host_time, *sim_cols, *targets,
                         *(mapping.get("features") or [])) if c]
    missing = [c for c in named if c not in cols]
    if missing:
        raise DataError(f"Column(s) not in the file: {', '.join(missing)}.")
    if not id_col:
        raise DataError("Choose the workload id column.")
    if not targets:
        raise DataError("Choose at least one target column (the metric measured on the target device).")
    target_report(frame, targets, id_col, text_dropped)  # refuses text and infinite values in a target
    if id_col in targets or (group and group in targets):
        raise DataError("The id and group columns cannot also be targets.")
    sims = pair_simulator_columns(sim_cols, targets)
    if sims and not host_time:
        raise DataError("Simulator times need the host's run time column too (the model's time is the host run).")
    if host_time and host_time in targets + sim_cols:
        raise DataError(f"Column {host_time!r} cannot be both the host run time and a target or simulator time.")
    _check_times(frame, [c for c in (host_time, *sim_cols) if c])
    reserved = {id_col, group, rep, host_time, *sim_cols, *targets}
    feats = list(mapping.get("features") or [c for c in cols if c not in reserved
                                                 and pd.api.types.is_numeric_dtype(frame[c])])
    nonnum = [c for c in feats if not pd.api.types.is_numeric_dtype(frame[c])]
    if nonnum:
        raise DataError(f"Feature column(s) are not numeric: {', '.join(nonnum[:10])}.")
    empty_cols = [c for c in feats if not np.isfinite(frame[c].to_numpy(dtype=float)).any()]
    feats = [c for c in feats if c not in empty_cols]
    if host and host not in feats:
        feats.append(host)
    notes = {}
    if empty_cols:
        notes["dropped_empty"] = empty_cols
    raw = None
    table = frame[[c for c in cols if c in {id_col, group, host_time, *sim_cols, *targets, *feats}]].copy()
    table[id_col] = table[id_col].astype(str)
    if rep:
        raw = frame.copy()
        raw[id_col] = raw[id_col].astype(str)
        table = aggregate_repeats(table, id_col, targets[0], k, keep_first=[group] if group else None,
                                  keep_unmeasured=True)
        # run times are per run too: averaged over the kept runs like every other column
        notes["repeats"] = {"k": k, "measure": targets[0], "runs": int(len(frame)),
                            "outliers": int(table["repeats_outliers"].sum())}
        table = table.drop(columns=["repeats_total", "repeats_outliers"])
    elif table[id_col].duplicated().any():
        dup = table.loc[table[id_col].duplicated(), id_col].iloc[0]
        raise DataError(f"Workload id {dup!r} appears more than once; map a repeat column or make ids unique.")
    if mapping["missing"] is None:  # nothing is dropped or filled unless the user chose how
        report = missing_report(table, feats, id_col)
        if report["rows"]:
            raise DataError(f"{report['rows']} of {len(table)} workloads miss a feature value: choose under "
                            "\"Missing feature values\" whether to drop those workloads, drop those columns or "
                            "fill in the column median, then save again.")
        mapping["missing"] = "rows"  # nothing misses a value: the rule changes nothing
    table, feats, missing = handle_missing(table, feats, mapping["missing"], id_col)
    if missing:
        notes["missing"] = missing
    if len(table) < min_rows:
        raise DataError(f"Only {len(table)} workload(s); at least {min_rows} are needed (and as many as the CV "
                        "folds, 10 by default).")
    few = []  # targets too thin to train on: kept (to predict with, or to add to), said in notes["few"]
    for t in targets:
        n_measured = int(np.isfinite(table[t].to_numpy(dtype=float)).sum())
        if n_measured < MIN_ROWS and n_measured < min_rows:
            raise DataError(f"Only {n_measured} workload(s) have a value for target {t!r}; at least {MIN_ROWS} "
                            "are needed to train on (and as many as the CV folds, 10 by default).")
        if n_measured < MIN_ROWS:
            few.append(t)
    kept = target_report(table, targets, id_col)  # after repeats and the missing-value rule
    if any(u["count"] for u in kept.values()):
        notes["unmeasured"] = {t: u for t, u in kept.items() if u["count"]}
    X = table[feats].to_numpy(dtype=float)
    usable = [c for j, c in enumerate(feats) if np.ptp(X[np.isfinite(X[:, j]), j]) > 0]
    if len(usable) < MIN_FEATURES and len(table) >= MIN_ROWS:
        raise DataError(f"{len(usable)} usable feature column(s) (non-empty, not constant); at least "
                        f"{MIN_FEATURES} are needed.")
    const = [c for c in feats if c not in usable]
    if const and len(table) >= MIN_ROWS:
        notes["constant"] = const
    if few or len(table) < MIN_ROWS:
        notes["few"] = {"rows": int(len(table)), "targets": few or list(targets), "min_rows": MIN_ROWS}
    out_map = {"id_col": id_col, "group_col": group, "targets": targets, "features": feats, "host_col": host,
               "repeat_col": rep, "host_time_col": host_time, "sim_time_cols": sims}
    return table.reset_index(drop=True), raw, out_map, notes
