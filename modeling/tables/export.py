"""Every table perfcast writes for people to open, in one place: CSV with no cell a spreadsheet would run as a
formula, or Parquet.

A workload, application or kernel name comes from a user's file and can be anything, ``=HYPERLINK(...)``
included; a spreadsheet opening the CSV runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return as a formula (CSV injection, OWASP). Text cells that start so are written with a leading
apostrophe, which spreadsheets show as text; numbers (negative ones too) are written as numbers. Parquet keeps
types and runs nothing, so it is written as it is.
"""

from __future__ import annotations

import argparse
import io
import os

import pandas as pd

from modeling.errors import ConfigError

#: the first characters a spreadsheet reads as the start of a formula
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
FORMATS = ("csv", "parquet")


def safe_cell(value):
    """``value``, or for text that a spreadsheet would run as a formula, the same text after an apostrophe.
    A carriage return in text becomes a line feed: CSV quotes a field with a line feed, and a bare carriage
    return (which Python's CSV writer leaves unquoted when lines end in a line feed) would end the row early."""
    if isinstance(value, str):
        value = value.replace("\r\n", "\n").replace("\r", "\n")
        if value.startswith(FORMULA_START):
            return "'" + value
    return value


def neutralised(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and column names) cannot run as formulas; numbers unchanged."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or isinstance(out[col].dtype, pd.StringDtype | pd.CategoricalDtype):
            out[col] = out[col].map(safe_cell)
    out.columns = [safe_cell(c) for c in out.columns]
    return out


def csv_text(frame: pd.DataFrame, **kw) -> str:
    return neutralised(frame).to_csv(index=False, **kw)


def write_csv(frame: pd.DataFrame, out: str | os.PathLike | io.TextIOBase, **kw) -> None:
    """Write ``frame`` as CSV (formulas neutralised) to a path or an open text stream (e.g. standard output)."""
    neutralised(frame).to_csv(out, index=False, **kw)


def table_out(value: str) -> str:
    """The command lines' ``--out`` type: a file name ending in .csv or .parquet, refused when the command line
    is read, before any work is done (a wrong name found after a long run would lose the run)."""
    if not str(value).lower().endswith(tuple(f".{f}" for f in FORMATS)):
        raise argparse.ArgumentTypeError(f"{str(value)[:200]!r}: the file name must end in .csv or .parquet")
    return value


def write_table(frame: pd.DataFrame, out: str | os.PathLike) -> None:
    """Write ``frame`` to ``out``: Parquet for a name ending in .parquet, CSV (formulas neutralised) for .csv;
    any other name is refused, never written as CSV under another name."""
    name = str(out).lower()
    if name.endswith(".parquet"):
        frame.to_parquet(out, index=False)
    elif name.endswith(".csv"):
        write_csv(frame, out)
    else:
        raise ConfigError(f"{str(out)[:200]!r}: the file name must end in .csv or .parquet")


def export_bytes(frame: pd.DataFrame, stem: str, fmt: str = "csv") -> tuple[bytes, str]:
    """(bytes, file name) of ``frame`` as ``fmt`` (csv or parquet) for a download; the file name is ``stem``
    with every character but letters, digits and ``._-`` replaced by ``_``."""
    if fmt not in FORMATS:
        raise ValueError(f"an export is one of {', '.join(FORMATS)}, not {str(fmt)[:20]!r}")
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in stem)
    if fmt == "parquet":
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        return buf.getvalue(), f"{name}.parquet"
    return csv_text(frame).encode(), f"{name}.csv"
