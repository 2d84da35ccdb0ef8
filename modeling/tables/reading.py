"""Reading user tables (CSV or Parquet) with clear messages for bad input.

Covers the loading rules of the project's quality list: encoding, byte-order
mark, delimiter detection, duplicate headers, ragged rows, empty files,
numeric columns holding text, and files that are not tables at all. Nothing
is ever unpickled: Parquet columns with Python-object extension types are
refused.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from modeling.errors import DataError
from modeling.tables.decoded_size import MAX_DECODED_BYTES, check_parquet_declared, parquet_expanded

MAX_BYTES = 200 * 1024 * 1024
MAX_COLUMNS = 5000
MAX_ROWS = 1_000_000
#: Largest table accepted, in cells (rows x columns), checked on the file's declared
#: shape before anything is materialized: 5 million cells are 40 MB as numbers, and a
#: few hundred MB while a CSV's text is split (a compressed Parquet file can declare far
#: more than its size suggests).
MAX_CELLS = 5_000_000
#: Largest uncompressed Parquet payload accepted (bytes, from the file's row-group metadata): the bound on
#: what a table decodes to (:mod:`modeling.tables.decoded_size`).
MAX_PARQUET_BYTES = MAX_DECODED_BYTES
_MAGIC = {b"PK\x03\x04": "an Excel/zip file", b"\xd0\xcf\x11\xe0": "an old Excel/OLE file",
          b"\x80\x04": "a Python pickle", b"\x80\x05": "a Python pickle", b"%PDF": "a PDF"}
_NA = {"", "na", "n/a", "nan", "null", "none", "-", "?"}


@dataclass
class Table:
    frame: pd.DataFrame
    delimiter: str | None
    conversions: dict = field(default_factory=dict)  # column -> message
    #: column -> {"count": n, "rows": [first 20 data-row positions, 0-based]} of cells holding text that is
    #: not a number (dropped to NaN by the conversion): unlike an empty or N/A cell, such a NaN is not
    #: "not measured" but a value that could not be read.
    text_dropped: dict = field(default_factory=dict)


def _sniff_delimiter(sample: str) -> str:
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        first = sample.splitlines()[0] if sample else ""
        counts = {d: first.count(d) for d in ",;\t|"}
        best = max(counts, key=counts.get)
        return best if counts[best] else ","


def _utf16_to_utf8(raw: bytes) -> bytes:
    """UTF-16 text with a byte-order mark (a spreadsheet's "Unicode text") as UTF-8 bytes."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            raise DataError("The file starts like UTF-16 text but does not decode as UTF-16; "
                            "save it as UTF-8.") from None
    head = raw[:4096]
    if len(head) >= 8 and (head[1::2].count(0) > 0.4 * len(head[1::2]) or head[0::2].count(0) > 0.4 * len(head[0::2])):
        raise DataError("The file looks like UTF-16 text without a byte-order mark; save it as UTF-8 "
                        "(e.g. 'CSV UTF-8' in a spreadsheet).")
    return raw


def _one_line_ending(raw: bytes) -> bytes:
    """Windows (CR LF) and old Mac (CR) line endings as LF."""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in raw else raw


def check_cells(rows: int, columns: int) -> None:
    """Refuse a table whose declared shape exceeds the row, column or cell budget."""
    if rows > MAX_ROWS:
        raise DataError(f"The file has about {rows:,} rows; at most {MAX_ROWS:,} are accepted.")
    if columns > MAX_COLUMNS:
        raise DataError(f"The file has {columns:,} columns; at most {MAX_COLUMNS:,} are accepted.")
    if rows * columns > MAX_CELLS:
        raise DataError(f"The file declares {rows:,} rows x {columns:,} columns = {rows * columns:,} cells; at "
                        f"most {MAX_CELLS:,} cells are accepted. Upload fewer rows or columns.")


