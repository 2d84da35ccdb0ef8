"""A large table's rows a page at a time (dashboard/ui/paged_rows.py): the server sorts and filters every
row as AG Grid would, and refuses a forged request with a sentence."""

import random

import pytest

from dashboard.ui import paged_rows
from dashboard.ui.paged_grid import csv_bytes
from dashboard.ui.url_state import InvalidParameter

KINDS = {"id": "text", "app": "text", "v": "number"}


def _rows(n=500):
    rng = random.Random(3)
    return [{"id": f"w{i}", "app": rng.choice(["bfs", "hotspot", "=cmd", ""]), "v": None if i % 97 == 0 else
             rng.uniform(0, 100), "ok": i % 5 != 0} for i in range(n)]


def test_pages_of_the_whole_table_in_its_order():
    rows = _rows()
    got, n = paged_rows.page(rows, paged_rows.checked({"startRow": 100, "endRow": 200}, KINDS))
    assert n == 500 and got == rows[100:200]
    got, n = paged_rows.page(rows, paged_rows.checked({"startRow": 400, "endRow": 600}, KINDS))
    assert n == 500 and got == rows[400:]


def test_sort_over_every_row_blanks_first_ascending():
    rows = _rows()
    req = paged_rows.checked({"startRow": 0, "endRow": 1000, "sortModel": [{"colId": "v", "sort": "asc"}]}, KINDS)
    got, _ = paged_rows.page(rows, req)
    blanks = [r for r in rows if r["v"] is None]
    assert got[:len(blanks)] == blanks
    assert [r["v"] for r in got[len(blanks):]] == sorted(r["v"] for r in rows if r["v"] is not None)
    desc = paged_rows.view(rows, paged_rows.checked({"sortModel": [{"colId": "v", "sort": "desc"}]}, KINDS))
    assert desc[0]["v"] == max(r["v"] for r in rows if r["v"] is not None) and desc[-1]["v"] is None
    # two keys: the application, then the value within it
    two = paged_rows.view(rows, paged_rows.checked({"sortModel": [{"colId": "app", "sort": "asc"},
                                                                  {"colId": "v", "sort": "desc"}]}, KINDS))
    assert two == sorted(two, key=lambda r: (r["app"] != "", r["app"], r["v"] is None, -(r["v"] or 0)))


def test_filters_over_every_row():
    rows = _rows()

    def ids(model):
        return [r["id"] for r in paged_rows.view(rows, paged_rows.checked({"filterModel": model}, KINDS))]

    assert ids({"app": {"filterType": "text", "type": "contains", "filter": "HOT"}}) == \
        [r["id"] for r in rows if "hot" in r["app"]]
    assert ids({"v": {"filterType": "number", "type": "greaterThan", "filter": 50}}) == \
        [r["id"] for r in rows if r["v"] is not None and r["v"] > 50]
    assert ids({"v": {"filterType": "number", "type": "inRange", "filter": 20, "filterTo": 10}}) == \
        [r["id"] for r in rows if r["v"] is not None and 10 < r["v"] < 20]
    assert ids({"v": {"filterType": "number", "type": "blank"}}) == [r["id"] for r in rows if r["v"] is None]
    assert ids({"app": {"filterType": "text", "operator": "OR", "conditions": [
        {"filterType": "text", "type": "equals", "filter": "bfs"},
        {"filterType": "text", "type": "startsWith", "filter": "="}]},
        "v": {"filterType": "number", "type": "lessThan", "filter": 30}}) == \
        [r["id"] for r in rows if r["app"] in ("bfs", "=cmd") and r["v"] is not None and r["v"] < 30]
    _, n = paged_rows.page(rows, paged_rows.checked(
        {"startRow": 0, "endRow": 100, "filterModel": {"app": {"filterType": "text", "type": "equals",
                                                               "filter": "bfs"}}}, KINDS))
    assert n == sum(r["app"] == "bfs" for r in rows)  # the count of matching rows, not of the page


