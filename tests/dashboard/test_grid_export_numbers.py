"""A grid's Export CSV writes numbers, with the unit in the column header, never the display text ("99.5 ms")."""

from dashboard.ui.components import grid
from dashboard.ui.format import si_col


def _ag(box):
    return box.children[1]


def test_every_grid_exports_values_not_their_display():
    g = _ag(grid("x-table", [si_col("host", "host's own", "s")]))
    # AG Grid 31+ writes a column's valueFormatter output into the CSV unless told not to
    assert g.defaultColDef["useValueFormatterForExport"] is False
    assert all(c.get("useValueFormatterForExport") is not True for c in g.columnDefs)


def test_a_unit_column_names_its_unit_in_the_header():
    assert si_col("host", "host's own", "s")["headerName"] == "host's own (s)"
    assert si_col("cycles", "cycles", "")["headerName"] == "cycles"


def test_the_counts_prediction_table_holds_its_range_level_as_a_number():
    from dashboard.counts.views import level_pct

    assert level_pct(0.9, "glm", 3.0) == 90.0 and level_pct(1.0, "exact", 5.0) == 100.0
    assert level_pct(None, "glm", None) is None
