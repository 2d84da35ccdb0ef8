"""The suite's own rules, read from its source (docs/testing.md, "Writing tests"): a test's outcome never
depends on the machine's speed. No assertion compares a duration against an upper bound (``time.time() - t0
< 5``, or a name holding such a difference), and no fixed sleep stands directly before an assertion: a test
waits for the event with a generous deadline and asserts on what happened."""

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CLOCKS = {"time", "perf_counter", "monotonic", "perf_counter_ns", "monotonic_ns", "time_ns"}


def _is_clock(node) -> bool:
    """``time.time()``, ``time.perf_counter()``, ``monotonic()`` …"""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Attribute) and f.attr in CLOCKS) or (isinstance(f, ast.Name) and f.id in CLOCKS)


def _durations(tree) -> set[str]:
    """Names assigned a clock reading minus something (``lost = time.time() - t0``) anywhere in the module."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_duration(node.value, set()):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            names |= {e.id for t in node.targets if isinstance(t, ast.Tuple) for e in t.elts
                      if isinstance(e, ast.Name)}
    return names


def _is_duration(node, names) -> bool:
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _is_clock(node.left)) or (
        isinstance(node, ast.Name) and node.id in names)


def timed_assertions(source: str) -> list[int]:
    """Lines of the assertions that bound a duration from above."""
    tree = ast.parse(source)
    names = _durations(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        for cmp in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            sides = [cmp.left, *cmp.comparators]
            for left, op, right in zip(sides, cmp.ops, sides[1:]):
                if (isinstance(op, (ast.Lt, ast.LtE)) and _is_duration(left, names)) or (
                        isinstance(op, (ast.Gt, ast.GtE)) and _is_duration(right, names)):
                    found.append(node.lineno)
    return sorted(set(found))


def _is_fixed_sleep(stmt) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
    return name == "sleep" and len(call.args) == 1 and isinstance(call.args[0], ast.Constant)


def sleeps_before_assertions(source: str) -> list[int]:
    """Lines of the fixed sleeps (``time.sleep(0.5)``) that an assertion directly follows."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                found += [a.lineno for a, b in zip(stmts, stmts[1:])
                          if _is_fixed_sleep(a) and isinstance(b, ast.Assert)]
    return sorted(found)


def _test_files():
    return sorted(p for p in TESTS.rglob("*.py") if p != Path(__file__))


def test_the_rules_see_what_they_refuse():
    bad = """
import time
def test_x():
    t0 = time.time()
    assert work() and time.time() - t0 < 5
    lost = time.perf_counter() - t0
    assert lost < 20
    assert 10 > time.monotonic() - t0
    time.sleep(0.5)
    assert done()
"""
    assert timed_assertions(bad) == [5, 7, 8]
    assert sleeps_before_assertions(bad) == [9]
    good = """
import time
def test_x():
    t0 = time.time()
    assert time.perf_counter() - t0 >= 0.3  # a delay that must have happened: a slow machine only adds to it
    while not done() and time.time() - t0 < 60:
        time.sleep(0.1)
    assert done()
"""
    assert timed_assertions(good) == [] and sleeps_before_assertions(good) == []


@pytest.mark.parametrize("path", _test_files(), ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_test_depends_on_the_machine_s_speed(path):
    source = path.read_text()
    timed, slept = timed_assertions(source), sleeps_before_assertions(source)
    assert not timed, f"assertions that bound a duration (wait for the event, assert what happened): lines {timed}"
    assert not slept, f"fixed sleeps directly before an assertion (wait for the condition): lines {slept}"
