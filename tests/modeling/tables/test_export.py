"""modeling/tables/export.py: a CSV never carries a cell a spreadsheet would run as a formula; numbers stay
numbers; Parquet keeps the table as it is."""

import io

import pandas as pd
import pytest

from modeling.tables.export import FORMULA_START, export_bytes, neutralised, safe_cell, write_csv

EVIL = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd"]


def test_every_formula_start_is_text_and_numbers_are_numbers():
    frame = pd.DataFrame({"workload": [*EVIL, "plain", "a=b"], "value": [-1.5, 2, 3, -4, 5, 6, 7, 8],
                          "count": range(8)})
    text, name = export_bytes(frame, "predictions GTX/680", "csv")
    assert name == "predictions_GTX_680.csv"
    back = pd.read_csv(io.BytesIO(text), keep_default_na=False)
    # a carriage return is a line feed in the file (a quoted field): a new line, not a formula
    assert list(back["workload"]) == ["'" + e for e in EVIL[:5]] + ["\ncmd", "plain", "a=b"]
    assert not any(str(v).startswith(FORMULA_START) for v in back["workload"])
    assert list(back["value"]) == [-1.5, 2, 3, -4, 5, 6, 7, 8] and list(back["count"]) == list(range(8))
    assert list(frame["workload"]) == [*EVIL, "plain", "a=b"]  # the caller's table is not changed


def test_column_names_and_parquet():
    frame = pd.DataFrame({"=cmd()": ["=x"], "n": [1]})
    assert list(neutralised(frame).columns) == ["'=cmd()", "n"]
    data, name = export_bytes(frame, "t", "parquet")
    assert name == "t.parquet" and pd.read_parquet(io.BytesIO(data)).equals(frame)  # types and text kept
    with pytest.raises(ValueError, match="csv, parquet"):
        export_bytes(frame, "t", "xlsx")


def test_write_csv_to_a_path_and_a_stream(tmp_path):
    frame = pd.DataFrame({"workload": ["=1+1"], "t": [1.0]})
    write_csv(frame, tmp_path / "out.csv")
    buf = io.StringIO()
    write_csv(frame, buf)
    assert (tmp_path / "out.csv").read_text() == buf.getvalue() == "workload,t\n'=1+1,1.0\n"
    assert safe_cell(3) == 3 and safe_cell(None) is None
