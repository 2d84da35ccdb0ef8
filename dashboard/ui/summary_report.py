"""A result's summary (:class:`modeling.results.Summary`) in its HTML report (:mod:`dashboard.ui.report`): the
headline facts, a section of what the numbers mean (the lead sentence, the notes, the details), a section per
table with the charts drawn from it, and the provenance."""

from __future__ import annotations

import time

from dashboard.ui.report import Report, Section, Table
from modeling.results import Summary

MEANING = "What the numbers mean"


def sections(s: Summary, figures: dict | None = None) -> list[Section]:
    """The report's sections of ``s``; ``figures``: the charts (plotly figure dicts) of a table, by its key."""
    figures = figures or {}
    out = [Section(MEANING, [s.lead, *[n.sentence for n in s.notes], *[f"{d.label}: {d.value}" for d in s.details]])]
    for t in s.tables:
        table = Table(list(t.columns), t.records(), digits=t.digits)
        out.append(Section(t.caption, figures=list(figures.get(t.key, [])), tables=[table]))
    return out


def report(s: Summary, inputs: dict, link: str, figures: dict | None = None) -> Report:
    """``s`` as a report: its title, facts, sections and provenance, the view's inputs and its link."""
    return Report(title=s.title, facts=[(f.label, f.text) for f in s.facts], sections=sections(s, figures),
                  inputs=dict(inputs), provenance=s.provenance_text, link=link,
                  generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
