"""Two saved scenarios compared as a background job (dashboard/crossgen/kinds.py COMPARE): what it refuses and
what it computes, against the two scenario results read here."""

import pytest

from dashboard.crossgen.compare_views import saved_options, starred, summary, workload_view
from dashboard.crossgen.kinds import COMPARE, SCENARIO, cached
from dashboard.state import datasets, scenarios
from dashboard.ui.url_state import InvalidParameter
from tests.dashboard.crossgen.typed import two_target_dataset


def _dataset():
    return two_target_dataset()


def _save(ds_id, target, name):
    params = SCENARIO.request({"dataset": ds_id, "target": target, "preset": "halwpe", "folds": "5"})["params"]
    _, run = cached(SCENARIO, params)
    res = run.ensemble
    entries = [(m.e_out, m.model) for m in res.models] + [(res.baseline.e_out, res.baseline.model)]
    e, star = min(entries)
    # a summary as saved before summaries were typed (a plain dict): /compare reads it all the same
    rec = scenarios.save_scenario("scenario", params, {"best": res.best_model.model, "e_out": 0.0, "star": star,
                                                       "star_e_out": e}, name)
    return rec, res


def test_compare_two_saved_scenarios(var):
    ds = _dataset()
    a, ra = _save(ds["id"], "t_next", "next")
    b, rb = _save(ds["id"], "t_far", "far")
    with pytest.raises(InvalidParameter, match="other than A"):
        COMPARE.request({"a": a["id"], "b": a["id"]})
    with pytest.raises(InvalidParameter):
        COMPARE.request({"a": a["id"], "b": "sc-0123456789abcdef"})
    req = COMPARE.request({"a": a["id"], "b": b["id"]})
    assert req["key"] != COMPARE.request({"a": b["id"], "b": a["id"]})["key"]
    _, res = cached(COMPARE, req["params"])
    assert {r.input for r in res.inputs if r.differs} == {"target"}
    e_a = {m.model: m.e_out for m in ra.models} | {ra.baseline.model: ra.baseline.e_out}
    e_b = {m.model: m.e_out for m in rb.models} | {rb.baseline.model: rb.baseline.e_out}
    rows = {m.model: m for m in res.comparison.models}
    assert set(rows) == set(e_a) == set(e_b)
    for name, r in rows.items():
        assert r.e_out_a == pytest.approx(e_a[name]) and r.delta == pytest.approx(e_b[name] - e_a[name])
    assert res.comparison.star_a[0] == min(e_a, key=e_a.get)
    assert res.comparison.star_b[0] == min(e_b, key=e_b.get)
    # the page's per-workload view of RandomForest in both, against the two results' own APE
    fig, top, verdict = workload_view(res, "RandomForest", "RandomForest")
    ape_a = dict(zip(ra.workload_ids, ra.model("RandomForest").ape))
    ape_b = dict(zip(rb.workload_ids, rb.model("RandomForest").ape))
    shared = sorted(set(ape_a) & set(ape_b))
    closer_b = sum(ape_b[w] < ape_a[w] for w in shared)
    assert f"Of the {len(shared)} workloads both runs scored, B (RandomForest) is closer on {closer_b}," in \
        "".join(t for t in verdict if isinstance(t, str))
    assert len(fig["data"][1]["x"]) == len(shared)
    gaps = sorted((abs(ape_b[w] - ape_a[w]) for w in shared), reverse=True)[:12]
    assert [r["gap"] for r in top] == pytest.approx(gaps)
    head, inputs, models = summary(res)
    assert [m["marks"] for m in models if m["marks"]] and len(models) == len(rows)
    # the dropdowns list both with their star
    labels = [o["label"] for o in saved_options()]
    assert any(lab.startswith("next (★ ") for lab in labels) and any(lab.startswith("far (★ ") for lab in labels)


def test_a_saved_scenario_whose_dataset_is_gone_is_refused_with_its_name(var):
    ds = _dataset()
    a, _ = _save(ds["id"], "t_next", "next")
    b, _ = _save(ds["id"], "t_far", "far")
    datasets.delete_dataset(ds["id"])
    with pytest.raises(InvalidParameter, match="'next' can no longer run"):
        COMPARE.request({"a": a["id"], "b": b["id"]})


def test_the_starred_entry_of_a_saved_scenario():
    assert starred({"star": "Baseline (host x median ratio)", "star_e_out": 12.345, "best": "OLS", "e_out": 2810.05}) \
        == "★ Baseline (host x median ratio) E_out 12.35 %"
    assert starred({"best": "NNLS/Forward/AIC", "e_out": 2810.05}) == \
        "best model NNLS/Forward/AIC E_out 2810.05 % (baseline not recorded)"


def test_by_default_the_earlier_of_the_two_newest_saves_is_a(var):
    from dashboard.ui.url_state import parse_or_default

    ds = _dataset()
    first, _ = _save(ds["id"], "t_next", "A first")
    second, _ = _save(ds["id"], "t_far", "B second")
    v, error = parse_or_default({}, list(COMPARE.params))
    assert not error and (v["a"], v["b"]) == (first["id"], second["id"])


def test_the_compare_report_carries_both_leaderboards_and_the_names(var):
    from dashboard.crossgen.compare_report import build

    ds = _dataset()
    a, ra = _save(ds["id"], "t_next", "next <b>")
    b, rb = _save(ds["id"], "t_far", "far")
    req = COMPARE.request({"a": a["id"], "b": b["id"]})
    _, res = cached(COMPARE, req["params"])
    text = build(res, "http://x/compare").html().decode()
    assert "next &lt;b&gt;" in text and "next <b>" not in text
    for m in res.comparison.models:
        assert f"<td>{m.model}</td><td>{m.e_out_a:.4g}</td><td>{m.e_out_b:.4g}</td>" in text
    assert f"Of the {res.comparison.workloads.n_shared} workloads both runs scored" in text
