"""Counts at inputs never run: exact polynomials beyond the measured range, a GLM monomial by hand, the range
rule, input validation, the held-out benchmark never reads the held-out counts, CLI JSON = the library."""

import io
import json
import math
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

from modeling.__main__ import main
from modeling.counts import data
from modeling.counts import models as M
from modeling.counts.data import Program
from modeling.counts.predict import MAX_POINTS, RANGE_FLOOR, parse_inputs, predict_counts
from modeling.counts.splits import split
from modeling.errors import DataError, ModelingError


def _table(rows) -> pd.DataFrame:
    from modeling.counts.table import validate_counts

    return validate_counts(pd.DataFrame(rows))


def _loops():
    """Two loop counts that are integer polynomials (one with a 1/2 coefficient) and a monomial N^1.5."""
    rows = []
    for n in range(8, 65, 8):
        for m in range(4, 33, 4):
            rows += [{"program": "p", "N": n, "M": m, "block": "f:0", "count": n * m * (n + 1) // 2},
                     {"program": "p", "N": n, "M": m, "block": "f:1", "count": 3 * n * n + m + 1}]
    return data.program(_table(rows), "p")


def test_an_exact_polynomial_predicts_the_count_exactly_far_beyond_the_measured_range():
    prog = _loops()
    X = parse_inputs(["N=1000000,M=100000", "N=12345 x M=7,9"], prog.params)
    res = predict_counts(prog, X, "best")
    assert res.how == ["exact", "exact"] and res.irregular == [None, None]
    for i, (n, m) in enumerate(X.astype(int).tolist()):
        want = [n * m * (n + 1) // 2, 3 * n * n + m + 1]
        assert res.predicted[i].tolist() == [float(w) for w in want]
        assert res.lower[i].tolist() == res.upper[i].tolist() == res.predicted[i].tolist()  # the point itself
    assert res.formulas["f:1"] == "1 + M + 3·N^2"
    assert res.level == [1.0, 1.0]
    assert math.exp(res.beyond[0]) == pytest.approx(1_000_000 / 64 * 100_000 / 32)


def _monomial():
    """count = 5 N^1.5 at perfect squares N = k^2 (whole counts 5 k^3): a monomial, not a polynomial in N."""
    rows = [{"program": "q", "N": k * k, "block": "g:0", "count": 5 * k ** 3} for k in range(3, 40)]
    return data.program(_table(rows), "q")


def test_the_glm_reproduces_a_monomial_by_hand_and_best_picks_it():
    prog = _monomial()
    res = predict_counts(prog, [[1e6], [2.5e7]], "glm")
    assert res.how == ["glm"]
    assert res.predicted[:, 0] == pytest.approx([5 * 1e9, 5 * 2.5e7 ** 1.5], rel=1e-6)  # 5 N^1.5 by hand
    assert res.error[0] < 1e-4 and res.irregular == [None]
    best = predict_counts(prog, [[1e6]], "best", candidates=("glm", "poly"))
    assert best.how == ["glm"]  # poly cannot be exact for N^1.5; the glm extrapolates best on high-low


def test_the_range_rule_is_a_conformal_quantile_of_held_out_errors_per_distance():
    """37 inputs of one size: high-low holds out 7 (< 9, too few for 90 %), so each of the 19 largest inputs is
    predicted from the smaller ones; the range is the 18th smallest |log ratio| / distance (k = ceil(20 x 0.9))
    times max(distance beyond the measured inputs, the median held-out distance), at the 90 % level."""
    from modeling.counts import ranges as R

    prog = _monomial()
    Y = prog.Y.copy()
    Y[:, 0] += np.round(0.02 * Y[:, 0] * np.sin(np.arange(len(Y))))  # +-2 % noise: the glm is no longer exact
    prog = Program(prog.name, prog.params, prog.X, prog.blocks, Y)
    X_new = np.array([[400.0], [1e6]])  # inside the measured inputs, far beyond them
    res = predict_counts(prog, X_new, "glm")
    assert len(split(prog.X, "high-low")[1]) == 7
    assert res.scheme == "leave-one-input-out" and res.n_hl_test == 19
    order = np.argsort(prog.X[:, 0])[::-1][:19]  # the 19 largest, each predicted from every smaller input
    s, d = [], []
    for t in order:
        tr = np.flatnonzero(prog.X[:, 0] < prog.X[t, 0])
        p = M.make("glm").fit(prog.X[tr], Y[tr]).predict(prog.X[t:t + 1])[0, 0]
        d.append(np.log(prog.X[t, 0] / prog.X[tr, 0].max()))
        s.append(abs(np.log((Y[t, 0] + 0.5) / (p + 0.5))) / d[-1])
    q = np.sort(s)[17]
    d_new = np.array([0.0, np.log(1e6 / prog.X.max())])
    w = q * np.maximum(d_new, np.median(d)) + RANGE_FLOOR
    pred = res.predicted[:, 0]
    assert res.lower[:, 0] == pytest.approx(np.maximum((pred + 0.5) * np.exp(-w) - 0.5, 0))
    assert res.upper[:, 0] == pytest.approx((pred + 0.5) * np.exp(w) - 0.5)
    assert res.level == [R.LEVEL] == [0.9] and res.level_supported and not res.notes
    rel = (res.upper[:, 0] - res.lower[:, 0]) / pred
    assert rel[1] > rel[0] > 0.02  # wider the farther beyond, at least the noise inside


@pytest.mark.parametrize("specs, message", [
    (["N=64,K=3"], "Unknown input parameter 'K'"),
    (["N=64"], "no value of M"),
    (["N=-64,M=3"], "positive finite"),
    (["N=0,M=3"], "positive finite"),
    (["N=nan,M=3"], "positive finite"),
    (["N=inf,M=3"], "positive finite"),
    (["N=1e13,M=3"], "largest size"),
    (["N=abc,M=3"], "not a number"),
    (["N=64,N=32,M=3"], "given twice"),
    (["64,M=3"], "no parameter name"),
    ([""], "No input"),
    ([], "No input"),
    (["N=" + ",".join(map(str, range(1, 1002))) + " x M=2"], f"at most {MAX_POINTS:,}"),
    (["N=" + ",".join(map(str, range(1, 501))) + " x M=2", "N=" + ",".join(map(str, range(501, 1003))) + " x M=3"],
     f"at most {MAX_POINTS:,}"),
])
def test_inputs_are_validated_with_a_message(specs, message):
    with pytest.raises(ModelingError, match=message):
        parse_inputs(specs, ("N", "M"))


def test_inputs_parse_points_grids_names_and_duplicates():
    X = parse_inputs(["n=4096,M=2048", "N=1024,2048 x M=512", "N=1024 × M=512"], ("N", "M"))
    assert X.tolist() == [[4096, 2048], [1024, 512], [2048, 512]]
    assert parse_inputs(["4096, 8192"], ("N",)).tolist() == [[4096], [8192]]
    with pytest.raises(DataError, match="one value per parameter"):
        predict_counts(_loops(), [[1.0]])


def test_the_held_out_counts_are_never_read():
    from testkit.counts_holdout import largest_input, predict_held_out

    prog = data.program(data.shipped("gpu"), "lud_perimeter")
    row = largest_input(prog)
    assert prog.X[row].tolist() == [prog.X.max()]
    Y = prog.Y.copy()
    Y[row] = np.nan  # any model trained or scored on it would raise (counts must be finite)
    hidden = Program(prog.name, prog.params, prog.X, prog.blocks, Y)
    with pytest.raises(DataError):
        M.check_counts(Y)
    _, got, _ = predict_held_out(hidden)
    _, want, _ = predict_held_out(prog)
    for m in want:
        np.testing.assert_array_equal(got[m]["predicted"], want[m]["predicted"])
        np.testing.assert_array_equal(got[m]["upper"], want[m]["upper"])


def test_cli_json_equals_the_library_and_the_export_has_provenance(tmp_path):
    prog = _loops()
    rows = [{"program": "p", "N": n, "M": m, "block": b, "count": int(c)}
            for (n, m), ys in zip(prog.X.astype(int).tolist(), prog.Y) for b, c in zip(prog.blocks, ys)]
    csv = tmp_path / "loops.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["counts", "predict", "--csv", str(csv), "--program", "p", "--at", "N=4096,M=2048",
                     "--grid", "N=100,200 x M=8", "--model", "glm", "--json"]) == 0
    got = json.loads(out.getvalue())
    want = predict_counts(prog, parse_inputs(["N=4096,M=2048", "N=100,200 x M=8"], ("N", "M")), "glm").cli_json()
    got.pop("seconds"), want.pop("seconds")
    assert got == json.loads(json.dumps(want))
    assert got["model"] == "glm" and len(got["predictions"]) == 3 * 2
    assert set(got["predictions"][0]) >= {"inputs", "block", "predicted", "lower", "upper", "how", "irregular"}
    assert got["predictions"][0]["inputs"] == {"N": 4096, "M": 2048}
    totals = {(json.dumps(t["inputs"]), t["block"]): t for t in got["totals"]}
    assert totals[('"all inputs"', "all blocks")]["predicted"] == pytest.approx(
        sum(r["predicted"] for r in got["predictions"]))
    parquet = tmp_path / "p.parquet"
    with redirect_stdout(io.StringIO()):
        assert main(["counts", "predict", "--csv", str(csv), "--program", "p", "--at", "N=4096,M=2048",
                     "--out", str(parquet)]) == 0
    df = pd.read_parquet(parquet)
    from modeling.prediction_table import CORE

    assert tuple(df.columns[:len(CORE)]) == CORE
    assert list(df.columns[len(CORE):len(CORE) + 4]) == ["program", "N", "M", "block"]
    assert df["id"].tolist() == ["p/f:0@N=4096,M=2048", "p/f:1@N=4096,M=2048"] and df["applicable"].all()
    assert {"how", "irregular", "code_version", "table_fingerprint", "date"} <= set(df.columns)
    assert df["how"].tolist() == ["exact", "exact"] and df["predicted"].tolist() == [
        4096 * 2048 * 4097 // 2, 3 * 4096 ** 2 + 2048 + 1]


def test_the_old_counts_command_still_works():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["counts", "--program", "gesummv", "--models", "glm", "--json"]) == 0
    assert json.loads(out.getvalue())["programs"][0]["program"] == "gesummv"


