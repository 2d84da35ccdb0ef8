"""LACross on planted phase tables: the models recover a known non-negative linear target, baselines do
not; neighbourhood fallbacks are flagged; the unique-phase cache reuses solutions; the CLI's JSON."""

import json

import numpy as np
import pandas as pd
import pytest

from tests import cli

from modeling.phases.evaluate import evaluate
from modeling.phases.model import predict, unique_representatives



def planted(n_prog=8, per=30, seed=0):
    """Phases whose target cycles are 0.7 x host cycles + 40 x L1D refills (non-negative, linear)."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n_prog):
        base = rng.uniform(0.5, 2.0)
        for _ in range(per):
            instr = 2e9
            cyc = instr * base * rng.uniform(0.9, 1.1)
            refill = instr * rng.uniform(1e-4, 5e-3) * (1 + p / 4)
            rows.append({"program": f"p{p}", "host_INST_RETIRED": instr, "host_CPU_CYCLES": cyc,
                         "host_L1D_CACHE_REFILL": refill, "host_BRANCH_PRED": instr * rng.uniform(0.1, 0.2),
                         "host_time_s": cyc / 1e9, "host_power_w": rng.uniform(0.5, 0.6),
                         "target_cycles": 0.7 * cyc + 40 * refill, "target_time_s": (0.7 * cyc + 40 * refill) / 2e9,
                         "target_power_w": 1.0 + 100 * refill / instr})
    return pd.DataFrame(rows)


def test_planted_linear_target_is_recovered_and_beats_the_baselines():
    res = evaluate(planted(), "cycles", "counters", "raw", eps="cv", t="cv", folds=4)
    mape = {m.model: m.per_phase_mape for m in res.models}
    assert mape["global"] < 1e-3 and mape["nnls-baseline"] < 1e-3
    assert mape["lacross"] < 0.5
    assert mape["ratio-baseline"] > 5 * max(mape["lacross"], 0.1)
    assert res.n_programs == 8 and len(res.programs) == 8 and len(res.chosen) == 4
    assert res.best.model in ("global", "nnls-baseline") and res.cli_json()["best_model"] == res.best.model


def test_small_neighbourhoods_fall_back_and_are_flagged():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = X @ np.array([0.5, 0.2, 0.0]) + 5
    X = np.hstack([X, np.ones((200, 1))])
    V = np.vstack([X[:5], [[40.0, 40.0, 40.0, 1.0]]])  # the last is far from every training phase
    p = predict(X, y, V, eps_pct=50.0, t_factor=np.inf)
    assert p.fallback[-1] and not p.fallback[:5].any()
    assert np.all(np.isfinite(p.pred))


def test_the_unique_phase_cache_reuses_a_close_phase():
    V = np.array([[0.0, 0.0], [0.01, 0.0], [1.0, 1.0], [1.0, 1.02], [0.0, 0.04]])
    assert unique_representatives(V, 0.05).tolist() == [0, 0, 2, 2, 0]
    assert unique_representatives(V, 0.0).tolist() == [0, 1, 2, 3, 4]
    X = np.abs(np.random.default_rng(2).normal(size=(100, 2))) + 0.1
    y = X @ np.array([1.0, 2.0])
    p = predict(X, y, V + 0.5, eps_pct=50.0, t_factor=2.0, cache_l=0.05)
    assert p.hit_rate == pytest.approx(3 / 5) and p.n_solved == 2


def test_cli_json_on_the_shipped_traces():
    r = cli.run_cli("phases", "--host-freq", "1000", "--target-freq", "2000", "--target", "cycles", "--eps", "100",
                    "--T", "1", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["n_programs"] == 30 and d["n_phases"] == 982 and d["excluded_runs"] == []
    names = [m["model"] for m in d["models"]]
    assert names == ["lacross", "global", "nnls-baseline", "ratio-baseline", "program-ratio", "mean-baseline"]
    m = {x["model"]: x for x in d["models"]}
    assert m["lacross"]["per_phase_mape"] < m["ratio-baseline"]["per_phase_mape"] < m["mean-baseline"]["per_phase_mape"]
    r = cli.run_cli("phases", "--granularity", "1e9")
    assert r.returncode == 2 and "finer than one sample" in r.stderr and "Traceback" not in r.stderr


def test_cli_smoke_subprocess():
    """``python -m modeling phases`` as a user starts it: a refusal is a message and exit code 2."""
    r = cli.run_subprocess("phases", "--granularity", "1e9", timeout=120)
    assert r.returncode == 2 and "finer than one sample" in r.stderr and "Traceback" not in r.stderr


def test_cli_reports_what_the_unique_phase_cache_costs():
    r = cli.run_cli("phases", "--eps", "50", "--T", "2", "--cache-l", "0.1", "--folds", "2", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["unique_hit_rate"] > 0.5
    c = d["cache_cost"]
    assert c["change"] == pytest.approx(c["lacross_mape_with_cache"] - c["lacross_mape_without_cache"])


def test_models_equal_at_the_decimals_shown_are_named_tied_not_one_of_them_lowest():
    """With eps at the 100th percentile LACross is the global NNLS model, the same to the eleventh digit: the
    summary once named the NNLS baseline alone "lowest" by a difference of 2.5e-11 points."""
    from modeling.phases.results import PhaseEvaluation, PhaseModelScore

    scores = [PhaseModelScore("lacross", 5.1045572004023745, 6.3, 18.1),
              PhaseModelScore("global", 5.1045572004023745, 6.3, 18.1),
              PhaseModelScore("nnls-baseline", 5.104557200377835, 6.3, 18.1),
              PhaseModelScore("ratio-baseline", 7.02, 5.97, 23.9)]
    ev = PhaseEvaluation("cycles", "counters", "z", 5, 0, 30, 982, 0.0, 0.0, None, 0, [], scores, [], {}, 1.0)
    assert ev.best.model == "nnls-baseline"  # the JSON's best_model: the least to the last digit, as before
    s = ev.summary("shipped: 1000 → 2000 MHz", 2e9)
    assert s.fact("best").value == "LACross, global model, NNLS baseline (tied)"
    scores[2] = PhaseModelScore("nnls-baseline", 5.09, 6.3, 18.1)
    assert PhaseEvaluation(*[getattr(ev, f) for f in ("target", "features", "norm", "folds", "seed", "n_programs",
                                                      "n_phases", "unique_hit_rate", "cache_l", "phases_per_second",
                                                      "fallback_phases", "chosen")], scores, [], {},
                           1.0).summary("x").fact("best").value == "NNLS baseline"
