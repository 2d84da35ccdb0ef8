"""A GPU never built, held out: the interval of a GPU is calibrated without that GPU (nested, one GPU at a time),
works from two measured pairs, and the four splits read the same on the command line as in the library."""

import json

import numpy as np
import pytest

from modeling.intervals import conformal
from modeling.newapp import hypothetical as hyp
from modeling.newapp import splits
from modeling.newapp.data import device_spec
from tests.modeling.newapp.test_newapp import run_cli


def _with_target_scaled(monkeypatch, gpu: str, factor: float):
    """The shipped pairs with ``gpu``'s measured times multiplied by ``factor`` (its own answer made wrong)."""
    real = hyp.shipped_pairs

    def pairs(host, metric="duration"):
        out = real(host, metric)
        for t in out:
            if t.target_spec["device"] == gpu:
                t.target = t.target * factor
        return out

    monkeypatch.setattr(hyp, "shipped_pairs", pairs)


def test_the_interval_of_a_measured_gpu_never_sees_its_own_pair(monkeypatch):
    """Predicting Tesla-P100: its pair is scored against the interval but never calibrates it; making P100's
    measured times ten times longer changes its score, not the interval, the pooled record or the other GPUs'
    held-out coverage."""
    p100 = device_spec("Tesla-P100")
    before = hyp.shipped_hypothetical("GTX-970", p100).track
    _with_target_scaled(monkeypatch, "Tesla-P100", 10.0)
    after = hyp.shipped_hypothetical("GTX-970", p100).track
    assert after.interval["factor"] == before.interval["factor"]
    assert after.excluded == before.excluded == "Tesla-P100"
    assert after.interval["held_out"] == before.interval["held_out"] and "Tesla-P100" not in after.interval["held_out"]
    assert after.pooled == before.pooled
    own_b, own_a = (next(p for p in t.pairs if p["target"] == "Tesla-P100") for t in (before, after))
    assert not own_a["calibrates"] and own_a["mean_ape"] != own_b["mean_ape"]
    assert own_b["in_interval"] < 90  # measured: from GTX-970 the interval does not hold on P100, and says so


def test_each_held_out_gpu_is_calibrated_on_the_others_only():
    """``held_out[g]``: the interval rebuilt from the other pairs (ranked over all P), scored on g's errors;
    changing g's errors never changes the width g is scored against."""
    rng = np.random.default_rng(3)
    names = np.repeat(["a", "b", "c", "d"], 30)
    err = np.abs(rng.normal(0, 0.3, names.size))
    iv = hyp.error_interval(err, names)
    for g in "abcd":
        out = names == g
        w, _ = conformal.group_half_width(err[~out], names[~out], 0.9, "per_application", n_for_level=4)
        assert iv["held_out"][g] == pytest.approx(100 * np.mean(err[out] <= w + 1e-12))
        wide = err.copy()
        wide[out] += 10.0  # g's own errors far out: g's fold width must not move
        w2, _ = conformal.group_half_width(wide[~out], names[~out], 0.9, "per_application", n_for_level=4)
        assert w2 == w and hyp.error_interval(wide, names)["held_out"][g] == 0.0
    assert iv["held_out_min"] == min(iv["held_out"].values())


def test_error_interval_works_from_two_pairs_and_says_what_it_cannot_measure():
    err = np.array([0.1, 0.2, 0.3, 0.05, 0.5, 0.4])
    pair = np.array(["a", "a", "a", "b", "b", "b"])
    iv = hyp.error_interval(err, pair)
    per = [np.quantile(err[pair == g], 0.9, method="higher") for g in "ab"]
    assert iv["factor"] == pytest.approx(np.exp(max(per)))
    assert iv["level_supported"] == pytest.approx(2 / 3) and iv["n_pairs"] == 2
    assert iv["held_out"] == {} and iv["held_out_min"] is None and iv["held_out_coverage"] is None
    assert "third" in iv["note"]
    assert hyp.error_interval(err[:3], pair[:3]) is None  # one pair: no interval


def test_the_splits_hold_each_gpu_out_with_the_gpus_each_split_allows():
    v = splits.shipped_validation("GTX-680")
    assert [s.split for s in v.splits] == list(splits.SPLITS)
    for s in v.splits:
        for g in s.gpus:
            assert g.target not in g.training
        p100 = s.gpu("Tesla-P100")
        assert round(p100.mean_ape, 1) <= 30.0  # nothing worse than the untrained roofline's 30.0 %
    arch = v.split("architecture")
    for g in arch.gpus:
        assert all(device_spec(t)["architecture"] != g.architecture for t in g.training)
    chrono = v.split("chronological")
    for g in chrono.gpus:
        assert all(splits.RELEASED[t] < splits.RELEASED[g.target] for t in g.training)
    assert chrono.gpu("Tesla-K20").coverage is None and "fewer than two" in chrono.gpu("Tesla-K20").note
    assert chrono.min_coverage == min(g.coverage for g in chrono.gpus if g.coverage is not None)
    assert splits.resembles(device_spec("Tesla-P100"), [device_spec("GTX-980")]) == "architecture"
    assert splits.resembles(device_spec("GTX-970"), [device_spec("GTX-980")]) == "gpu"


def test_cli_splits_are_the_library_s():
    r = run_cli("--host", "GTX-680", "--splits", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == json.loads(json.dumps(splits.shipped_validation("GTX-680").to_dict()))
    one = json.loads(run_cli("--host", "GTX-680", "--split", "chronological", "--json").stdout)
    assert [s["split"] for s in one["splits"]] == ["chronological"]
    text = run_cli("--host", "GTX-680", "--splits", "--per-kernel").stdout
    for s in splits.shipped_validation("GTX-680").splits:
        assert s.label in text
        assert f"lowest coverage over the held-out GPUs: {s.min_coverage:.1f} %" in text
    assert "calculate_temp" in text


def test_cli_splits_refuse_what_they_cannot_hold_out(tmp_path):
    """A table has one measured pair, not GPUs to hold out; an unknown split is named with the choices."""
    path = tmp_path / "t.csv"
    path.write_text("workload,app,a,b\nw1,x,1,2\n")
    r = run_cli("--csv", str(path), "--splits")
    assert r.returncode == 2 and "--host" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("--host", "GTX-680", "--split", "sideways")
    assert r.returncode == 2 and "chronological" in r.stderr and "Traceback" not in r.stderr
