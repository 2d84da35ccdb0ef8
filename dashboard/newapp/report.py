"""A GPU never built or measured, as a design-review report (dashboard/ui/report.py): what the estimates are
and how far the same rule was on measured GPUs (its record per pair), the chart and every workload's estimate,
the inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.newapp.figures import hypothetical
from dashboard.newapp.results import UnbuiltGpuRun
from dashboard.newapp.views import (HYPO_TIMES, SPLIT_COLUMNS, SPLIT_SUMMARY_COLUMNS, hypo_columns, hypo_facts,
                                   hypo_texts, kernel_table, resembled_split, split_rows, split_summary_rows,
                                   track_columns, track_rows)
from dashboard.state import datasets
from dashboard.ui.report import Report, Section, Table


def build(run: UnbuiltGpuRun, link: str) -> Report:
    h = run.estimate
    note, warnings, text = hypo_texts(run)
    unit = datasets.unit_of(run.params)
    record = track_rows(h.track)
    track = Table([(c["field"], c["headerName"]) for c in track_columns(record)], record)
    rows = Table([(c["field"], c["headerName"] + (f" ({unit})" if c["field"] in HYPO_TIMES else ""))
                  for c in hypo_columns(unit)], h.rows, digits=5)
    sections = [Section("What the estimates are, and how far the same rule was", [t for t in (note, text) if t]
                        + warnings, tables=[track])]
    split, said = resembled_split(run)
    if split is not None:
        cols = [*SPLIT_COLUMNS, ("note", "note")]
        sections.append(Section(
            "How it held with measured GPUs held out: four splits", [said],
            tables=[Table(list(SPLIT_SUMMARY_COLUMNS), split_summary_rows(run.splits), "All four splits"),
                    *[Table(cols, split_rows(s), s.label) for s in run.splits.splits],
                    Table(*kernel_table(split), "Mean APE % per kernel and held-out GPU")]))
    sections.append(Section("Estimates per workload", figures=[hypothetical(h, unit)], tables=[rows]))
    return Report(
        title=f"{run.device_name}: estimates for a GPU never measured (from its specs only)",
        facts=[(label, value) for label, value, _ in hypo_facts(run)],
        sections=sections,
        inputs=dict(run.params),
        provenance=provenance_text(run),
        link=link,
        generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


def provenance_text(run: UnbuiltGpuRun) -> str:
    """The data (its fingerprint) and the code version that made the estimates: the stamped provenance; a result
    without one (made outside a job) names the data as it is now."""
    from dashboard.newapp.kinds import NEWAPP
    from modeling.version import code_version

    p = run.provenance
    fingerprint, version = (p.fingerprint, p.code_version) if p else (NEWAPP.fingerprint(run.params), code_version())
    return (f"Dataset {run.dataset_name} (fingerprint {fingerprint}); code version {version} (part of the result's "
            "key).")
