"""A job's settings are bounded on the server (the kinds' checks run for Run, a link and a posted job store alike):
a /counts job whose networks would train for hours, and leave-one-application-out over an upload of many
applications, are refused with what to change; the default settings pass."""

import numpy as np
import pandas as pd
import pytest

from dashboard import settings
from dashboard.counts.kinds import COUNTS, PROGRAMS
from dashboard.crossgen.kinds import GENERATIONS, MAX_FOLDS, SCENARIO, SWEEP
from dashboard.state import datasets
from dashboard.ui.url_state import InvalidParameter


def test_every_program_with_extreme_network_settings_is_refused():
    """5,000 epochs of batch 1 over every program of the CPU table: ~59 million steps (hours of a core)."""
    extreme = {"source": "cpu", "models": ["pnn"], "epochs": 5000, "batch": 1, "hidden": 200}
    with pytest.raises(InvalidParameter, match="invalid parameter epochs") as got:
        PROGRAMS.request(extreme)
    text = str(got.value)
    assert f"more than the {settings.JOB_MAX_NETWORK_STEPS:,} one job may take" in text
    assert "choose fewer epochs, a larger batch or fewer network models, or one program" in text
    with pytest.raises(InvalidParameter, match="over this program"):  # one program, too
        COUNTS.request({**extreme, "program": "2mm"})


def test_default_and_moderate_count_settings_pass():
    for source in ("cpu", "gpu"):
        PROGRAMS.request({"source": source})
        PROGRAMS.request({"source": source, "models": ["pnn-paper", "pnn-tuned", "pnn", "glm", "poly", "best"]})
    COUNTS.request({"source": "cpu", "program": "2mm", "models": ["pnn"], "epochs": 2000, "batch": 8})


def test_the_bound_follows_its_setting(monkeypatch):
    monkeypatch.setattr("dashboard.settings.JOB_MAX_NETWORK_STEPS", 1000)
    with pytest.raises(InvalidParameter, match="more than the 1,000 one job may take"):
        PROGRAMS.request({"source": "gpu"})


def _many_applications(n_apps: int) -> str:
    rng = np.random.default_rng(3)
    n = 2 * n_apps
    x = rng.uniform(1, 10, (n, 3))
    host = x @ [0.5, 0.2, 0.1] + 0.05
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "app": [f"a{i % n_apps}" for i in range(n)],
                       "f1": x[:, 0], "f2": x[:, 1], "f3": x[:, 2], "host_t": host, "t_next": host * 0.6})
    return datasets.save_dataset(df, f"{n_apps} apps", {
        "id_col": "workload", "group_col": "app", "targets": ["t_next"], "features": ["f1", "f2", "f3"],
        "host_col": "host_t", "repeat_col": None, "missing": None})["id"]


def test_leave_one_application_out_over_many_applications_is_refused(var):
    many = _many_applications(MAX_FOLDS + 5)
    for kind, extra in ((SCENARIO, {"target": "t_next"}), (SWEEP, {"target": "t_next"}),
                        (GENERATIONS, {"targets": ["t_next"]})):
        with pytest.raises(InvalidParameter, match="invalid parameter cv") as got:
            kind.request({"dataset": many, "cv": "logo", **extra})
        assert f"{MAX_FOLDS + 5} on this dataset, more than the {MAX_FOLDS} folds" in str(got.value)
        assert "choose grouped K-fold by application" in str(got.value)
        kind.request({"dataset": many, "cv": "group", "folds": MAX_FOLDS, **extra})  # the way out is open
    few = _many_applications(MAX_FOLDS)
    SCENARIO.request({"dataset": few, "cv": "logo", "target": "t_next"})
