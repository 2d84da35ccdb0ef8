"""What an uploaded table decodes to in memory, bounded before anything is materialized.

A file's size says little about the table it holds: a 60 kB Parquet file of one dictionary-encoded text
column (two distinct 500-byte values on 1,000,000 rows) decodes to 500 MB, and a CSV of short numbers to
about 3x its size once split. So every upload is counted per column as what it decodes to, dictionary pages
expanded:

* a number or boolean: 8 bytes per row (the frame holds it as a 64-bit value);
* a text value: its length plus an 8-byte offset.

For Parquet the count comes first from the file's metadata (:func:`parquet_declared`, nothing read): the
row-group column chunks' value counts, their uncompressed page sizes (a plain-encoded text column's pages
hold every value, so they bound its text) and, for a dictionary-encoded text column, the value count times
the longest value its statistics name (the minimum and maximum are two of the dictionary's values). The
statistics are the writer's word, so the count is checked again on the values themselves
(:func:`parquet_expanded`): text columns are read as dictionaries (each distinct value once, an index per
row) and the lengths of the referenced values are summed before any text is expanded.

A CSV is counted from its declared shape (:func:`csv_read_cost`): its text (once as bytes, once as a
Python string, up to 4 bytes a character when any character is outside Latin-1), the split columns
(the text again plus an offset per cell) and the converted frame (8 bytes per cell).

:data:`MAX_DECODED_BYTES` bounds the decoded table; :func:`read_cost` is the memory the reading of an upload
is expected to take, which the server uses to read large uploads one at a time.
"""

from __future__ import annotations

import io

import numpy as np

from modeling.errors import DataError

#: Largest decoded table accepted, in bytes, counted per column as above. The largest numeric table the
#: cell budget allows (5,000,000 cells) is 40 MB; the rest is room for text columns. Measured with
#: ``benchmarks/upload_memory.py``: reading, previewing and staging a table this large adds less than
#: :data:`UPLOAD_BOUND_BYTES` to a server process.
MAX_DECODED_BYTES = 64 * 2**20
#: The stated bound: one upload (read, preview, staging) adds at most this much to a server process.
UPLOAD_BOUND_BYTES = 300 * 2**20
#: Bytes a decoded cell takes: a number, or the offset beside a text value.
CELL_BYTES = 8
#: Bytes of memory per byte of CSV text while it is read, before the cells (the bytes, the decoded string
#: and the split text columns).
CSV_TEXT_FACTOR = 3
#: Bytes of memory per CSV cell while it is read (the split column's offset, the converted number, and the
#: conversion's masks).
CSV_CELL_BYTES = 24
_FIXED = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "FIXED_LEN_BYTE_ARRAY"}


def _mb(n: float) -> str:
    return f"{n / 2**20:,.0f} MB"


def too_big(total: int, per_column: dict, how: str = "") -> DataError:
    """The refusal of a table that decodes to ``total`` bytes, naming its largest column."""
    col, size = max(per_column.items(), key=lambda kv: kv[1]) if per_column else ("", 0)
    where = f" (column {col!r}: {_mb(size)}{how})" if col else ""
    return DataError(f"The file decodes to about {_mb(total)} in memory{where}; at most {_mb(MAX_DECODED_BYTES)} "
                     "are accepted. Upload fewer rows or shorter text values.")


def parquet_declared(md) -> tuple[dict, dict]:
    """Per column, the bytes its values decode to according to the file's metadata (nothing read), and per
    dictionary-encoded text column the longest value its statistics name.

    ``md`` is ``pyarrow.parquet.ParquetFile.metadata``. A column absent from the statistics counts its
    uncompressed pages; a dictionary-encoded text column counts ``num_values`` times its longest named value
    (a lower bound of what it decodes to: checked on the values by :func:`parquet_expanded`)."""
    sizes: dict = {}
    longest: dict = {}
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        for j in range(rg.num_columns):
            c = rg.column(j)
            name = c.path_in_schema
            n = max(int(c.num_values), int(rg.num_rows))
            if c.physical_type in _FIXED:
                size = n * CELL_BYTES
            else:
                size = int(c.total_uncompressed_size) + n * CELL_BYTES
                dictionary = c.has_dictionary_page or any("DICTIONARY" in e for e in c.encodings)
                st = c.statistics if c.is_stats_set else None
                if dictionary and st is not None and st.has_min_max:
                    lengths = [len(v) if isinstance(v, (bytes, str)) else 0 for v in (st.min, st.max)]
                    longest[name] = max(longest.get(name, 0), *lengths)
                    size = max(size, n * (max(lengths) + CELL_BYTES))
            sizes[name] = sizes.get(name, 0) + size
    return sizes, longest


def check_parquet_declared(md) -> dict:
    """Refuse a Parquet file whose metadata declares more than :data:`MAX_DECODED_BYTES`; returns the
    per-column sizes."""
    sizes, longest = parquet_declared(md)
    total = sum(sizes.values())
    if total > MAX_DECODED_BYTES:
        col = max(sizes, key=sizes.get)
        how = (f", {md.num_rows:,} text values up to {longest[col]:,} bytes each stored once in a dictionary"
               if col in longest and longest[col] * md.num_rows >= sizes[col] // 2 else "")
        raise too_big(total, sizes, how)
    return sizes


def parquet_expanded(table, text: list, fixed: dict) -> int:
    """The bytes ``table``'s ``text`` columns (read as dictionaries) decode to, plus the ``fixed`` bytes of
    the others; refused past :data:`MAX_DECODED_BYTES` before anything is expanded."""
    import pyarrow as pa
    import pyarrow.compute as pc

    sizes = dict(fixed)
    for name in text:
        col = table.column(name)
        size = 0
        for chunk in col.chunks:
            if pa.types.is_dictionary(chunk.type):
                lengths = pc.binary_length(chunk.dictionary).to_numpy(zero_copy_only=False)
                idx = chunk.indices.to_numpy(zero_copy_only=False)
                valid = ~np.asarray(chunk.is_null().to_numpy(zero_copy_only=False), bool)
                size += int(lengths[idx[valid]].sum())
            else:
                size += int(chunk.nbytes)
            size += CELL_BYTES * len(chunk)
        sizes[name] = size
    total = sum(sizes.values())
    if total > MAX_DECODED_BYTES:
        raise too_big(total, sizes, ", its dictionary's values expanded on every row")
    return total


def csv_read_cost(raw: bytes, rows: int, columns: int) -> int:
    """The memory a CSV's reading is expected to take (see the module's text)."""
    per_char = 1 if raw.isascii() else 4
    return (CSV_TEXT_FACTOR + per_char) * len(raw) + CSV_CELL_BYTES * rows * columns


def read_cost(raw: bytes) -> int:
    """The memory reading the upload ``raw`` is expected to take, from its metadata (Parquet) or its line and
    header-field count (CSV), before anything is materialized. A file that cannot be measured so counts its
    size; the reading refuses what does not fit."""
    if raw.startswith(b"PAR1"):
        import pyarrow.parquet as pq

        try:
            sizes, _ = parquet_declared(pq.ParquetFile(io.BytesIO(raw)).metadata)
        except Exception:  # noqa: BLE001 - not readable: the reading says why
            return len(raw)
        return len(raw) + 2 * sum(sizes.values())
    rows = raw.count(b"\n") + raw.count(b"\r") + 1  # CR LF counted twice: an over-estimate, never under
    nl = raw.find(b"\n")
    first = raw[: nl if nl >= 0 else 20000]
    columns = max(first.count(d) for d in (b",", b";", b"\t", b"|")) + 1
    return csv_read_cost(raw, rows, columns)
