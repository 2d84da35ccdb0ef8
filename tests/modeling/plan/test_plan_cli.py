"""``python -m modeling plan``: the JSON shape, the batch CSV, merged results, and bad input."""

import json

import numpy as np
import pandas as pd
import pytest

from modeling.__main__ import main


def _args(path, *extra):
    return ["plan", "--csv", str(path), "--target", "target", "--host-col", "host_s", "--id", "workload",
            "--group", "application", *extra]


@pytest.fixture()
def csv(tmp_path, frame):
    p = tmp_path / "table.csv"
    frame.to_csv(p, index=False)
    return p


def test_json_shape(csv, capsys, tmp_path):
    out = tmp_path / "batch.csv"
    assert main(_args(csv, "--cost-col", "sim_hours", "--budget", "4", "--strategy", "uncertainty",
                      "--replay-seeds", "1", "--out", str(out), "--json")) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"strategy", "batch", "expected", "replay"} <= set(d)
    assert d["strategy"] == "uncertainty" and len(d["batch"]) == 4
    for b in d["batch"]:
        assert {"id", "rank", "cost", "why", "width"} <= set(b)
    assert [b["rank"] for b in d["batch"]] == [1, 2, 3, 4]
    assert {"error_now", "error_after", "width_now", "width_after"} <= set(d["expected"])
    assert {c["strategy"] for c in d["replay"]} >= {"random", "diversity", "uncertainty", "cost"}
    assert {"hours", "error", "error_sd", "coverage"} <= set(d["replay"][0])
    exported = pd.read_csv(out)  # the list a simulation farm runs: the same ids, ranks and costs
    assert exported["id"].tolist() == [b["id"] for b in d["batch"]]
    assert np.allclose(exported["cost"], [b["cost"] for b in d["batch"]])


def test_slowdown_and_hours_budget(csv, capsys, frame):
    assert main(_args(csv, "--slowdown", "36", "--budget", "5h", "--strategy", "cost", "--json")) == 0
    d = json.loads(capsys.readouterr().out)
    hours = frame.set_index("workload")["host_s"] * 36 / 3600
    assert sum(hours[b["id"]] for b in d["batch"]) <= 5.0 + 1e-9
    assert np.allclose([b["cost"] for b in d["batch"]], [hours[b["id"]] for b in d["batch"]])


def test_results_are_merged_first(csv, tmp_path, capsys, frame):
    res = tmp_path / "results.csv"
    pd.DataFrame({"workload": ["w30", "w31"], "target": [5.0, 6.0]}).to_csv(res, index=False)
    assert main(_args(csv, "--cost-col", "sim_hours", "--budget", "3", "--strategy", "random", "--results",
                      str(res), "--replay-seeds", "1", "--json")) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["n_measured"] == 32 and not {"w30", "w31"} & {b["id"] for b in d["batch"]}


def _fails(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err, err


def test_bad_input_no_candidates(tmp_path, frame, capsys):
    frame["target"] = frame["target"].fillna(2.0)
    p = tmp_path / "t.csv"
    frame.to_csv(p, index=False)
    _fails(capsys, _args(p, "--cost-col", "sim_hours", "--budget", "3"), "No candidates")


def test_bad_input_budget_below_one_workload(csv, capsys, frame):
    _fails(capsys, _args(csv, "--cost-col", "sim_hours", "--budget", "0.0001h"), "below the cheapest candidate")


def test_bad_input_cost_zero(tmp_path, frame, capsys):
    frame.loc[2, "sim_hours"] = 0
    p = tmp_path / "t.csv"
    frame.to_csv(p, index=False)
    _fails(capsys, _args(p, "--cost-col", "sim_hours", "--budget", "3"), "at or below zero (data rows 3)")


def test_bad_input_cost_text(tmp_path, frame, capsys):
    frame["sim_hours"] = frame["sim_hours"].astype(object)
    frame.loc[4, "sim_hours"] = "slow"
    p = tmp_path / "t.csv"
    frame.to_csv(p, index=False)
    _fails(capsys, _args(p, "--cost-col", "sim_hours", "--budget", "3"), "holds text")


def test_bad_input_results_for_unknown_ids(csv, tmp_path, capsys):
    res = tmp_path / "results.csv"
    pd.DataFrame({"workload": ["w30", "w999"], "target": [5.0, 6.0]}).to_csv(res, index=False)
    _fails(capsys, _args(csv, "--cost-col", "sim_hours", "--budget", "3", "--results", str(res)),
           "not workloads of the dataset: w999")


def test_bad_input_no_cost(csv, capsys):
    _fails(capsys, _args(csv, "--budget", "3"), "--cost-col")
