"""One encoding of results (and job records) for both job backends: JSON, zlib-compressed. No pickle.

* The redis backend stores these bytes under its result keys (:mod:`dashboard.jobs.distributed`).
* The local backend's result cache (diskcache, :mod:`dashboard.jobs.local`) stores them through
  :class:`JsonDisk`, which writes the bytes raw and refuses to read anything diskcache would unpickle: an
  entry written by another encoding (a cache from before this one, or a planted file) is a cache miss.

So a result reads back the same from either backend: numpy arrays and scalars become lists and numbers,
tuples become lists, NaN and infinities stay NaN and infinities (JSON's ``NaN``/``Infinity`` words, which
Python's json module writes and reads), dict keys are strings.
"""

from __future__ import annotations

import json
import zlib

import diskcache
from diskcache.core import MODE_PICKLE, UNKNOWN


def plain(o):
    """``json.dumps``'s ``default``: numpy arrays and scalars as lists and numbers."""
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"{type(o).__name__} is not JSON")


def pack(value) -> bytes:
    """``value`` as compressed JSON bytes."""
    return zlib.compress(json.dumps(value, default=plain, separators=(",", ":")).encode(), 6)


def unpack(raw):
    """The value of :func:`pack`'s bytes (None for None)."""
    return None if raw is None else json.loads(zlib.decompress(raw))


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
