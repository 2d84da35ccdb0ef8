"""Each cross-generation job's result is a typed result (dashboard/crossgen/results.py) that goes through the job
codec (dashboard/jobs/codec.py) and comes back as the same types, drawing the same page and report; a saved
scenario's summary reads back typed, one saved as a plain dict before included."""

import dataclasses

import pytest

from dashboard.crossgen import results as R
from dashboard.crossgen.kinds import APPLY, COMPARE, GENERATIONS, RANKING, SCENARIO, SWEEP, cached
from dashboard.jobs import codec
from dashboard.jobs.progress import silent
from dashboard.state import scenarios
from modeling.crossgen.apply import ApplyResult
from modeling.crossgen.compare import ModelRow, ScenarioComparison, WorkloadComparison, WorkloadRow
from modeling.crossgen.ensemble import EnsembleResult, ModelResult
from modeling.crossgen.ranking import Ranking
from modeling.crossgen.sweep import SweepResult
from modeling.results import Provenance
from tests.dashboard.crossgen.typed import two_target_dataset


def _dataset():
    return two_target_dataset()["id"]


def _save(ds, target, name):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages.scenario import _store

    _, run = cached(SCENARIO, SCENARIO.request({"dataset": ds, "target": target, "folds": "5"})["params"])
    return _store(run, None, name)


def _request(kind, ds):
    if kind is COMPARE:
        a, b = _save(ds, "t_next", "A"), _save(ds, "t_far", "B")
        return COMPARE.request({"a": a["id"], "b": b["id"]})["params"]
    raw = {"scenario": {"target": "t_next", "folds": "5"}, "sweep": {"target": "t_next", "folds": "5"},
           "ranking": {"target": "t_next", "model": "OLS/Forward/BIC"},
           "generations": {"targets": "t_next,t_far", "folds": "5"},
           "apply": {"train_target": "t_next", "val_dataset": ds, "val_target": "t_far", "model": "NNLS"}}[kind.name]
    return kind.request({"dataset": ds, **raw})["params"]


def _html(report) -> bytes:
    return dataclasses.replace(report, generated="-").html()  # the minute it was made aside


def _page(run):
    """What the pages and reports draw from a run: equal for a run and its revived copy."""
    import app  # noqa: F401 - registers the pages
    from dashboard.crossgen import compare_report, compare_views, figures, generations_report, report
    from dashboard.pages import apply, features, generations, scenario

    if isinstance(run, R.ScenarioRun):
        text = "".join(t if isinstance(t, str) else "/predict" for t in scenario.scenario_text(run))
        page = [scenario.draw_all(run, "OLS", ["OLS", "NNLS"], "OLS/Forward/BIC"),
                _html(report.build(run, "link", "s", text, ["OLS"], "f"))]
    elif isinstance(run, R.TreeSweepRun):
        page = [figures.tree_sweep(run.sweep)]
    elif isinstance(run, R.RankingRun):
        page = [features.render_view(run)]
    elif isinstance(run, R.GenerationsRun):
        page = [generations.render_view(run, "t_far"), generations.set_note(run),
                _html(generations_report.build(run, run.params, "link", "d", "f" * 16, None))]
    elif isinstance(run, R.ApplyRun):
        page = [apply._units(run), figures.applied(run)]
    else:
        page = [compare_views.summary(run), compare_views.workload_view(run, None, None),
                _html(compare_report.build(run, "link"))]
    return repr(page)


@pytest.mark.parametrize("kind, typ", [(SCENARIO, R.ScenarioRun), (SWEEP, R.TreeSweepRun), (RANKING, R.RankingRun),
                                       (GENERATIONS, R.GenerationsRun), (APPLY, R.ApplyRun),
                                       (COMPARE, R.CompareRun)],
                         ids=["scenario", "sweep", "ranking", "generations", "apply", "compare"])
