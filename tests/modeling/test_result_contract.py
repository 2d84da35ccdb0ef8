"""The result contract (modeling/results.py): a typed result is stored as tagged JSON and read back as the same
type, nested results, numpy arrays, NaN and tuples included; unknown fields are ignored, an unknown type is a
clear error, and nothing is ever unpickled."""

import json
import math
from dataclasses import dataclass, field

import numpy as np
import pytest

from modeling.results import TAG, TRANSIENT, Provenance, Result, ResultError, dumps, loads, stamped


@dataclass(frozen=True)
class _Inner(Result):
    name: str
    band: tuple[float, float] | None = None


@dataclass
class _Outer(Result):
    title: str
    values: np.ndarray
    inner: _Inner
    many: list[_Inner]
    by_name: dict
    maybe: _Inner | None = None
    scratch: dict = field(default_factory=dict, metadata=TRANSIENT)
    provenance: Provenance | None = None

    @property
    def total(self) -> float:
        return float(np.nansum(self.values[np.isfinite(self.values)]))


def _outer():
    return _Outer("t", np.array([[1.0, np.nan], [np.inf, 2.5]]), _Inner("a", (0.5, 1.5)),
                  [_Inner("b"), _Inner("c", (1.0, 2.0))], {"x": _Inner("d"), "n": np.int64(3), "f": np.float32(0.5)},
                  scratch={"big": np.zeros(3)})


def test_a_nested_result_reads_back_as_its_types_with_numpy_nan_and_tuples():
    a = _outer()
    text = dumps(a)
    b = loads(text)
    assert type(b) is _Outer and type(b.inner) is _Inner and type(b.by_name["x"]) is _Inner
    assert all(type(i) is _Inner for i in b.many) and b.maybe is None
    assert isinstance(b.values, np.ndarray) and b.values.dtype == float
    assert np.array_equal(b.values, a.values, equal_nan=True) and math.isinf(b.values[1, 0])
    assert b.inner.band == (0.5, 1.5) and isinstance(b.inner.band, tuple)
    assert b.by_name["n"] == 3 and b.by_name["f"] == 0.5
    assert b.scratch == {}  # a working value, not stored
    assert "big" not in text and json.loads(text)[TAG] == "_Outer"
    assert dumps(b) == text and b.total == a.total == 3.5  # derived statistics from the same fields


def test_a_plain_dict_reads_back_as_a_dict_and_a_result_inside_one_as_its_type():
    got = loads(dumps({"rows": [1, 2], "inner": _Inner("z"), "n": np.int64(1)}))
    assert type(got) is dict and got["rows"] == [1, 2] and type(got["inner"]) is _Inner and got["n"] == 1


def test_fields_a_type_does_not_know_are_ignored_and_missing_ones_take_their_defaults():
    d = _Inner("a", (1.0, 2.0)).to_dict()
    d["added_later"] = 42
    assert _Inner.from_dict(d) == _Inner("a", (1.0, 2.0))
    del d["band"]
    assert Result.from_dict(d) == _Inner("a")
    del d["name"]
    with pytest.raises(ResultError, match="without its field 'name'"):
        Result.from_dict(d)


def test_an_unknown_type_is_a_clear_error_never_an_import_or_unpickle():
    with pytest.raises(ResultError, match="unknown result type 'os.system'"):
        loads(json.dumps({TAG: "os.system", "cmd": "touch /tmp/x"}))
    with pytest.raises(ResultError, match="a stored _Inner where a _Outer was expected"):
        _Outer.from_dict(_Inner("a").to_dict())
    with pytest.raises(ResultError, match="not a stored result"):
        Result.from_dict({"name": "a"})


def test_two_result_types_with_one_name_are_refused():
    with pytest.raises(TypeError, match="two result types named '_Inner'"):
        type("_Inner", (Result,), {"__module__": "somewhere.else"})


def test_the_provenance_is_stamped_once_and_only_on_results_that_carry_one():
    p = Provenance.now("kind", {"a": 1}, "cpu", "shipped CPU", "f" * 32, seconds=1.25)
    a = stamped(_outer(), p)
    assert a.provenance is p and stamped(a, Provenance.now("other", {}, None, None, None)).provenance is p
    assert stamped({"a": 1}, p) == {"a": 1} and stamped(_Inner("x"), p) == _Inner("x")
    assert loads(dumps(a)).provenance == p
    assert p.columns("table") == {"table": "cpu", "table_fingerprint": "f" * 32, "code_version": p.code_version,
                                  "date": p.date}
    assert p.text("table").startswith("Provenance: table shipped CPU (cpu, fingerprint ffffffffffffffff)")
    assert p.text().endswith(" in 1.2 s.")
