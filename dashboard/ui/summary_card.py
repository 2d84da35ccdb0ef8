"""A result's summary (:class:`modeling.results.Summary`) as a card on its page: the headline facts, the notes
as alerts, what the numbers mean, the details as a list, the tables as grids and the provenance. Each element's
id is the page's prefix and the fact's, note's or table's key (``predict-coverage``, ``predict-candidates``)."""

from __future__ import annotations

from dash import html

from dashboard.ui.components import alert, card, grid, num_col, register_csv, stat
from modeling.results import Note, Summary, SummaryTable


def _note(n: Note, prefix: str):
    box = alert([html.Strong(n.head), n.text] if n.head else n.text, n.level)
    return html.Div(box, id=f"{prefix}-{n.key}") if n.key else box


def table_grid(t: SummaryTable, prefix: str):
    """A summary's table as a grid with its CSV export (register its id with :func:`register_table`)."""
    cols = [num_col(f, h, t.decimals[f]) if f in t.decimals else {"field": f, "headerName": h} for f, h in t.columns]
    return grid(f"{prefix}-{t.key}", cols, rows=t.records(), height=300, file_name=f"{t.key}.csv")


def register_table(prefix: str, key: str) -> None:
    """The CSV export of a card's table (once per page, at import)."""
    register_csv(f"{prefix}-{key}")


def summary_card(s: Summary, prefix: str, tables: tuple[str, ...] = (), head=None):
    """``s`` as a card; ``tables``: the keys of the tables it shows (a page shows its main table elsewhere);
    ``head``: a heading the page puts above the facts."""
    return card(
        head,
        html.Div([stat(f.label, f.text, f"{prefix}-{f.key}" if f.key else None) for f in s.facts if f.value],
                 className="stats"),
        html.Div([_note(n, prefix) for n in s.notes], id=f"{prefix}-warnings"),
        html.P(s.lead, className="situation", id=f"{prefix}-meaning") if s.lead else None,
        html.Ul([html.Li([html.Strong(f"{d.label}: "), d.value]) for d in s.details], id=f"{prefix}-facts"),
        *[table_grid(t, prefix) for t in s.tables if t.key in tables],
        html.P(s.provenance_text, className="hint", id=f"{prefix}-provenance"))
