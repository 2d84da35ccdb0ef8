"""The /plan result as a design-review report (dashboard/ui/report.py): the batch to simulate with why, the
expected effect, the replay chart, what the last round changed, the inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.plan import views
from dashboard.plan.figures import replay
from dashboard.ui.report import Report, Section, Table


def build(page: views.PlanPage, link: str) -> Report:
    f = views.facts(page)
    batch = Table([("rank", "#"), ("id", "workload"), ("group", "application"), ("cost_hours", "cost (h)"),
                   ("width", "interval width (×)"), ("distance", "distance to simulated"), ("calibration", "drawn"),
                   ("why", "why")], views.batch_rows(page))
    sections = [Section("Expected effect", [views.effect_sentence(page), views.choice_sentence(page),
                                            *page.plan.notes])]
    rf = views.round_facts(page)
    if rf:
        sections.append(Section("What the last batch's simulations changed", [rf["sentence"]], tables=[Table(
            [("id", "workload"), ("predicted", "predicted before"), ("lower", "lower"), ("upper", "upper"),
             ("simulated", "simulated"), ("ratio", "simulated / predicted"), ("inside", "inside the interval")],
            views.round_rows(page))]))
    sections += [
        Section("The batch to simulate, in order", tables=[batch]),
        Section("Expected error against simulator hours, per strategy",
                [views.replay_title(page)],
                figures=[replay(views.replay_series(page), "simulator hours spent", views.replay_title(page))]),
    ]
    return Report(
        title=f"What to simulate next on {page.dataset_name}: {f['batch']}",
        facts=[("strategy", f["strategy"]), ("batch", f["batch"]), ("budget", f["budget"]),
               ("mean |log error| now → after", f["error"]), ("median interval width now → after", f["width"]),
               ("simulated / candidates", f["counts"])],
        sections=sections, inputs=dict(page.params), provenance=views.provenance_text(page), link=link,
        generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
