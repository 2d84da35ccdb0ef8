"""An uploaded table of workloads to predict, from the browser's upload to a stored id (no Dash): parsed
with the project's limits, its columns checked against the chosen scenario's features before anything is
kept (an error names the missing columns), then stored (:mod:`dashboard.state.predict_inputs`)."""

from __future__ import annotations

from dashboard.predict.kinds import PREDICT
from dashboard.state import datasets, predict_inputs
from dashboard.state.uploads import decode_upload, parse_upload
from dashboard.ui.url_state import parse
from modeling.crossgen.predict import new_workloads

SCENARIO_NAMES = ("dataset", "host", "target", "metric")


def store_upload(contents, filename, scenario_values: dict) -> tuple[dict, str]:
    """(metadata, message) of a stored upload; raises ``InvalidParameter``/``LookupError`` for a bad scenario
    and ``DataError`` (a ``ValueError``) for a table that cannot be read or lacks a feature column."""
    params = parse({k: scenario_values.get(k) for k in SCENARIO_NAMES}, list(PREDICT.params[:len(SCENARIO_NAMES)]))
    name = filename if isinstance(filename, str) else None
    table = parse_upload(decode_upload(contents), name)
    scen = datasets.get(params["dataset"]).scenario(params["host"], params["target"], params["metric"])
    roles = predict_inputs.guess_roles(table.frame)
    new = new_workloads(table.frame, scen["feature_names"], roles["id_col"], roles["group_col"])
    meta = predict_inputs.save_inputs(table.frame, name)
    text = [f"Stored {meta['name']!r}: {len(new['workload_ids'])} workload(s) to predict, "
            f"{len(scen['feature_names'])} counters matched by name; id column: "
            f"{roles['id_col'] or 'none (rows are numbered)'}, application column: {roles['group_col'] or 'none'}."]
    if new["ignored"]:
        text.append(f" Ignored columns (never read): {', '.join(new['ignored'][:15])}"
                    + (f" and {len(new['ignored']) - 15} more." if len(new["ignored"]) > 15 else "."))
    if new["skipped"]:
        text.append(f" Skipped for a missing counter value: {', '.join(map(str, new['skipped'][:10]))}"
                    + (" …" if len(new["skipped"]) > 10 else "") + ".")
    return meta, "".join(text)
