"""/plan as plain functions: the job kind's parameters and checks (bad input refused before a job starts, with
the planner's message), the work on an uploaded and on the shipped dataset, a finished batch merged into a
new dataset version and what it changed, the views, the figure, the export and the report."""

import io

import numpy as np
import pandas as pd
import pytest

from dashboard.jobs import codec
from dashboard.jobs.progress import silent
from dashboard.plan import views, work
from dashboard.plan.figures import replay
from dashboard.plan.kinds import PLAN, Refused
from modeling.plan.loop import RoundChange, RoundMove
from dashboard.state import datasets
from dashboard.ui.url_state import InvalidParameter
from modeling.plan.inputs import PlanInputError, parse_budget, read_plan_table
from modeling.plan.planner import plan
from tests.dashboard.plan.plan_table import plan_frame, save

FAST = {"strategy": "diversity"}


@pytest.fixture()
def uploaded(var):
    return save(plan_frame())


def _params(ds_id, **kw):
    return PLAN.request({"dataset": ds_id, "cost": "sim_hours", **FAST, **kw})["params"]


def test_defaults_and_choices(uploaded):
    p = PLAN.request({})["params"]
    assert (p["dataset"], p["host"], p["target"], p["metric"], p["cost"], p["budget_kind"], p["strategy"]) == \
        ("rodinia", "GTX-680", "GTX-970", "duration", "slowdown", "workloads", "auto")
    p = PLAN.request({"dataset": uploaded["id"]})["params"]
    assert p["target"] == "sim_cycles" and p["cost"] == "slowdown"  # the dataset has a host column
    opts = work.cost_choices(datasets.get(uploaded["id"]), p["host"], p["target"], p["metric"])
    assert opts[0] == "slowdown" and "sim_hours" in opts and "sim_cycles" not in opts and "workload" not in opts
    for bad in ({"strategy": "greedy"}, {"budget_kind": "days"}, {"budget": -1}, {"situation": "x"},
                {"cost": "application"}, {"slowdown": 0}):
        with pytest.raises(InvalidParameter):
            PLAN.request({"dataset": uploaded["id"], **bad})


def test_bad_input_is_refused_with_the_planners_message(var):
    f = plan_frame()
    cases = {
        "No candidates": f.assign(sim_cycles=f["truth"]),
        "at or below zero": f.assign(sim_hours=f["sim_hours"].where(f.index != 4, 0.0)),
        "empty or infinite": f.assign(sim_hours=f["sim_hours"].where(f.index != 7, np.nan)),
    }
    for text, frame in cases.items():
        ds = save(frame)
        with pytest.raises(Refused, match=text):
            PLAN.request({"dataset": ds["id"], "cost": "sim_hours"})
    ds = save(f)
    with pytest.raises(Refused, match="below the cheapest candidate's cost"):
        PLAN.request({"dataset": ds["id"], "cost": "sim_hours", "budget_kind": "hours", "budget": 0.01})
    with pytest.raises(Refused, match="whole number"):
        PLAN.request({"dataset": ds["id"], "budget": 2.5})