def test_every_crossgen_job_result_round_trips_through_the_codec_as_its_types(var, kind, typ):
    ds = _dataset()
    params = _request(kind, ds)
    run = kind.run(params, silent)
    assert type(run) is typ and isinstance(run.provenance, Provenance) and run.provenance.kind == kind.name
    if kind is not COMPARE:
        assert run.provenance.dataset == ds and run.provenance.dataset_name == "two targets"
    back = codec.unpack(codec.pack(run))
    assert type(back) is typ and back == run and codec.pack(back) == codec.pack(run)  # nothing lost or added
    if typ is R.ScenarioRun:
        e = back.ensemble
        assert type(e) is EnsembleResult and all(type(m) is ModelResult for m in e.entries.values())
        assert back.star == run.star and back.best.model == run.best.model and back.categories == run.categories
    elif typ is R.TreeSweepRun:
        assert type(back.sweep) is SweepResult and back.sweep.best_n in back.sweep.n_trees
    elif typ is R.RankingRun:
        assert type(back.ranking) is Ranking and back.ranking.top == run.ranking.top and back.n_workloads == 40
    elif typ is R.GenerationsRun:
        assert [type(r) for r in back.rows] == [R.TargetRow] * 2 and back.lowest == run.lowest
        assert set(back.scenario_keys) == {"t_next", "t_far"} and back.predicted_speedup["t_far"]
    elif typ is R.ApplyRun:
        assert type(back.applied) is ApplyResult and len(back.groups) == back.applied.n_validation
    else:
        c = back.comparison
        assert type(c) is ScenarioComparison and type(c.workloads) is WorkloadComparison
        assert {type(m) for m in c.models} == {ModelRow} and {type(w) for w in c.workloads.rows} == {WorkloadRow}
        assert type(back.a) is R.CompareSide and {type(i) for i in back.inputs} == {R.InputRow}
        assert isinstance(c.star_a, tuple) and c.star_a == run.comparison.star_a
    assert _page(back) == _page(run)


def test_a_generations_row_is_its_scenarios_best_model_and_baseline(var):
    """The best model per target on /generations is the scenario result's own (its properties), not a number
    the page works out again."""
    ds = _dataset()
    run = GENERATIONS.run(_request(GENERATIONS, ds), silent)
    for row in run.rows:
        _, scen = cached(SCENARIO, SCENARIO.request({"dataset": ds, "target": row.target, "folds": "5"})["params"])
        e = scen.ensemble
        assert (row.best_model, row.e_out, row.ir10) == (e.best_model.model, e.best_model.e_out, e.best_model.ir(10))
        assert row.baseline_e_out == e.baseline.e_out and row.best_nnls == e.best_nnls.model
        assert row.baseline_as_good == (e.baseline.e_out <= e.best_model.e_out)
    assert run.lowest.e_out == min(r.e_out for r in run.rows)


def test_a_saved_scenario_reads_typed_and_one_saved_as_a_plain_dict_before_reads_the_same_way(var):
    from dashboard.crossgen.compare_views import saved_options, starred

    ds = _dataset()
    rec = _save(ds, "t_next", "typed")
    _, run = cached(SCENARIO, SCENARIO.request({"dataset": ds, "target": "t_next", "folds": "5"})["params"])
    saved = R.SavedScenario.read(scenarios.load_scenario(rec["id"])["summary"])
    assert saved == R.SavedScenario.of(run) and saved.star == run.star[0] and saved.n_workloads == 40
    old = {"best": "OLS", "e_out": 2810.05, "ir10": 10.0, "star": "NNLS", "star_e_out": 12.345, "n_workloads": 3,
           "query": "?target=t"}  # as /scenario saved it before summaries were typed
    old_rec = scenarios.save_scenario("scenario", rec["params"], old, "old")
    read = R.SavedScenario.read(scenarios.load_scenario(old_rec["id"])["summary"])
    assert type(read) is R.SavedScenario and (read.best, read.star_e_out, read.query) == ("OLS", 12.345, "?target=t")
    assert starred(old) == "★ NNLS E_out 12.35 %"
    assert starred({"best": "OLS", "e_out": 3.0}) == "best model OLS E_out 3.00 % (baseline not recorded)"
    labels = [o["label"] for o in saved_options()]
    assert f"typed (★ {run.star[0]} E_out {run.star[1]:.2f} %)" in labels and "old (★ NNLS E_out 12.35 %)" in labels
    with pytest.raises(R.ResultError):
        R.SavedScenario.read(None)