def test_the_baseline_scales_each_block_by_the_sizes_it_depends_on():
    """A careful user's baseline: 5·N·M scales with N·M, N²·M with N^2·M, a block over M only with M, a set-up
    block not at all: each exact far beyond the grid, where scaling every block by N·M is off by the missing
    (or extra) factor; its held-out error is reported beside the model's."""
    from modeling.counts.baseline import fit_power_law, nearest, product_scaled_counts, scaled_counts

    rows = []
    for n in range(8, 65, 8):
        for m in range(4, 33, 4):
            rows += [{"program": "p", "N": n, "M": m, "block": "f:0", "count": 5 * n * m},
                     {"program": "p", "N": n, "M": m, "block": "f:1", "count": n * n * m},
                     {"program": "p", "N": n, "M": m, "block": "f:2", "count": 3 * m},
                     {"program": "p", "N": n, "M": m, "block": "f:3", "count": 7}]
    prog = data.program(_table(rows), "p")
    law = fit_power_law(prog.X, prog.Y)
    assert [law.text(b, prog.params) for b in range(4)] == ["N·M", "N^2·M", "M", "constant"]
    X = parse_inputs(["N=640,M=320"], prog.params)
    assert prog.X[nearest(prog.X, X)[0]].tolist() == [64, 32]
    res = predict_counts(prog, X, "poly")
    d = res.cli_json()
    got = {r["block"]: r for r in d["predictions"]}
    want = {"f:0": 5 * 640 * 320, "f:1": 640 * 640 * 320, "f:2": 3 * 320, "f:3": 7}
    for b, w in want.items():
        assert got[b]["baseline"] == pytest.approx(w)
    assert got["f:1"]["baseline_scales"] == "N^2·M"
    crude = product_scaled_counts(prog.X, prog.Y, X)[0]  # the rule replaced: off on all but f:0
    assert crude[1] == pytest.approx(want["f:1"] / 10) and crude[3] == pytest.approx(7 * 100)
    errs = {b["block"]: b["baseline_error"] for b in d["blocks"]}
    assert max(errs.values()) == pytest.approx(0, abs=1e-9)
    assert np.allclose(scaled_counts(prog.X, prog.Y, prog.X), prog.Y)  # at a measured input: its own count
    total = [t for t in d["totals"] if t["block"] == "all blocks" and t["inputs"] != "all inputs"][0]
    assert total["baseline"] == pytest.approx(sum(want.values()))