@pytest.mark.parametrize("forged", [
    None, [], "rows", {"startRow": -1, "endRow": 10}, {"startRow": 10, "endRow": 10},
    {"startRow": 0, "endRow": paged_rows.MAX_ROWS + 1}, {"startRow": True, "endRow": 10},
    {"startRow": 0.5, "endRow": 10}, {"startRow": "0", "endRow": 10}, {"startRow": float("nan"), "endRow": 10},
    {"sortModel": [{"colId": "ok", "sort": "asc"}]}, {"sortModel": [{"colId": "v", "sort": "up"}]},
    {"sortModel": {"colId": "v"}}, {"sortModel": [["v", "asc"]]}, {"sortModel": [{"colId": ["v"], "sort": "asc"}]},
    {"filterModel": {"v": {"filterType": "number", "type": ["equals"], "filter": 1}}},
    {"filterModel": []}, {"filterModel": {"ok": {"filterType": "text", "type": "equals", "filter": "x"}}},
    {"filterModel": {"v": {"filterType": "text", "type": "contains", "filter": "1"}}},
    {"filterModel": {"v": {"filterType": "number", "type": "regex", "filter": 1}}},
    {"filterModel": {"v": {"filterType": "number", "type": "equals", "filter": "1"}}},
    {"filterModel": {"v": {"filterType": "number", "type": "equals", "filter": float("inf")}}},
    {"filterModel": {"v": {"filterType": "number", "type": "inRange", "filter": 1}}},
    {"filterModel": {"id": {"filterType": "text", "type": "contains", "filter": 5}}},
    {"filterModel": {"id": {"filterType": "text", "type": "contains", "filter": "x" * 5000}}},
    {"filterModel": {"id": {"filterType": "text", "operator": "XOR", "conditions": [
        {"type": "contains", "filter": "1"}]}}},
    {"filterModel": {"id": {"filterType": "text", "operator": "AND", "conditions": []}}},
])
def test_a_forged_request_is_refused_with_a_sentence(forged):
    with pytest.raises(InvalidParameter) as err:
        paged_rows.checked(forged, KINDS)
    assert str(err.value)


def test_the_csv_is_every_row_of_the_view_with_formulas_quoted():
    rows = _rows()
    cols = [{"field": "id", "headerName": "workload"}, {"field": "app"}, {"field": "v", "headerName": "value (s)"}]
    view = paged_rows.view(rows, paged_rows.checked({"sortModel": [{"colId": "v", "sort": "desc"}]}, KINDS))
    lines = csv_bytes(view, cols).decode().splitlines()
    assert lines[0] == "workload,app,value (s)" and len(lines) == 501
    assert lines[1].startswith(view[0]["id"] + ",")
    assert not any(",=cmd," in line for line in lines) and any(",'=cmd," in line for line in lines)


ODD = [None, True, 5, -1, 2**63, 1e308, "", "NOPE", "x" * 100_000, [], ["NOPE", 3], [None], {},
       {"a": {"b": {"c": [1, {"d": None}]}}}, [[[[[[[[[[]]]]]]]]]], float("nan")]


@pytest.mark.parametrize("slot", ["startRow", "endRow", "sortModel", "filterModel"])
def test_any_value_in_any_slot_is_a_page_or_a_refusal(slot):
    """What a hostile client may post in each part of the request: rows, or InvalidParameter; nothing else."""
    rows = _rows(50)
    for odd in ODD:
        for req in ({"startRow": 0, "endRow": 100, slot: odd},
                    {"startRow": 0, "endRow": 100, "sortModel": [{"colId": "v", "sort": odd}, {"colId": odd}]},
                    {"filterModel": {"v": {"filterType": "number", "type": "equals", "filter": odd}},
                     "startRow": 0, "endRow": 10},
                    {"filterModel": {"id": odd}}, {"filterModel": {"id": {"filterType": "text", "operator": "AND",
                                                                           "conditions": [odd]}}}):
            try:
                got, n = paged_rows.page(rows, paged_rows.checked(req, KINDS))
            except InvalidParameter:
                continue
            assert len(got) <= n <= 50
