"""Reusable layout pieces: grids with CSV export, cards, stats, alerts."""

from __future__ import annotations

import re

import dash_ag_grid as dag
from dash import html


def fmt(v, digits=2):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


#: the grids' CSV export writes each cell's value (numbers as numbers), text that a spreadsheet would run as a
#: formula after an apostrophe, as every server-made CSV does (modeling/tables/export.py, FORMULA_START)
SAFE_CSV_CELL = ("params.value != null && params.value.charAt && params.value.length > 0 && "
                 "'=+-@\\t\\r'.indexOf(params.value.charAt(0)) >= 0 ? \"'\" + params.value : params.value")


def grid(id_, columns: list[dict], rows=None, height=360, file_name="table.csv", row_style=None):
    """A sortable, filterable AG Grid with a CSV export button (id ``<id>-csv``)."""
    # the CSV export writes the numbers, not their display ("99.5 ms"): a column's unit is in its header
    defaults = {"sortable": True, "filter": True, "resizable": True, "minWidth": 80, "wrapHeaderText": True,
                "autoHeaderHeight": True, "useValueFormatterForExport": False}
    # a dot in a field name is text, not a path into nested data (a column "Branch.Efficiency" showed blank)
    opts = {"animateRows": False, "rowHeight": 30, "suppressFieldDotNotation": True, "tooltipShowDelay": 300}
    columns = [{"headerTooltip": c.get("headerName") or c.get("field"), **c} for c in columns]
    grid = dag.AgGrid(id=id_, columnDefs=columns, rowData=rows or [], defaultColDef=defaults,
                      dashGridOptions=opts, columnSize="responsiveSizeToFit", style={"height": f"{height}px"},
                      csvExportParams={"fileName": file_name, "processCellCallback": {"function": SAFE_CSV_CELL}},
                      className="ag-theme-alpine",
                      getRowStyle=row_style)
    return html.Div([
        html.Div(html.Button("Export CSV", id=f"{id_}-csv", className="btn btn-small", n_clicks=0),
                 className="grid-tools"),
        grid,
    ], className="grid-box")


def num_col(field, header, digits=2, width=None):
    col = {"field": field, "headerName": header, "type": "numericColumn", "filter": "agNumberColumnFilter",
           "minWidth": 96,
           "valueFormatter": {"function": f"params.value == null ? '–' : d3.format(',.{digits}f')(params.value)"}}
    if width:
        col["width"] = width
    return col


def pct_col(field, header, width=96):
    """A column of percentage errors: two decimals, and three significant digits with an exponent from 100,000
    on (a saturated model's 27,743,071.89 % reads 2.77e+7), so the column stays narrow."""
    return {**num_col(field, header), "minWidth": width, "valueFormatter": {"function": (
        "params.value == null ? '–' : Math.abs(params.value) >= 1e5 ? d3.format('.3~e')(params.value) "
        ": d3.format(',.2f')(params.value)")}}


def card(*children, className=""):
    return html.Div(list(children), className=f"card {className}".strip())


def stat(label, value, id_=None):
    kw = {"id": id_} if id_ else {}
    return html.Div([html.Div(value, className="stat-value", **kw), html.Div(label, className="stat-label")],
                    className="stat")


def register_csv(id_):
    from dash import Input, Output, callback

    @callback(Output(id_, "exportDataAsCsv"), Input(f"{id_}-csv", "n_clicks"), prevent_initial_call=True)
    def _export(n):
        return bool(n)


def register_stored_upload(prefix, save, options, describe):
    """Wire ``<prefix>-upload`` to ``save(contents, filename)`` (validates and stores; raises a ``ValueError``
    such as ``ModelingError`` saying what is wrong): the stored item becomes ``<prefix>-source``'s value,
    ``options()`` its choices, and ``describe(meta)`` or the error the text of ``<prefix>-upload-status``."""
    from dash import Input, Output, State, callback, no_update

    @callback(Output(f"{prefix}-source", "options"), Output(f"{prefix}-source", "value"),
              Output(f"{prefix}-upload-status", "children"), Input(f"{prefix}-upload", "contents"),
              State(f"{prefix}-upload", "filename"), prevent_initial_call=True)
    def _uploaded(contents, filename):
        from dashboard.access.projects import refused

        if why := refused("editor", "upload"):
            return no_update, no_update, alert(why)
        try:
            meta = save(contents, filename if isinstance(filename, str) else None)
        except (ValueError, TypeError) as exc:  # ModelingError is a ValueError
            return no_update, no_update, alert(f"Not used: {exc}")
        return options(), meta["id"], alert(describe(meta), "info")


def alert(text, kind="error"):
    return html.Div(text, className=f"alert alert-{kind}", role="alert")


def answer(outputs, **given) -> dict:
    """The answer of a callback with named outputs (Dash's dict form): the ``given`` ones, every other name of
    ``outputs`` left as it is (``no_update``). A name that is not an output is a programming error."""
    from dash import no_update

    unknown = set(given) - set(outputs)
    if unknown:
        raise KeyError(f"not outputs of this callback: {sorted(unknown)}")
    return {**dict.fromkeys(outputs, no_update), **given}


#: how wide a grid column must be to show a text whole (AG Grid's Alpine theme, 14 px text: 6-8 px a character
#: but for m and W, 8 taken), 16 px of padding each side of a cell and 2 spare, the header's 16 px filter icon
#: and its gap beside the text; one long text widens its column up to MAX_COL_PX, past that its tooltip shows it
CHAR_PX, CELL_PAD_PX, HEADER_ICON_PX, MAX_COL_PX = 8, 34, 24, 380


def fitted(col: dict, texts=()) -> dict:
    """``col`` with a ``minWidth`` that shows the longest of ``texts`` and the header's longest word whole
    (headers wrap between words and after a hyphen, never inside a word), never narrower than it was."""
    words = re.findall(r"[^\s-]+-?", str(col.get("headerName") or col["field"]))
    header = max((len(w) for w in words), default=0) * CHAR_PX + CELL_PAD_PX + HEADER_ICON_PX
    cells = max((len(str(t)) for t in texts if t is not None), default=0) * CHAR_PX + CELL_PAD_PX
    out = {**col, "minWidth": min(MAX_COL_PX, max(col.get("minWidth", 0), header, cells))}
    if cells > MAX_COL_PX:
        out.setdefault("tooltipField", col["field"])
    return out
