"""``plan --results`` with the farm's own output: joined on the workload key, what did not come back listed
and put first on request, and what the round changed."""

import json

import numpy as np
import pandas as pd
import pytest

from modeling.__main__ import main
from modeling.plan.inputs import PlanInputError
from modeling.plan.loop import read_round
from tests.modeling.plan.conftest import synthetic_frame
from tests.modeling.simulators import simlogs

pytestmark = pytest.mark.slow  # each test plans twice, replays included

PUSH = "GPGPU-Sim PTX: pushing kernel '{}' to stream 0, gridDim= (4,1,1) blockDim = (256,1,1)\n"


def keyed(frame):
    """The synthetic table named as simulator records are keyed: application/NO_ARGS--kernel--0, the target
    in cycles."""
    out = frame.copy()
    out["workload"] = [f"{a}/NO_ARGS--kern{i}--0" for i, a in enumerate(out["application"])]
    out["target"] = (out["target"] * 1000).round()
    return out


def farm_output(folder, ids, truth, cut=None):
    """One GPGPU-Sim log per application with a block per workload of ``ids``; ``cut`` launched last and never
    finished (the run stopped: no exit marker)."""
    folder.mkdir()
    by_app = {}
    for wid in ids:
        by_app.setdefault(wid.split("/")[0], []).append(wid)
    if cut:
        by_app.setdefault(cut.split("/")[0], [])
    for app, wids in by_app.items():
        parts, tc, ti = [simlogs.HEADER], 0, 0
        for uid, wid in enumerate(wids, start=1):
            name = wid.split("--")[1]
            c = int(truth[wid])
            tc, ti = tc + c, ti + 1000
            parts.append(simlogs.block(name, uid, c, 1000, tc, ti, 4 * uid))
        if cut and cut.startswith(app + "/"):
            parts.append(PUSH.format(cut.split("--")[1]))
        else:
            parts.append(simlogs.EXIT)
        (folder / f"{app}.log").write_text("".join(parts))
    return folder


def _args(csv, *extra):
    return ["plan", "--csv", str(csv), "--target", "target", "--host-col", "host_s", "--id", "workload",
            "--group", "application", "--cost-col", "sim_hours", "--replay-seeds", "1", *extra]


@pytest.fixture()
def round1(tmp_path, capsys):
    table = keyed(synthetic_frame())
    truth = dict(zip(table["workload"], keyed(synthetic_frame(measured=90))["target"]))
    csv = tmp_path / "table.csv"
    table.to_csv(csv, index=False)
    assert main(_args(csv, "--budget", "6", "--json")) == 0
    plan1 = tmp_path / "plan1.json"
    plan1.write_text(capsys.readouterr().out)
    batch = [b["id"] for b in json.loads(plan1.read_text())["batch"]]
    return csv, plan1, batch, truth


def test_farm_output_closes_the_loop(round1, tmp_path, capsys):
    csv, plan1, batch, truth = round1
    failed = batch[-1]
    farm = farm_output(tmp_path / "farm", batch[:-1], truth, cut=failed)
    merged = tmp_path / "round2.csv"
    assert main(_args(csv, "--budget", "6", "--results", str(farm), "--results-stat", "cycles", "--previous",
                      str(plan1), "--retry-missing", "--merged-out", str(merged), "--json")) == 0
    d = json.loads(capsys.readouterr().out)
    r = d["results"]
    assert r["statistic"] == "gpu_sim_cycle" and sorted(r["merged"]) == sorted(batch[:-1])
    assert r["join"]["n_matched"] == len(batch) - 1 and not r["join"]["simulated_only"]
    assert [m["id"] for m in r["missing"]] == [failed]
    assert "never finished" in r["missing"][0]["reason"]
    # every value merged is the simulated one, each with the file and dump it came from
    table = pd.read_csv(merged).set_index("workload")
    assert all(table.loc[w, "target"] == int(truth[w]) for w in batch[:-1])
    assert np.isnan(table.loc[failed, "target"])
    assert all(r["sources"][w].split("#")[0].endswith(w.split("/")[0] + ".log") for w in batch[:-1])
    # the workload that did not come back heads the next batch; the rest is new
    assert d["batch"][0]["id"] == failed and "run again" in d["batch"][0]["why"]
    assert not set(b["id"] for b in d["batch"][1:]) & set(batch)
    assert len(d["batch"]) == 6
    c = d["changes"]
    assert c["measured_before"] == 30 and c["measured_now"] == 30 + len(batch) - 1
    assert c["error_before"] == json.loads(plan1.read_text())["expected"]["error_now"]
    assert sorted(m["id"] for m in c["moves"]) == sorted(batch[:-1])
    assert all(m["simulated"] == int(truth[m["id"]]) for m in c["moves"])