def decoded_text(raw: bytes, what: str, binary_hint: str = "", save_hint: str = "", nul_hint: str | None = None
                 ) -> str:
    """The text of an uploaded file that should be ``what``, after the checks every upload gets: the size
    limit, binary formats recognised by their first bytes, UTF-16 with a byte-order mark re-encoded, one
    line ending, no NUL bytes, UTF-8 (a byte-order mark dropped). The hints end the messages for a known
    binary format, for another binary file (``nul_hint``, default ``binary_hint``) and for one that is not
    UTF-8."""
    if len(raw) > MAX_BYTES:
        raise DataError(f"The file is {len(raw) / 1e6:.0f} MB; the limit is {MAX_BYTES / 1e6:.0f} MB.")
    for magic, kind in _MAGIC.items():
        if raw.startswith(magic):
            raise DataError(f"This looks like {kind}, not {what}." + binary_hint)
    raw = _one_line_ending(_utf16_to_utf8(raw))
    if b"\x00" in raw:
        raise DataError(f"The file contains NUL bytes: it is binary, not {what}."
                        + (binary_hint if nul_hint is None else nul_hint))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError(f"The file is not UTF-8: byte 0x{raw[exc.start]:02x} on line {line}." + save_hint) from None


def read_csv_bytes(raw: bytes) -> Table:
    """Parse CSV bytes into a table of strings, then convert numeric columns."""
    text = decoded_text(raw, "a CSV file", binary_hint=" Export it as CSV or Parquet.",
                        save_hint=" Save it as UTF-8 (e.g. 'CSV UTF-8' in a spreadsheet).")
    if not text or text.isspace():  # (no copy of the text is made here or below until it is split)
        raise DataError("The file is empty.")
    # the declared shape (lines x header fields) against the budgets, before the text is split
    n_lines = text.count("\n") + (not text.endswith("\n"))
    delim = _sniff_delimiter(text[:20000])
    start = re.match(r"\n*", text).end()
    end = text.find("\n", start)
    first = text[start:end if end >= 0 else len(text)]
    check_cells(max(n_lines - 1, 0), first.count(delim) + 1)
    frame = _split_columns(text, delim)
    del text  # the split columns hold the text now
    table = Table(frame, delim)
    _convert_numeric(table)
    return table


#: Rows split at a time before they are packed into compact text columns.
_CHUNK_ROWS = 8192


def _lines(text: str):
    """The lines of ``text`` with their line endings, one at a time (a ``StringIO`` would copy the whole text,
    at 4 bytes a character when any is outside Latin-1)."""
    pos, n = 0, len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end + 1
        yield text[pos:end]
        pos = end


def _split_columns(text: str, delim: str) -> pd.DataFrame:
    """The table of strings in ``text``: header, then every non-empty row, with the checks' messages.

    Rows are split a chunk at a time and packed into Arrow text columns (each cell's text and an 8-byte
    offset), so the memory the split takes is about the text's size plus 8 bytes a cell, not a Python string
    and a list slot per cell (about 60 bytes a cell: a 47 MB CSV of 5,000,000 numbers took 610 MB). The
    messages and their order are those of reading every row first: a malformed CSV, no rows, the header's
    names, no data rows, then the first row whose field count differs from the header's."""
    import pyarrow as pa

    header = None
    columns: list = []
    chunk: list = []
    ragged = None
    n_body = 0

    def flush():
        for j, col in enumerate(columns):
            col.append(pa.array([r[j] for r in chunk], type=pa.large_string()))
        chunk.clear()

    try:
        for r in csv.reader(_lines(text), delimiter=delim):
            if not any(c.strip() for c in r):
                continue
            if header is None:
                header = [h.strip() for h in r]
                columns = [[] for _ in header]
                continue
            n_body += 1
            if ragged is not None:
                continue
            if len(r) != len(header):
                ragged = (n_body + 1, len(r))
                chunk.clear()
                columns = []
                continue
            chunk.append(r)
            if len(chunk) >= _CHUNK_ROWS:
                flush()
    except csv.Error as exc:
        raise DataError(f"The file is not a readable CSV table ({exc}).") from None
    if header is None:
        raise DataError("The file has no header and no data: every line is empty or only delimiters.")
    dups = sorted({h for h in header if header.count(h) > 1})
    if dups:
        raise DataError(f"Duplicate column names: {', '.join(dups)}. Rename them so each is unique.")
    if any(h == "" for h in header):
        raise DataError(f"Column {header.index('') + 1} has no name in the header row.")
    if not n_body:
        raise DataError("The file has a header but no data rows.")
    if ragged is not None:
        raise DataError(f"Row {ragged[0]} has {ragged[1]} fields but the header has {len(header)} "
                        f"(delimiter {delim!r}).")
    flush()
    return pd.DataFrame({h: pa.chunked_array(col, type=pa.large_string()).to_pandas() for h, col in
                         zip(header, columns)}, columns=header)