def test_the_page_shows_what_the_library_plans(uploaded):
    params = _params(uploaded["id"], budget=6)
    res = PLAN.run(params, silent)
    page = codec.unpack(codec.pack(res))  # as the job cache keeps it and reads it back: the same types
    assert type(page) is views.PlanPage and codec.pack(page) == codec.pack(res)
    assert page.provenance.dataset == uploaded["id"] and page.provenance.kind == "plan"
    frame = plan_frame().drop(columns=["truth"])
    table = read_plan_table(frame, "sim_cycles", "workload", host_col="host_s", group_col="application",
                            cost_col="sim_hours", features=["host_s", "inst", "c1", "c2", "c3"])
    lib = plan(table, parse_budget("6"), strategy="diversity", level=0.9, seed=0)
    assert page.plan == lib
    rows = views.batch_rows(page)
    assert [r["id"] for r in rows] == [b.id for b in lib.batch] and [r["rank"] for r in rows] == list(range(1, 7))
    assert all(r["why"] and r["cost_hours"] > 0 for r in rows)
    s = page.summary()
    f = {x.key: x.text for x in s.facts}
    assert f["batch-size"].startswith("6 workloads, ") and f["counts"] == "30 / 30"
    assert f["strategy-used"].startswith("diversity")
    words = s.lead
    assert "Simulating these 6 workloads costs" in words
    if lib.expected.error_after is None:  # this table's diversity replay: the error rose round after round
        assert "did not fall" in words and "^ -0.00" not in words and "→" not in f["error"]
    else:
        assert "→" in f["error"] and "mean |log error| goes from" in words
    assert ("min" in words or " h" in words) and "% off" in words
    series = views.replay_series(page)
    assert {s["strategy"] for s in series} == {c.strategy for c in lib.replay}
    assert [s["chosen"] for s in series].count(True) == 1
    fig = replay(series, "simulator hours spent", views.replay_title(page))
    assert len(fig["data"]) == len(lib.replay) and fig["data"][0]["error_y"]["visible"]
    data, name = views.export_bytes(page)
    got = pd.read_csv(io.BytesIO(data))
    assert name.endswith(".csv") and got["id"].tolist() == [b.id for b in lib.batch]
    assert got["cost_hours"].tolist() == pytest.approx([b.cost for b in lib.batch])
    assert set(got["dataset"]) == {uploaded["id"]} and got["code_version"].notna().all()
    assert page.round is None and views.round_rows(page) == [] and s.table("round") is None
    assert s.table("batch").records() == rows


def test_a_batchs_results_make_a_new_version_and_the_next_round_says_what_changed(uploaded):
    params = _params(uploaded["id"], budget=8)
    first = PLAN.run(params, silent)
    truth = plan_frame().set_index("workload")["truth"]
    ids = [b.id for b in first.plan.batch]
    results = pd.DataFrame({"workload": ids, "sim_cycles": truth[ids].to_numpy()})
    meta = work.merge_upload(params, results, first.plan)
    assert meta["id"] != uploaded["id"] and sorted(meta["merged_ids"]) == sorted(ids) and meta["already"] == 0
    assert datasets.dataset_table(uploaded["id"])["sim_cycles"].notna().sum() == 30  # the old version is kept
    assert datasets.get(meta["id"]).name == "plan table, round 2"
    second = codec.unpack(codec.pack(PLAN.run({**params, "dataset": meta["id"]}, silent)))
    assert type(second.round) is RoundChange and all(type(w) is RoundMove for w in second.round.moves)
    assert second.plan.n_measured == 38 and second.plan.n_candidates == 22
    assert not set(ids) & {b.id for b in second.plan.batch}
    said = {d.key: d.value for d in second.summary().details}["round-change"]
    assert second.round.round == 2 and "Round 2: 8 simulated values were merged" in said
    assert f"went from {first.plan.expected.error_now:.4g}" in said
    rows = views.round_rows(second)
    assert sorted(r["id"] for r in rows) == sorted(ids)
    moves = [abs(np.log(r["ratio"])) for r in rows]
    assert moves == sorted(moves, reverse=True)
    for r in rows:
        assert r["simulated"] == pytest.approx(truth[r["id"]])
        assert r["ratio"] == pytest.approx(truth[r["id"]] / r["predicted"])


def test_results_for_ids_not_in_the_dataset_are_refused_and_nothing_is_saved(uploaded):
    params = _params(uploaded["id"])
    before = len(datasets.list_datasets())
    with pytest.raises(PlanInputError, match="not workloads of the dataset: nope-1"):
        work.merge_upload(params, pd.DataFrame({"workload": ["alpha-0", "nope-1"], "value": [1.0, 2.0]}), None)
    assert len(datasets.list_datasets()) == before


