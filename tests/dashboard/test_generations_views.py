"""/generations says when its targets are scored on different workload sets."""

from dashboard.crossgen.generations import workload_sets_text
from dashboard.crossgen.results import GenerationsRun, TargetRow


def _run(rows):
    return GenerationsRun({}, "GTX-680", [t for t, _ in rows],
                          [TargetRow(t, "OLS", 5.0, 50.0, 60.0, None, None, None, n, 0) for t, n in rows], {})


def test_different_workload_sets_are_said_and_equal_ones_are_not():
    rows = [("GTX-980", 283), ("GTX-970", 251), ("TitanX", 251)]
    text = workload_sets_text(_run(rows))
    assert "GTX-980: 283" in text and "GTX-970, TitanX: 251" in text
    assert workload_sets_text(_run(rows[:1])) is None and workload_sets_text(None) is None