def test_farm_output_text_report(round1, tmp_path, capsys):
    csv, plan1, batch, truth = round1
    farm = farm_output(tmp_path / "farm", batch, truth)
    assert main(_args(csv, "--budget", "4", "--results", str(farm), "--results-stat", "gpu_sim_cycle",
                      "--previous", str(plan1))) == 0
    out = capsys.readouterr().out
    assert f"results: {len(batch)} workload(s) given gpu_sim_cycle" in out
    assert f"join: {len(batch)} matched, 0 simulated records not in the table" in out
    assert "Simulated workloads 30 → 36" in out


def test_records_not_in_the_table_and_configurations(round1, tmp_path):
    csv, plan1, batch, truth = round1
    frame = pd.read_csv(csv)
    farm = farm_output(tmp_path / "farm", batch[:2] + ["alpha/NO_ARGS--stranger--0"], {**truth,
                                                          "alpha/NO_ARGS--stranger--0": 5000})
    out, res = read_round([str(farm)], frame, "workload", "target", statistic="cycles", batch_ids=batch)
    assert res.join["simulated_only"] and "stranger" in res.join["simulated_only"][0]
    assert sorted(res.merged) == sorted(batch[:2])
    assert [m.id for m in res.missing] == batch[2:]
    assert all(m.reason == "no simulator output for it" for m in res.missing)
    # a value the table already holds is kept, not overwritten
    done = frame.loc[frame["target"].notna(), "workload"].iloc[0]
    farm2 = farm_output(tmp_path / "farm2", [done], {done: 1.0})
    out2, res2 = read_round([str(farm2)], frame, "workload", "target", statistic="cycles")
    assert res2.already == [done] and out2.loc[out2["workload"] == done, "target"].iloc[0] != 1.0
    # two configurations: refused until one is chosen
    other = farm_output(tmp_path / "farm3", batch[2:3], truth)
    log = (other / f"{batch[2].split('/')[0]}.log")
    log.write_text(log.read_text().replace("-gpgpu_n_clusters                      80",
                                           "-gpgpu_n_clusters                      40"))
    with pytest.raises(PlanInputError, match="2 simulated configurations"):
        read_round([str(farm), str(other)], frame, "workload", "target", statistic="cycles")


def test_loop_options_refused(round1, tmp_path, capsys):
    csv, plan1, batch, truth = round1
    assert main(_args(csv, "--budget", "4", "--retry-missing")) == 2
    assert "--previous" in capsys.readouterr().err
    assert main(_args(csv, "--budget", "4", "--results-stat", "cycles")) == 2
    assert "--results" in capsys.readouterr().err


def test_retry_missing_with_a_table_of_results_or_none(round1, tmp_path, capsys):
    """--retry-missing also puts first the batch's workloads a table of ids and values left without a value, and
    with no results at all the whole last batch (it was silently ignored unless the results were simulator
    output)."""
    csv, plan1, batch, truth = round1
    failed = batch[-1]
    results = tmp_path / "results.csv"
    pd.DataFrame({"workload": batch[:-1], "target": [truth[w] for w in batch[:-1]]}).to_csv(results, index=False)
    assert main(_args(csv, "--budget", "6", "--results", str(results), "--previous", str(plan1),
                      "--retry-missing", "--json")) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["batch"][0]["id"] == failed and "run again" in d["batch"][0]["why"]
    assert not set(b["id"] for b in d["batch"][1:]) & set(batch)
    assert main(_args(csv, "--budget", "6", "--previous", str(plan1), "--retry-missing", "--json")) == 0
    d = json.loads(capsys.readouterr().out)
    assert sorted(b["id"] for b in d["batch"]) == sorted(batch)
    assert all("run again" in b["why"] for b in d["batch"])