def test_the_shipped_data_plans_on_the_workloads_the_target_did_not_run(var):
    params = PLAN.request({"budget": 5, "strategy": "diversity"})["params"]
    table = work.table_of(params)
    assert table.candidates.sum() == 32 and table.measured.sum() == 251 and table.cost_source.startswith("duration")


def test_the_report_carries_the_batch_the_chart_and_the_provenance(uploaded):
    from dashboard.plan.report import build

    page = PLAN.run(_params(uploaded["id"], budget=4), silent)
    html = build(page, "http://127.0.0.1:8050/plan?x=1").html().decode()
    assert all(b.id in html for b in page.plan.batch) and "chart-0" in html
    assert page.provenance.code_version in html and "What the numbers mean" in html and "Simulating these" in html


def test_forged_form_values_give_the_cost_choices_of_nothing_rather_than_an_error(uploaded):
    from dashboard.plan.kinds import cost_choices

    for forged in (["x"], {"a": 1}):
        assert cost_choices({"dataset": uploaded["id"], "host": "table", "target": forged, "metric": "value"}) == \
            ["slowdown"]


def test_results_on_the_shipped_data_make_an_uploaded_version_to_plan_on(var):
    params = PLAN.request({"budget": 3})["params"]
    table = work.table_of(params)
    ids = list(table.ids[table.candidates][:3])
    meta = work.merge_upload(params, pd.DataFrame({"workload": ids, "value": [1e-3, 2e-3, 3e-3]}), None)
    ds = datasets.get(meta["id"])
    assert ds.kind == "upload" and ds.name == "GTX-680 → GTX-970 (duration), round 2" and ds.unit("value") == "s"
    nxt = PLAN.request({"dataset": meta["id"], "budget": 3})["params"]
    assert (nxt["target"], nxt["cost"], nxt["slowdown"]) == ("duration@GTX-970", "slowdown", params["slowdown"])
    t2 = work.table_of(nxt)
    assert (t2.measured.sum(), t2.candidates.sum()) == (254, 29) and t2.feature_names == table.feature_names
    assert np.allclose(t2.cost, table.cost)  # the same host time and slowdown


def test_page_and_command_line_give_the_same_batch_in_hours_on_heavy_tailed_costs(var, tmp_path, capsys):
    """Costs over six orders of magnitude, two dearer than the budget: the page and ``python -m modeling plan``
    give the same batch, mostly the strategy's, with the random slice within its stated share of the hours."""
    import json

    from scipy.stats import norm, rankdata

    from modeling.__main__ import main

    f = plan_frame(n=120, measured=40)
    z = norm.ppf((rankdata(f["host_s"], method="ordinal") - 0.5) / len(f))
    f["sim_hours"] = 0.03 * np.exp(2.5 * z)
    f.loc[f["sim_hours"].nlargest(2).index, "sim_hours"] = [40.0, 30.0]
    ds = save(f, "heavy costs")
    res = PLAN.run(PLAN.request({"dataset": ds["id"], "cost": "sim_hours", "budget_kind": "hours", "budget": 8,
                                 "strategy": "auto"})["params"], silent)
    page = codec.unpack(codec.pack(res))
    path = tmp_path / "heavy.csv"
    f.drop(columns=["truth"]).to_csv(path, index=False)
    assert main(["plan", "--csv", str(path), "--target", "sim_cycles", "--host-col", "host_s", "--id", "workload",
                 "--group", "application", "--cost-col", "sim_hours", "--budget", "8h", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert [b.id for b in page.plan.batch] == [b["id"] for b in cli["batch"]]
    assert page.plan.strategy == cli["strategy"] and page.plan.expected.basis == cli["expected"]["basis"]
    cal = [b for b in page.plan.batch if b.calibration]
    assert sum(b.cost for b in cal) <= 0.2 * 8 + 1e-9 and len(cal) <= 0.2 * len(page.plan.batch) + 1
    assert "at most 20% of the batch's hours" in page.summary().provenance_text
    if any(c.ran_out for c in page.plan.replay):
        assert "ran out of workloads" in views.replay_title(page)
