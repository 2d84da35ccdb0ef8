"""One encoding of results (and job records) for both job backends: JSON, zlib-compressed. No pickle.

* The redis backend stores these bytes under its result keys (:mod:`dashboard.jobs.distributed`).
* The local backend's result cache (diskcache, :mod:`dashboard.jobs.local`) stores them through
  :class:`JsonDisk`, which writes the bytes raw and refuses to read anything diskcache would unpickle: an
  entry written by another encoding (a cache from before this one, or a planted file) is a cache miss.

So a result reads back the same from either backend. A typed result (:class:`modeling.results.Result`) is
written by its ``to_dict`` (tagged with its type) and read back as the same type, nested results included
(:func:`modeling.results.revive` as json's ``object_hook``); an unknown tag is a
:class:`modeling.results.ResultError`, never an unpickle. Any other value is plain JSON: numpy arrays and scalars
become lists and numbers, tuples become lists, NaN and infinities stay NaN and infinities (JSON's
``NaN``/``Infinity`` words, which Python's json module writes and reads), dict keys are strings, and a dict without
a tag reads back as a dict.

The encoding is :func:`modeling.results.dumps`/:func:`~modeling.results.loads` (JSON text), compressed here; the
same text, uncompressed, is a saved prediction's ``result.json`` (:mod:`dashboard.state.predictions`) and a
fan-out fit's record (:mod:`dashboard.jobs.fanout`).
"""

from __future__ import annotations

import zlib

import diskcache
from diskcache.core import MODE_PICKLE, UNKNOWN

from modeling.results import dumps, json_default, loads


#: ``json.dumps``'s ``default``: typed results as their tagged dicts, numpy arrays and scalars as lists and numbers
plain = json_default


def pack(value) -> bytes:
    """``value`` as compressed JSON bytes."""
    return zlib.compress(dumps(value).encode(), 6)


def unpack(raw):
    """The value of :func:`pack`'s bytes (None for None)."""
    return None if raw is None else loads(zlib.decompress(raw))


class NotThisEncoding(OSError):
    """An entry diskcache would unpickle. An ``OSError``: diskcache's ``get`` answers such an entry as
    missing (as it does a value file deleted under it)."""


class JsonDisk(diskcache.Disk):
    """diskcache's storage of values through :func:`pack`/:func:`unpack` (keys are strings, stored as they
    are); a pickled entry is never unpickled."""

    def store(self, value, read, key=UNKNOWN):
        return super().store(value if read else pack(value), read, key=key)

    def fetch(self, mode, filename, value, read):
        if mode == MODE_PICKLE:
            raise NotThisEncoding("a pickled cache entry: not read")
        data = super().fetch(mode, filename, value, read)
        return data if read else unpack(data)
