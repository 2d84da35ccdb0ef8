"""What /counts shows of the baseline and the ranges' level, as plain functions of a result."""

import numpy as np
import pandas as pd

from dashboard.counts.results import CountsPredictionRun
from dashboard.counts.views import leaderboard_rows, prediction_rows
from modeling.counts import data
from modeling.counts.evaluate import evaluate_program
from modeling.counts.predict import predict_counts
from modeling.counts.table import validate_counts


def _grid(sizes):
    rng = np.random.default_rng(0)
    rows = [{"program": "p", "N": n, "M": m, "block": f"f:{b}",
             "count": round(c * n ** a * m * np.exp(0.05 * rng.standard_normal()))}
            for n in sizes for m in sizes for b, (c, a) in enumerate([(3, 1), (2, 2), (5, 0)])]
    return data.program(validate_counts(pd.DataFrame(rows)), "p")


def test_the_leaderboard_ends_with_the_baseline_and_says_whether_the_best_model_beats_it():
    res = evaluate_program(_grid((8, 16, 24, 32, 40, 48)), "high-low", ("glm", "poly"), curve=False)
    rows = leaderboard_rows(res)
    assert [r["model"] for r in rows] == ["glm", "poly", "baseline"]
    assert rows[-1]["name"] == "size-scaling baseline" and rows[-1]["vs_baseline"] == 1.0
    assert rows[0]["vs_baseline"] == res.models[0].mape / res.baseline.mape
    s = res.summary()
    assert "baseline a careful user would use" in s.lead
    assert ("beats it" in s.lead) == res.beats_baseline


def test_every_range_has_its_level_beside_it_and_an_unsupported_level_is_said():
    prog = _grid((16, 32, 64))  # 3 x 3: fewer than 9 held-out inputs
    pred = predict_counts(prog, [[128, 128]], "glm")
    res = CountsPredictionRun({}, pred, prog.X, prog.Y)
    rows = [r for r in prediction_rows(res) if not r["block"].startswith("total")]
    n = pred.n_hl_test
    assert {r["level"] for r in rows} == {n / (n + 1) * 100}  # a number (percent), the grid formats it
    s = res.summary()
    assert s.fact("level").value.endswith("(90 % not supported)") and "cannot support 90 %" in s.lead
    assert "leave-one-input-out" in s.lead and any("needs at least 9" in n.text for n in s.notes)
    assert all(r["baseline_scales"] for r in rows)
    import statistics

    assert pred.median_error == statistics.median(e for e, h in zip(pred.error, pred.how) if h != "exact")
    assert pred.median_baseline_error == statistics.median(pred.baseline_error)
    assert f"median error over the blocks not exact is {pred.median_baseline_error:.3g} %" in s.lead
