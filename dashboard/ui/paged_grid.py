"""A grid of a large result's rows, sent a page at a time (AG Grid's infinite row model).

The page's first response carries the grid's columns and no rows; once the grid is on screen it asks the
server for the rows it shows (a block of :data:`~dashboard.ui.paged_rows.BLOCK`), and for the next blocks as
the user scrolls. Sorting and filtering are asked of the server too, over every row of the result
(:mod:`dashboard.ui.paged_rows`, which checks each request). "Export CSV" is written by the server: every row of
the view as sorted and filtered, not only the rows the browser holds. A new result empties the grid's blocks,
so it asks again."""

from __future__ import annotations

from collections.abc import Callable

import dash_ag_grid as dag
from dash import Input, Output, State, callback, clientside_callback, dcc, html, no_update

from dashboard.ui import paged_rows
from dashboard.ui.components import alert
from dashboard.ui.format import message
from dashboard.ui.url_state import InvalidParameter

NOTHING = {"rowData": [], "rowCount": 0}


def kinds_of(columns: list[dict]) -> dict:
    """Each column's field -> "number" (a number filter) or "text": what the server sorts and filters by."""
    return {c["field"]: "number" if c.get("filter") == "agNumberColumnFilter" else "text" for c in columns}


def paged_grid(id_, columns: list[dict], height=360, row_style=None):
    """The grid (id ``id_``) with its Export CSV button (``<id>-csv``), the download it makes (``<id>-download``)
    and a line for a refused request (``<id>-status``)."""
    defaults = {"sortable": True, "filter": True, "resizable": True, "minWidth": 80, "wrapHeaderText": True,
                "autoHeaderHeight": True}
    opts = {"animateRows": False, "rowHeight": 30, "suppressFieldDotNotation": True, "tooltipShowDelay": 300,
            "cacheBlockSize": paged_rows.BLOCK, "maxBlocksInCache": 20, "infiniteInitialRowCount": 1,
            "maxConcurrentDatasourceRequests": 1}
    columns = [{"headerTooltip": c.get("headerName") or c.get("field"), **c} for c in columns]
    grid = dag.AgGrid(id=id_, columnDefs=columns, rowModelType="infinite", defaultColDef=defaults,
                      dashGridOptions=opts, columnSize="responsiveSizeToFit", style={"height": f"{height}px"},
                      className="ag-theme-alpine", getRowStyle=row_style)
    return html.Div([
        html.Div(html.Button("Export CSV", id=f"{id_}-csv", className="btn btn-small", n_clicks=0),
                 className="grid-tools"),
        dcc.Download(id=f"{id_}-download"),
        html.Div(id=f"{id_}-status"),
        grid,
    ], className="grid-box")


def register_paged(id_, ready_id: str, rows_of: Callable, file_name: str) -> None:
    """Serve ``id_``'s rows: ``rows_of(ready)`` gives ``(rows, columns)`` of the result the page's ready store
    names (all rows, in the table's order), or None when there is none."""

    @callback(Output(id_, "getRowsResponse"), Output(f"{id_}-status", "children"),
              Input(id_, "getRowsRequest"), State(ready_id, "data"), prevent_initial_call=True)
    def _rows(request, ready):
        got = rows_of(ready)
        if got is None:
            return NOTHING, None
        rows, columns = got
        try:
            req = paged_rows.checked(request, kinds_of(columns))
        except InvalidParameter as exc:
            return NOTHING, alert(f"Rows not shown: {message(exc)}")
        shown, count = paged_rows.page(rows, req)
        return {"rowData": shown, "rowCount": count}, None

    @callback(Output(f"{id_}-download", "data"), Output(f"{id_}-status", "children", allow_duplicate=True),
              Input(f"{id_}-csv", "n_clicks"), State(id_, "getRowsRequest"), State(ready_id, "data"),
              prevent_initial_call=True)
    def _csv(n, request, ready):
        got = rows_of(ready) if n else None
        if got is None:
            return no_update, no_update
        rows, columns = got
        try:
            req = paged_rows.checked({**(request if isinstance(request, dict) else {}),
                                      "startRow": 0, "endRow": 1}, kinds_of(columns))
        except InvalidParameter as exc:
            return no_update, alert(f"Not exported: {message(exc)}")
        return dcc.send_bytes(csv_bytes(paged_rows.view(rows, req), columns), file_name), None

    # a new result: the grid drops the blocks it holds and asks for its rows again
    clientside_callback(
        """function (ready, id) {
            if (window.dash_ag_grid && window.dash_ag_grid.getApiAsync) {
                window.dash_ag_grid.getApiAsync(id).then(function (api) {
                    if (api && api.purgeInfiniteCache) { api.purgeInfiniteCache(); }
                }).catch(function () {});
            }
            return window.dash_clientside.no_update;
        }""",
        Output(f"{id_}-status", "title"), Input(ready_id, "data"), State(id_, "id"), prevent_initial_call=True)


def csv_bytes(rows: list[dict], columns: list[dict]) -> bytes:
    """The rows as the grid's CSV: one column per grid column, its header as the grid shows it, the numbers
    as numbers (not their display), text a spreadsheet would run as a formula quoted (the server's CSV rule)."""
    import pandas as pd

    from modeling.tables.export import csv_text

    frame = pd.DataFrame([[r.get(c["field"]) for c in columns] for r in rows],
                         columns=[c.get("headerName") or c["field"] for c in columns])
    return csv_text(frame).encode()