_NUM = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _to_float(s: pd.Series) -> pd.Series:
    """``pd.to_numeric(s, errors="coerce")`` as floats, a chunk of rows at a time (it turns text into one
    Python string per cell first: 72 MB for 1,000,000 cells at once)."""
    parts = [pd.to_numeric(s.iloc[i:i + 16 * _CHUNK_ROWS], errors="coerce").to_numpy(dtype=float)
             for i in range(0, len(s), 16 * _CHUNK_ROWS)]
    return pd.Series(np.concatenate(parts) if parts else np.array([], dtype=float), index=s.index)


def _number_masks(col: pd.Series):
    """``(stripped text, text without thousands separators, is N/A, is a number)`` of a column's cells."""
    s = col.astype(str).str.strip()
    low = s.str.lower()
    is_na = low.isin(_NA)
    # (the look-behind makes pandas split the column into Python strings: only where a comma is)
    cleaned = s.str.replace(r"(?<=\d),(?=\d{3}\b)", "", regex=True) if s.str.contains(",", regex=False).any() else s
    is_num = cleaned.str.match(_NUM) | low.isin({"inf", "+inf", "-inf", "infinity", "-infinity"})
    return s, cleaned, is_na, is_num


def _convert_numeric(table: Table) -> None:
    """Convert columns that are mostly numbers; report what was changed."""
    df = table.frame
    for col in df.columns:
        # whether the column is mostly numbers, counted a chunk of rows at a time (a text column is never
        # copied whole: stripped and lowered at once, 500,000 86-byte names took 90 MB more)
        counts = np.zeros(2, dtype=np.int64)
        for i in range(0, len(df), 16 * _CHUNK_ROWS):
            _, _, is_na, is_num = _number_masks(df[col].iloc[i:i + 16 * _CHUNK_ROWS])
            counts += int((~is_na).sum()), int((is_num & ~is_na).sum())
        n_val, n_num = (int(c) for c in counts)
        if n_val == 0 or n_num / n_val < 0.8:
            continue
        s, cleaned, is_na, is_num = _number_masks(df[col])
        vals = _to_float(cleaned.where(is_num & ~is_na))
        notes = []
        if (cleaned != s).any():
            notes.append(f"{int((cleaned != s).sum())} thousands separators removed")
        if is_na.any():
            notes.append(f"{int(is_na.sum())} empty/N/A values")
        bad = (~is_num) & (~is_na)
        if bad.any():
            ex = s[bad].iloc[0]
            notes.append(f"{int(bad.sum())} non-numeric values dropped (e.g. {ex[:20]!r})")
            table.text_dropped[str(col)] = {"count": int(bad.sum()),
                                            "rows": [int(i) for i in np.flatnonzero(bad.to_numpy())[:20]]}
        inf = ~np.isfinite(vals) & vals.notna()
        if inf.any():
            notes.append(f"{int(inf.sum())} infinite or overflowing values")
        df[col] = vals
        if notes:
            table.conversions[col] = "; ".join(notes)


