"""The last few results this process read, kept in memory (both job backends).

A key names its inputs, data and modeling version, so a result never changes: a page render that reads one
result from several callbacks reads (and decodes) it once."""

from __future__ import annotations

import threading

from cachetools import LRUCache


MEMO_ENTRIES = 16
DERIVED_PER_RESULT = 32  # views kept per result (a view's choices: the model shown, the models compared)


class _Results(LRUCache):
    """The remembered results; a result's derived views (:func:`derived`) are forgotten with it."""

    def popitem(self):
        key, value = super().popitem()
        _DERIVED.pop(id(value), None)
        return key, value


_MEMO: _Results = _Results(maxsize=MEMO_ENTRIES)
_DERIVED: dict = {}  # id(result) -> (result, LRUCache of its views): only for results in _MEMO
_MEMO_LOCK = threading.Lock()  # a worker may serve requests from several threads


def remembered(key: str, read):
    """The result of ``key``: from memory, or ``read()`` (kept when it is not None)."""
    with _MEMO_LOCK:
        value = _MEMO.get(key)
    if value is not None:
        return value
    value = read()
    if value is not None:
        with _MEMO_LOCK:
            old = _MEMO.get(key)
            if old is not None:
                _DERIVED.pop(id(old), None)
            _MEMO[key] = value
    return value


def known(key: str) -> bool:
    """Is the result of ``key`` in this process's memory?"""
    with _MEMO_LOCK:
        return key in _MEMO


def derived(res: dict, compute, *args):
    """``compute(res, *args)``, computed once per result this process remembers: a result never changes, so
    neither does what a page draws from it (the leaderboard, a chart), and a cached link opened by many users
    is drawn once per worker. ``args`` are the view's own choices (a list counts by its items); a result
    that is not remembered, or choices that cannot be a key, are computed every time.

    What ``compute`` returns is shared between requests: callers must not change it."""
    try:
        view = (getattr(compute, "__qualname__", repr(compute)),
                tuple(tuple(a) if isinstance(a, list) else a for a in args))
        hash(view)
    except TypeError:
        return compute(res, *args)
    with _MEMO_LOCK:
        entry = _DERIVED.get(id(res))
        if entry is not None and entry[0] is res and view in entry[1]:
            return entry[1][view]
    value = compute(res, *args)
    with _MEMO_LOCK:
        if any(v is res for v in _MEMO.values()):
            entry = _DERIVED.get(id(res))
            if entry is None or entry[0] is not res:
                entry = _DERIVED[id(res)] = (res, LRUCache(maxsize=DERIVED_PER_RESULT))
            entry[1][view] = value
    return value
