"""/scenario on an uploaded table whose target spans orders of magnitude: the note before the run says the
log ratio was chosen and why; picking "none" brings a warning; the shipped dataset shows no note."""

import numpy as np
import pandas as pd

from dashboard.state import datasets, uploads
from pc_browser import choose, screenshot, start


def _wide_upload():
    rng = np.random.default_rng(2)
    n = 80
    h = 10 ** rng.uniform(-4, 2, n)
    df = pd.DataFrame({"workload": [f"run-{i}" for i in range(n)], "instr": h * 3e9 * rng.uniform(1, 2, n),
                       "loads": h * 1e9 * rng.uniform(1, 2, n), "host_s": h, "cpu_b": h * rng.uniform(0.4, 0.9, n)})
    table, raw, m, notes = uploads.build_dataset(df, {"id_col": "workload", "targets": ["cpu_b"],
                                                      "host_col": "host_s"})
    return datasets.save_dataset(table, "six orders", m, notes, raw)


def test_the_note_says_which_transform_and_why_and_none_is_warned(dash_duo, perfcast_app):
    meta = _wide_upload()
    start(dash_duo, perfcast_app, f"/scenario?dataset={meta['id']}")
    dash_duo.wait_for_contains_text("#scenario-transform-note", "Default transform: log of the ratio to host metric",
                                    timeout=20)
    assert "more than 100x" in dash_duo.find_element("#scenario-transform-note").text
    assert "alert-warning" not in dash_duo.find_element("#scenario-transform-note").get_attribute("innerHTML")
    choose(dash_duo, "#scenario-transform", "none (papers)")
    dash_duo.wait_for_contains_text("#scenario-transform-note", "Transform 'none' fits the target's absolute values",
                                    timeout=15)
    assert "transform=none" in dash_duo.driver.current_url
    screenshot(dash_duo.driver, "scenario_transform_note")
    choose(dash_duo, "#scenario-dataset", "Rodinia on 9 NVIDIA GPUs (shipped)")
    dash_duo.wait_for_text_to_equal("#scenario-transform-note", "", timeout=15)
    # back to the upload: its target takes the rule's default again
    choose(dash_duo, "#scenario-dataset", "six orders (80 workloads)")
    dash_duo.wait_for_contains_text("#scenario-transform", "log of the ratio to host metric", timeout=15)
    dash_duo.wait_for_contains_text("#scenario-transform-note", "Default transform", timeout=15)
    assert "Transform 'none'" not in dash_duo.find_element("#scenario-transform-note").text