def _tiny_block():
    """A loop count N*M and a block run 0, 1 or 2 times at every input, with no trend in the sizes."""
    rows = []
    for n in [100, 110, 125, 150, 200, 260, 330, 400, 512, 600, 700, 800, 900, 1000]:
        for m in [100, 120, 150, 200, 300, 400]:
            rows += [{"program": "p", "N": n, "M": m, "block": "loop", "count": n * m},
                     {"program": "p", "N": n, "M": m, "block": "odd", "count": (7 * n + m) % 3}]
    return data.program(_table(rows), "p")


@pytest.mark.parametrize("model", ["glm", "poly"])
def test_a_tiny_count_gets_a_range_on_the_scale_of_the_counts(model):
    """Counts of 0-2 held out just beyond their training inputs have large error rates per unit of distance;
    unbounded, the range at 10 x 10 beyond the measured inputs reached 1.9e19 for a count of 1. The range is
    bounded by the block's largest held-out log error plus the steepest block's growth (N*M: exponent 1) over
    the distance, and the sum over blocks stays on the scale of the loop."""
    from modeling.counts import ranges as R

    prog = _tiny_block()
    X_new = np.array([[1e4, 4000.0], [4000.0, 800.0]])
    res = predict_counts(prog, X_new, model)
    odd = res.blocks.index("odd")
    assert R.growth(prog.X, prog.Y) == pytest.approx(1.0, abs=1e-6)
    D = np.maximum(res.beyond, 0.0)
    cap = np.log(2.5 / 0.5) + 1.0 * np.maximum(D, 0.0) + 1e-3  # q_max <= log((2 + .5) / (0 + .5)) for a 0-2 count
    assert np.all(res.upper[:, odd] <= (res.predicted[:, odd] + 0.5) * np.exp(cap))
    assert res.upper[:, odd].max() < 1e4
    assert res.upper.sum(axis=1)[0] < 1.01 * res.upper[0, res.blocks.index("loop")] + 1e4
