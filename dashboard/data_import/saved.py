"""The "Saved datasets" list of /data, drawn by the page and again by both of its Save buttons (the table
upload's and the profiler card's), so a dataset just saved shows there without a page reload."""

from __future__ import annotations

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
