"""A new program's predicted target trace as a design-review report (dashboard/ui/report.py): the headline
numbers, what was predicted and how sure, the chart of the trace with its intervals, the table per phase, the
inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.phases.figures import new_program
from dashboard.phases.new_program_text import np_facts, np_rows, np_text
from dashboard.ui.report import Report, Section, Table


def build_new_program(res: dict, link: str) -> Report:
    unit = res["unit"]
    prov = res.get("provenance") or {}
    table = Table([("phase", "phase"), ("start", "start (×10⁹ instructions)"), ("predicted", f"predicted ({unit})"),
                   ("lower", f"lower ({unit})"), ("upper", f"upper ({unit})"), ("fallback", "fall-back")],
                  np_rows(res), digits=6)
    return Report(
        title=f"Target trace of {res['program']}, never run on the target",
        facts=np_facts(res), sections=[Section("What was predicted, and how sure", [np_text(res)]),
                                       Section("Predicted target trace", figures=[new_program(res)], tables=[table])],
        inputs=dict(res.get("params") or {}),
        provenance="; ".join(f"{k} {v}" for k, v in prov.items()) or "–",
        link=link,
        generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
