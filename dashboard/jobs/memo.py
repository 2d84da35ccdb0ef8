"""The last few results this process read, kept in memory (both job backends).

A key names its inputs, data and modeling version, so a result never changes: a page render that reads one
result from several callbacks reads (and decodes) it once."""

from __future__ import annotations

from cachetools import LRUCache

from modeling.parallel import ForkSafeLock

MEMO_ENTRIES = 16
_MEMO: LRUCache = LRUCache(maxsize=MEMO_ENTRIES)
_MEMO_LOCK = ForkSafeLock()  # a worker may serve requests from several threads


def remembered(key: str, read):
    """The result of ``key``: from memory, or ``read()`` (kept when it is not None)."""
    with _MEMO_LOCK:
        value = _MEMO.get(key)
    if value is not None:
        return value
    value = read()
    if value is not None:
        with _MEMO_LOCK:
            _MEMO[key] = value
    return value


def known(key: str) -> bool:
    """Is the result of ``key`` in this process's memory?"""
    with _MEMO_LOCK:
        return key in _MEMO


