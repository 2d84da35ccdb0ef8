"""A GPU never built or measured, as a design-review report (dashboard/ui/report.py): what the estimates are
and how far the same rule was on measured GPUs (its record per pair), the chart and every workload's estimate,
the inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.newapp.figures import hypothetical
from dashboard.state import datasets
from dashboard.newapp.kinds import NEWAPP
from dashboard.newapp.views import HYPO_TIMES, hypo_columns, hypo_facts, hypo_texts, track_columns, track_rows
from dashboard.ui.report import Report, Section, Table
from modeling.version import code_version


def build(res: dict, link: str) -> Report:
    h = res["hypothetical"]
    note, warnings, text = hypo_texts(res)
    unit = datasets.unit_of(res["params"])
    record = track_rows(h["track"])
    track = Table([(c["field"], c["headerName"]) for c in track_columns(record)], record)
    rows = Table([(c["field"], c["headerName"] + (f" ({unit})" if c["field"] in HYPO_TIMES else ""))
                  for c in hypo_columns(unit)], h["rows"], digits=5)
    return Report(
        title=f"{h['device']['device']}: estimates for a GPU never measured (from its specs only)",
        facts=[(label, value) for label, value, _ in hypo_facts(res)],
        sections=[Section("What the estimates are, and how far the same rule was", [t for t in (note, text) if t]
                          + warnings, tables=[track]),
                  Section("Estimates per workload", figures=[hypothetical(h, unit)], tables=[rows])],
        inputs=dict(res.get("params") or {}),
        provenance=(f"Dataset {res['dataset_name']} (fingerprint {NEWAPP.fingerprint(res['params'])}); code version "
                    f"{code_version()} (part of the result's key)."),
        link=link,
        generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
