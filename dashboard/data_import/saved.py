"""The "Saved datasets" list of /data, drawn by the page and again by both of its Save buttons (the table
upload's and the profiler card's), so a dataset just saved shows there without a page reload."""

from __future__ import annotations

from urllib.parse import urlencode

from dash import dcc, html

from dashboard.state import datasets
from dashboard.ui.delete_confirm import delete_button

P = "data"
LIST_ID = f"{P}-datasets"


def dataset_list():
    items = []
    for m in datasets.list_datasets():
        mp = m["mapping"]
        units = m.get("target_units") if isinstance(m.get("target_units"), dict) else {}
        targets = ", ".join(f"{t} ({units[t]})" if t in units else t for t in mp["targets"])
        unit = f" in {m['target_unit']}" if m.get("target_unit") and not units else ""
        items.append(html.Li([
            html.Strong(m["name"]), html.Span(f"  {m['id']} · {m['rows']} workloads · targets: "
                                              f"{targets}{unit} · {len(mp['features'])} features"),
            dcc.Link("open scenario", href=f"/scenario?dataset={m['id']}", className="inline-link"),
            delete_button(P, m["id"]),
        ], className="dataset-item"))
    return html.Ul(items, className="dataset-list") if items else html.P("No uploaded datasets yet.", className="hint")


def next_steps(meta: dict, notes: dict, prefix: str) -> list:
    """The links under a save's message: run a scenario on the dataset and, when some workloads have no
    target value, predict them (/predict on the first target that has such workloads)."""
    few = notes.get("few")
    if few:  # a single run, or two: saved to add to, but no model trains on it yet
        return [html.Span(f"Too few to train a model on yet: {', '.join(few['targets'])} measured on fewer than "
                          f"{few['min_rows']} workloads, the fewest a model trains on. Import the other runs (one "
                          "file per input) with this one and save them together to run a scenario.",
                          id=f"{prefix}-few-note")]
    out = [dcc.Link("Run a scenario on it", href=f"/scenario?dataset={meta['id']}", id=f"{prefix}-saved-link")]
    waiting = [(t, u["count"]) for t, u in (notes.get("unmeasured") or {}).items() if u.get("count")]
    if waiting:
        target, n = waiting[0]
        out += [" · ", dcc.Link(f"Predict the {n} workload{'s' if n > 1 else ''} without a {target} value",
                                href="/predict?" + urlencode({"dataset": meta["id"], "target": target}),
                                id=f"{prefix}-predict-link")]
    return out
