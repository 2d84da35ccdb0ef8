"""/generations says when its targets are scored on different workload sets."""

from dashboard.pages.generations import set_note


def test_different_workload_sets_are_said_and_equal_ones_are_not():
    rows = [{"target": "GTX-980", "n_workloads": 283}, {"target": "GTX-970", "n_workloads": 251},
            {"target": "TitanX", "n_workloads": 251}]
    note = set_note({"summary": rows})
    text = str(note.children)
    assert "GTX-980: 283" in text and "GTX-970, TitanX: 251" in text
    assert set_note({"summary": rows[:1]}) is None and set_note(None) is None
