"""The leaderboard says who wins (the baseline included) and why odd numbers are what they are."""

from dashboard.crossgen import leaderboard, work
from dashboard.crossgen.kinds import SCENARIO


def test_unseen_applications_the_baseline_wins_and_the_star_says_so():
    params = SCENARIO.request({"host": "GTX-680", "target": "GTX-980", "cv": "logo"})["params"]
    res = work.scenario_result(params)
    best_model = min(m["e_out"] for m in res["models"])
    assert res["baseline"]["e_out"] <= best_model  # measured: no HALWPE model beats it here
    assert leaderboard.baseline_wins(res) and leaderboard.winner(res)[0] == res["baseline"]["model"]
    rows = leaderboard.leaderboard_rows(res)
    starred = [r["model"] for r in rows if r["mark"] == "★"]
    assert starred == [res["baseline"]["model"]]
    ols = next(r for r in rows if r["model"] == "OLS")
    assert "workloads carry" in ols["note"] and "the median workload is off by" in ols["note"]


def _res(apes, n_selected=3, e_in=5.0):
    ids = [f"w{i}" for i in range(len(apes))]
    m = {"model": "OLS/Forward/BIC", "e_out": sum(apes) / len(apes), "e_out_fold_mean": 1.0, "e_in": e_in,
         "inlier_ratio": {"10": 50.0, "20": 60.0}, "n_selected": n_selected, "n_available": 40,
         "fit_seconds": 0.1, "ape": apes}
    base = {"model": "Baseline", "e_out": 1000.0, "e_out_fold_mean": 1.0, "e_in": 1.0, "n_selected": 1,
            "n_available": 40, "fit_seconds": 0.0, "inlier_ratio": {"10": 0.0, "20": 0.0}, "ape": [1.0] * len(apes)}
    return {"models": [m], "baseline": base, "best": {"overall": m["model"], "nnls": None}, "n_workloads": len(apes),
            "workload_ids": ids, "scenario": {"folds": 10}}, m


def test_notes_name_the_workloads_that_dominate_and_the_poor_in_sample_fit():
    apes = [1.0] * 20 + [500.0, 300.0, 200.0]
    res, m = _res(apes, e_in=120.0)
    notes = leaderboard.model_notes(m, res)
    assert any(n.startswith("2 of 23 workloads carry") and "w20 (500 %)" in n and "w21 (300 %)" in n
               and "the median workload is off by 1.0 %" in n for n in notes)
    assert any("poor even in sample (E_in 120 %)" in n for n in notes)
    calm, m2 = _res([10.0] * 23)
    assert leaderboard.model_notes(m2, calm) == []
    saturated, m3 = _res([10.0] * 23, n_selected=20)
    assert any(n.startswith("saturated: 20 features") for n in leaderboard.model_notes(m3, saturated))
