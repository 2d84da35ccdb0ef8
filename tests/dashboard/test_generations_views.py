"""/generations says when its targets are scored on different workload sets."""

from dashboard.crossgen.generations import workload_sets_text


def test_different_workload_sets_are_said_and_equal_ones_are_not():
    rows = [{"target": "GTX-980", "n_workloads": 283}, {"target": "GTX-970", "n_workloads": 251},
            {"target": "TitanX", "n_workloads": 251}]
    text = workload_sets_text({"summary": rows})
    assert "GTX-980: 283" in text and "GTX-970, TitanX: 251" in text
    assert workload_sets_text({"summary": rows[:1]}) is None and workload_sets_text(None) is None