def read_table(path) -> Table:
    """Read a CSV or Parquet file from disk."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"File not found: {path}")
    if path.stat().st_size > MAX_BYTES:
        raise DataError(f"The file is {path.stat().st_size / 1e6:.0f} MB; the limit is {MAX_BYTES / 1e6:.0f} MB.")
    raw = path.read_bytes()
    if raw.startswith(b"PAR1"):
        return read_parquet_bytes(raw)
    return read_csv_bytes(raw)


def _is_text(t) -> bool:
    import pyarrow as pa

    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t)


def _read_bounded(raw: bytes, pf, schema):
    """The file's table, what it decodes to bounded before it is materialized.

    Three ways a small Parquet file decodes to gigabytes: compressed pages of repeated bytes (bounded by the
    pages' uncompressed sizes in the metadata, checked first, nothing read), a dictionary-encoded text
    column whose few long values are repeated on every row (the pages hold only indices: the metadata's page
    sizes are small), and many rows of anything. The decoded size is counted per column from the metadata
    first (:func:`modeling.tables.decoded_size.check_parquet_declared`: the dictionary's longest named value
    on every row), then on the values: text columns alone are read as dictionaries (each distinct value
    once, plus an index per row) and the size they expand to is checked
    (:func:`~modeling.tables.decoded_size.parquet_expanded`) before the other columns are read and before any
    text is expanded.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    md = pf.metadata
    pages = sum(md.row_group(i).column(j).total_uncompressed_size
                for i in range(md.num_row_groups) for j in range(md.num_columns))
    if pages > MAX_PARQUET_BYTES:
        raise DataError(f"The file decodes to about {pages / 2**20:,.0f} MB in memory (its pages uncompressed); "
                        f"at most {MAX_PARQUET_BYTES // 2**20} MB are accepted.")
    declared = check_parquet_declared(md)
    text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            or (pa.types.is_dictionary(f.type) and _is_text(f.type.value_type))]
    fixed = {name: size for name, size in declared.items() if name not in text}
    names = [f.name for f in schema]
    texts = None
    if text:
        texts = pq.ParquetFile(io.BytesIO(raw), read_dictionary=text).read(columns=text, use_pandas_metadata=False)
        parquet_expanded(texts, text, fixed)
    rest = [n for n in names if n not in text]
    others = pq.ParquetFile(io.BytesIO(raw)).read(columns=rest, use_pandas_metadata=False) if rest else None
    cols = []
    for name in names:
        if name in text:
            col = texts.column(name)
            # text read as a dictionary here is decoded back to plain text (as the file meant it); a column the
            # file itself stored as a dictionary type stays one
            if pa.types.is_dictionary(col.type) and not pa.types.is_dictionary(schema.field(name).type):
                col = col.cast(schema.field(name).type)
        else:
            col = others.column(name)
        cols.append(col)
    return pa.table(cols, names=names)


def read_parquet_bytes(raw: bytes) -> Table:
    """Read Parquet; refuse extension/object types that would need unpickling."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(io.BytesIO(raw))
        schema = pf.schema_arrow
    except Exception as exc:  # noqa: BLE001 - any parse failure is a bad file
        raise DataError(f"Not a readable Parquet file ({exc.__class__.__name__}).") from None
    for f in schema:
        # an extension type whose class is not registered here arrives as its storage type, named in the
        # field's metadata: refused as well (it means something else than the plain values it holds)
        if f.metadata and b"ARROW:extension:name" in f.metadata:
            name = f.metadata[b"ARROW:extension:name"].decode("utf-8", "replace")[:60]
            raise DataError(f"Column {f.name!r} has the extension type {name!r}; only numbers and text are accepted.")
        if isinstance(f.type, pa.ExtensionType) or not (
                pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or pa.types.is_string(f.type)
                or pa.types.is_large_string(f.type) or pa.types.is_boolean(f.type)
                or pa.types.is_dictionary(f.type)):
            raise DataError(f"Column {f.name!r} has type {f.type}; only numbers and text are accepted.")
    check_cells(pf.metadata.num_rows, len(schema))
    names = pd.Index([f.name for f in schema])
    if names.duplicated().any():
        raise DataError(f"Duplicate column names: {', '.join(map(str, sorted(set(names[names.duplicated()]))))}.")
    # the Arrow columns are released as they are converted (one copy of the table at a time)
    frame = _read_bounded(raw, pf, schema).to_pandas(ignore_metadata=True, self_destruct=True, split_blocks=True)
    if len(frame) == 0:
        raise DataError("The file has columns but no data rows.")
    return Table(frame, None)
