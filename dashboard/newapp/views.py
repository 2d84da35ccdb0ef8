"""What /new-app shows, computed from a cached result and the calibration form (no Dash)."""

from __future__ import annotations

from dashboard.ui.url_state import InvalidParameter


def picks_of(cal, cal_time):
    """The calibration the form asks for, validated: [] (none) or [{id, time?}]; InvalidParameter otherwise."""
    if cal in (None, ""):
        return []
    if not isinstance(cal, str) or len(cal) > 200:
        raise InvalidParameter("cal", "expected a workload id")
    if cal_time in (None, ""):
        return [{"id": cal}]
    if isinstance(cal_time, bool):
        raise InvalidParameter("cal_time", "expected a number")
    try:
        t = float(cal_time)
    except (TypeError, ValueError):
        raise InvalidParameter("cal_time", f"{str(cal_time)[:30]!r} is not a number") from None
    if not (t > 0 and t < float("inf")):
        raise InvalidParameter("cal_time", "a measured time must be a positive number")
    return [{"id": cal, "time": t}]


def merge_calibration(app: dict, cal: dict) -> dict:
    """The cached result's models with the calibrated estimates (estimates do not depend on the models)."""
    models = [m for m in app["methods"] if m["kind"] == "model"]
    est_names = [m["method"] for m in cal["methods"]]
    rows = []
    by_id = {r["id"]: r for r in cal["rows"]}
    for r in app["rows"]:
        c = by_id[r["id"]]
        rows.append({**r, "calibrating": c["calibrating"],
                     **{k: v for k, v in c.items() if k.split("|")[0] in est_names}})
    return {**app, "methods": cal["methods"] + models, "rows": rows, "calibration": cal["calibration"],
            "one_run": cal["one_run"]}
