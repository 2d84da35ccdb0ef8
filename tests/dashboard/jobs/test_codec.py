"""Results are stored as JSON by both job backends (dashboard/jobs/codec.py): the same values come back from
either, and an entry diskcache would unpickle is never unpickled: it reads as not computed."""

import math
import pickle

import diskcache
import numpy as np

from dashboard.jobs import codec, local
from dashboard.jobs.keys import stored_key

KEY = "scenario-" + "ab" * 16


def _value():
    return {"e_out": np.float64(1.25), "n": np.int64(7), "oof": np.array([1.0, np.nan, np.inf]),
            "pair": (1, "two"), "nested": [{"x": np.float32(0.5)}], "text": "µs ✓", "none": None}


EXPECTED = {"e_out": 1.25, "n": 7, "oof": [1.0, math.nan, math.inf], "pair": [1, "two"],
            "nested": [{"x": 0.5}], "text": "µs ✓", "none": None}


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def test_a_result_reads_back_the_same_from_both_backends_encodings():
    via_redis = codec.unpack(codec.pack(_value()))  # what the redis backend stores and reads
    local.put_result(KEY, _value())
    local.results().delete("no-such")  # (a cache call in between)
    from dashboard.jobs import memo

    memo._MEMO.clear()  # read from the cache, not this process's memory
    via_local = local.get_result(KEY)
    assert _same(EXPECTED, via_redis) and _same(EXPECTED, via_local)


class _Boom:
    """Unpickling this would create a file: the proof that an entry was unpickled."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_pickled_entry_is_never_unpickled_and_reads_as_not_computed(tmp_path):
    marker = tmp_path / "unpickled"
    results = local.results()
    where = stored_key(KEY)
    plain = diskcache.Cache(results.directory)  # diskcache's default encoding: pickle
    plain.set(where, _Boom(str(marker)))
    plain.close()
    assert isinstance(pickle.dumps(_Boom(str(marker))), bytes)
    from dashboard.jobs import memo

    memo._MEMO.clear()
    assert local.get_result(KEY) is None
    assert not marker.exists()
    assert not local.has_result(KEY)  # removed: computed again, not half-present


def test_a_typed_result_reads_back_typed_from_both_backends_and_untagged_dicts_stay_dicts(backend):
    """A job's typed result (modeling/results.py) is stored by its tagged to_dict and read back as its type by
    ``jobs.result_for``, on the local backend (diskcache through JsonDisk) and on redis; a method's plain dict is
    read back as a dict."""
    from dashboard import jobs
    from dashboard.jobs import memo
    from modeling.results import Provenance

    typed = Provenance.now("counts", {"seed": 0, "at": (1, 2)}, "cpu", "shipped", "ab" * 16, seconds=math.nan)
    jobs.put_result(KEY, typed)
    jobs.put_result("scenario-" + "cd" * 16, {"provenance": {"kind": "x"}, "rows": [np.float64(1.5)]})
    memo._MEMO.clear()  # read from the backend's store, not this process's memory
    got = jobs.result_for({"key": KEY})
    assert type(got) is Provenance and got.params == {"seed": 0, "at": [1, 2]} and math.isnan(got.seconds)
    assert codec.pack(got) == codec.pack(typed)
    assert jobs.result_for({"key": "scenario-" + "cd" * 16}) == {"provenance": {"kind": "x"}, "rows": [1.5]}
