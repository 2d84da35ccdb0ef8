"""Generations (with the model-vs-simulator chart) and feature ranking on an uploaded dataset."""

import re

import numpy as np
import pandas as pd

from dashboard.state import datasets, uploads
from modeling.crossgen.ensemble import prepare
from modeling.crossgen.ranking import rank_features
from modeling.tables.workload import table_scenario
from pc_browser import screenshot, start, wait_text


def _upload_like_a_user():
    """A 60-workload table from two applications with two targets and simulator times."""
    rng = np.random.default_rng(7)
    n = 60
    df = pd.DataFrame({"workload": [f"frame-{i:03d}" for i in range(n)],
                       "application": np.where(np.arange(n) < 30, "game-a", "game-b"),
                       "alu": rng.uniform(1e6, 5e6, n), "tex": rng.uniform(1e5, 9e5, n),
                       "mem": rng.uniform(1e4, 5e4, n)})
    df["host_cpf"] = 2e-3 * df.alu + 5e-3 * df.tex + rng.normal(0, 50, n) + 3000
    df["gpu_b"] = 0.6 * df.host_cpf + 1e-3 * df.mem + rng.normal(0, 20, n)
    df["gpu_c"] = 0.4 * df.host_cpf + 2e-3 * df.tex + rng.normal(0, 20, n)
    df["host_time"] = rng.uniform(0.02, 0.05, n)
    df["sim_time@gpu_b"] = rng.uniform(300, 900, n)
    df["sim_time@gpu_c"] = rng.uniform(600, 1800, n)
    table = uploads.parse_upload(df.to_csv(index=False).encode(), "frames.csv")
    guess = uploads.guess_mapping(table)
    mapping = {"id_col": guess["id_col"], "group_col": guess["group_col"], "targets": ["gpu_b", "gpu_c"],
               "host_col": "host_cpf", "host_time_col": guess["host_time_col"], "sim_cols": guess["sim_cols"]}
    built, raw, m, notes = uploads.build_dataset(table.frame, mapping)
    return datasets.save_dataset(built, "frames <b>upload</b>", m, notes, raw), built


def test_generations_and_features_on_an_upload(dash_duo, perfcast_app):
    meta, table = _upload_like_a_user()
    start(dash_duo, perfcast_app, f"/generations?dataset={meta['id']}&host=table&targets=gpu_b,gpu_c"
                                  "&preset=halwpe&left=gpu_b&right=gpu_c")
    dash_duo.wait_for_contains_text("#generations-summary-grid", "gpu_c", timeout=240)
    dash_duo.wait_for_element("#generations-sim-graph .scatterlayer .trace", timeout=30)
    names = dash_duo.driver.execute_script(
        "return document.querySelector('#generations-sim-graph .js-plotly-plot').data.map(t => t.name);")
    want = (table["sim_time@gpu_c"] / table["host_time"]).mean()
    shown = float(re.search(r"gpu_c: mean ([\d,]+)×", " ".join(names)).group(1).replace(",", ""))
    assert abs(shown - want) <= 0.5
    screenshot(dash_duo.driver, "generations_upload")

    dash_duo.driver.get(dash_duo.server_url + f"/features?dataset={meta['id']}&host=table&target=gpu_b"
                                              "&model=OLS/Forward/BIC")
    top = wait_text(dash_duo, "#features-top-feature", timeout=120)
    s = table_scenario(table, "gpu_b", "application", "workload", meta["mapping"]["features"], "host_cpf")
    d = prepare(s["X"], s["y"], s["feature_names"], s["workload_ids"], s["groups"], True, s["host_index"])
    assert top == rank_features(d["X"], d["y"], d["names"], "OLS/Forward/BIC", seed=0).features[0]["feature"]
    # the dataset's name, with markup in it, is shown as text
    assert "frames <b>upload</b>" in dash_duo.find_element("#features-dataset").text
