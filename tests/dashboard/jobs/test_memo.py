"""What a page draws from a remembered result is drawn once per result and view, and never from another one."""

from dashboard.jobs import memo


def _counting():
    calls = []

    def view(res, choice=None):
        calls.append((res["n"], choice))
        return {"drawn": res["n"], "choice": choice}
    return view, calls


def test_a_view_of_a_remembered_result_is_drawn_once_per_choice():
    view, calls = _counting()
    res = memo.remembered("k-once", lambda: {"n": 1})
    first = memo.derived(res, view, "a")
    assert memo.derived(res, view, "a") is first
    assert memo.derived(res, view, "b") == {"drawn": 1, "choice": "b"}
    assert memo.derived(res, view, ["x", "y"]) == memo.derived(res, view, ["x", "y"])
    assert calls == [(1, "a"), (1, "b"), (1, ["x", "y"])]


def test_another_result_or_one_not_remembered_is_drawn_afresh():
    view, calls = _counting()
    res = memo.remembered("k-other", lambda: {"n": 2})
    memo.derived(res, view, "a")
    loose = {"n": 3}  # not in the memory: computed each time
    memo.derived(loose, view, "a")
    memo.derived(loose, view, "a")
    equal_but_not_same = {"n": 2}
    assert memo.derived(equal_but_not_same, view, "a") == {"drawn": 2, "choice": "a"}
    assert calls == [(2, "a"), (3, "a"), (3, "a"), (2, "a")]


def test_choices_that_cannot_be_a_key_are_computed_not_refused():
    view, calls = _counting()
    res = memo.remembered("k-forged", lambda: {"n": 4})
    assert memo.derived(res, view, {"forged": [1]})["choice"] == {"forged": [1]}
    assert memo.derived(res, view, [{"x": 1}])["choice"] == [{"x": 1}]
    assert len(calls) == 2


def test_views_are_forgotten_with_their_result():
    view, _ = _counting()
    results = memo._Results(maxsize=2)
    old, old_derived = memo._MEMO, dict(memo._DERIVED)
    memo._MEMO = results
    try:
        first = memo.remembered("k-1", lambda: {"n": 1})
        memo.derived(first, view, "a")
        assert id(first) in memo._DERIVED
        memo.remembered("k-2", lambda: {"n": 2})
        memo.remembered("k-3", lambda: {"n": 3})  # k-1 is evicted
        assert id(first) not in memo._DERIVED
    finally:
        memo._MEMO = old
        memo._DERIVED.clear()
        memo._DERIVED.update(old_derived)
