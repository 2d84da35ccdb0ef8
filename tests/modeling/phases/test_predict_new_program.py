"""A program never run on the target: intervals by hand, the CV-chosen model, the held-out program's target
never read, the command's JSON equal to the library's result."""

import json

import numpy as np
import pandas as pd
import pytest

from tests import cli

from modeling.errors import DataError
from modeling.phases import data
from modeling.phases.predict import (new_program, phase_half_width, predict_program, predict_trace,
                                     total_half_width)

PROG = "automotive_susan_e"


def test_phase_interval_rule_by_hand():
    # per program, the 0.6-quantile of |r| ("higher": the ceil(0.6 n)-th smallest of its own residuals)
    r = np.array([0.1, 0.3, 0.2,  0.05, 0.5,  0.4, 0.4, 0.1, 0.9,  0.25])
    g = np.array(["a", "a", "a",  "b", "b",  "c", "c", "c", "c",  "d"])
    # a: sorted .1 .2 .3 -> 0.6 quantile 'higher' at position 1.2 -> .3 ; b: .05 .5 -> pos .6 -> .5
    # c: .1 .4 .4 .9 -> pos 1.8 -> .4 ; d: .25 ; over programs: k = ceil(0.6 x 5) = 3rd smallest of
    # (.25, .3, .4, .5) -> .4
    w, sup = phase_half_width(r, g, 0.6)
    assert w == pytest.approx(0.4) and sup == 0.6
    # level 0.9 with 4 programs: k = ceil(4.5) = 5 > 4: the widest program's quantile, supported 4/5
    w, sup = phase_half_width(r, g, 0.9)
    assert w == pytest.approx(0.9) and sup == pytest.approx(0.8)


def test_total_interval_rule_by_hand():
    r = np.array([0.07, 0.01, 0.3, 0.02, 0.05, 0.11, 0.04, 0.09, 0.03, 0.06])
    w, sup = total_half_width(r, 0.8)  # k = ceil(0.8 x 11) = 9th smallest of 10
    assert w == pytest.approx(0.11) and sup == 0.8
    w, sup = total_half_width(r, 0.95)  # k = ceil(0.95 x 11) = 11 > 10: the largest, supported 10/11
    assert w == pytest.approx(0.3) and sup == pytest.approx(10 / 11)


def ratio_world(n_prog=8, per=12, seed=0):
    """Target cycles = 0.5 x host cycles (1 % noise), phases of very different lengths: rates cannot give
    the scale, the host's own cycles can: the ratio baseline wins."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n_prog):
        for k in range(per):
            instr = rng.uniform(1e9, 2e10)
            cyc = instr * rng.uniform(0.8, 2.5)
            rows.append({"program": f"p{p}", "phase": k, "host_INST_RETIRED": instr, "host_CPU_CYCLES": cyc,
                         "host_L1D_CACHE_REFILL": instr * rng.uniform(1e-4, 5e-3),
                         "host_BRANCH_PRED": instr * rng.uniform(0.1, 0.2), "host_time_s": cyc / 1e9,
                         "host_power_w": rng.uniform(0.5, 0.6),
                         "target_cycles": 0.5 * cyc * rng.uniform(0.99, 1.01), "target_time_s": 0.5 * cyc / 2e9,
                         "target_power_w": rng.uniform(1.5, 2.0)})
    return pd.DataFrame(rows)


def test_the_default_model_is_the_cv_winner_here_a_ratio():
    ph = ratio_world(n_prog=12)
    host = ph[ph["program"] == "p0"]
    res = predict_program(host, ph, "cycles", folds=4, host_freq=1000, target_freq=2000)
    cv = res.cv
    # every phase and every program has the ratio 0.5: both ratios tie, and ties go to the whole-program one
    assert res.model == "program-ratio"
    assert cv["program-ratio"]["program_mean_ape"] <= min(v["program_mean_ape"] for v in cv.values()) + 1e-6
    train = ph[ph["program"] != "p0"]
    tot = train.groupby("program")[["target_cycles", "host_CPU_CYCLES"]].sum()
    ratio = np.median(tot["target_cycles"] / tot["host_CPU_CYCLES"])
    assert np.allclose(res.predicted, host["host_CPU_CYCLES"].to_numpy() * ratio)
    assert res.total["predicted"] == pytest.approx(sum(res.predicted))
    # intervals are the full model's prediction x/÷ exp(half-width), widths from the CV residuals
    assert np.allclose(np.log(np.asarray(res.upper) / res.predicted), res.phase_half_width)
    assert res.total["upper"] / res.total["predicted"] == pytest.approx(np.exp(res.total_half_width))
    assert abs(np.log(host["target_cycles"].sum() / res.total["predicted"])) < 0.05
    d = res.cli_json()
    assert d["program"] == "p0" and d["model"] == "program-ratio" and len(d["phases"]) == 12
    assert "p0 is in the training table" in " ".join(d["notes"])
    f = res.to_frame({"code_version": "abc"})
    assert list(f["id"])[-1] == "p0/total" and f["phase"].isna().sum() == 1 and (f["code_version"] == "abc").all()
    from modeling.prediction_table import CORE

    assert tuple(f.columns[:len(CORE)]) == CORE and {"fallback", "start_instructions"} <= set(f.columns)
    forced = predict_program(host, ph, "cycles", model="lacross", folds=4)
    assert forced.model == "lacross" and forced.requested_model == "lacross"
    assert forced.selection.startswith("LACross as asked")


def program_world(n_prog=12, seed=3):
    """Long phases run at target/host 0.5, many short ones at 0.9 (a start-up the target does not speed up):
    the median per-phase ratio (0.9) is far from every program's total ratio (about 0.51), and the counters
    carry nothing about it. The whole-program ratio is the right answer."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n_prog):
        for k in range(14):
            short = k < 9
            instr = rng.uniform(1e8, 3e8) if short else rng.uniform(2e10, 4e10)
            cyc = instr * rng.uniform(0.9, 1.1)
            rows.append({"program": f"p{p}", "phase": k, "host_INST_RETIRED": instr, "host_CPU_CYCLES": cyc,
                         "host_L1D_CACHE_REFILL": instr * rng.uniform(1e-4, 5e-3),
                         "host_BRANCH_PRED": instr * rng.uniform(0.1, 0.2), "host_time_s": cyc / 1e9,
                         "host_power_w": rng.uniform(0.5, 0.6),
                         "target_cycles": (0.9 if short else 0.5) * cyc * rng.uniform(0.98, 1.02),
                         "target_time_s": cyc / 2e9, "target_power_w": rng.uniform(1.5, 2.0)})
    return pd.DataFrame(rows)


def test_auto_takes_the_whole_program_ratio_where_it_wins_and_says_so_with_both_errors():
    ph = program_world()
    host = ph[ph["program"] == "p0"]
    res = predict_program(host, ph, "cycles", folds=4, host_freq=1000, target_freq=2000)
    cv = res.cv
    assert res.model == "program-ratio"
    assert cv["program-ratio"]["program_mean_ape"] < cv["ratio-baseline"]["program_mean_ape"]
    measured = host["target_cycles"].sum()
    assert abs(res.total["predicted"] / measured - 1) < 0.03  # the per-phase ratio would be ~75 % off
    assert res.total["program_ratio"] == pytest.approx(res.total["predicted"])
    best_other = min((m for m in ("lacross", "global", "ratio-baseline")), key=lambda m: cv[m]["program_mean_ape"])
    text = res.selection
    assert "whole-program ratio is used" in text
    assert f"{cv['program-ratio']['program_mean_ape']:.2f} %" in text
    assert f"{cv[best_other]['program_mean_ape']:.2f} %" in text
    assert res.cli_json()["selection"] == text


def test_too_few_programs_for_the_level_give_no_whole_program_interval_and_say_so():
    ph = ratio_world(n_prog=7)  # 6 training programs: a 90 % rank needs 9
    host = ph[ph["program"] == "p0"]
    res = predict_program(host, ph, "cycles", folds=3, level=0.9)
    assert res.total["lower"] is None and res.total["upper"] is None and res.total_half_width is None
    assert not res.total_supported
    assert any("no 90 % interval on the whole program" in n and "at least 9" in n for n in res.notes)
    f = res.to_frame()
    assert f["lower"].isna().tolist() == [False] * (len(f) - 1) + [True]  # the phases keep theirs
    again = type(res).from_dict(json.loads(json.dumps(res.to_dict())))
    assert again.total_half_width is None and again.total["upper"] is None and again == res
    assert type(res).from_dict(json.loads(json.dumps(res.cli_json()))) == res  # one stored untagged, before
    ok = predict_program(host, ph, "cycles", folds=3, level=0.8)  # rank ceil(0.8 x 7) = 6 of 6: supported
    assert ok.total_supported and ok.total["lower"] < ok.total["predicted"] < ok.total["upper"]


def test_events_the_host_run_lacks_are_dropped_from_the_model_with_a_note():
    ph = ratio_world(n_prog=6)
    host = ph[ph["program"] == "p0"].drop(columns=["host_L1D_CACHE_REFILL"])
    res = predict_program(host, ph, "cycles", model="global", folds=3)
    assert any("L1D_CACHE_REFILL" in n and "dropped from the model" in n for n in res.notes)
    with pytest.raises(DataError, match="CPU_CYCLES"):
        predict_program(host.drop(columns=["host_CPU_CYCLES"]), ph, "cycles", folds=3)


def test_host_phases_from_samples_equal_the_phase_tables_host_side():
    s = data.shipped_samples()
    host, notes = new_program(s[(s["program"] == PROG) & (s["freq_mhz"] == 1000)], 1000)
    ph = data.shipped_pair(1000, 2000)
    ref = ph[(ph["program"] == PROG) & (ph["host_run"] == 1)].reset_index(drop=True)
    cols = [c for c in ref.columns if c.startswith("host_") and c not in ("host_run", "host_freq_mhz")]
    assert len(host) == len(ref)
    np.testing.assert_allclose(host[cols].to_numpy(float), ref[cols].to_numpy(float), rtol=1e-12)
    assert any("host run 1 used" in n for n in notes)


def test_the_predicted_programs_target_is_never_read():
    s = data.shipped_samples()
    ph = data.shipped_pair(1000, 2000)
    host = s[(s["program"] == PROG) & (s["freq_mhz"] == 1000) & (s["run"] == 1)]
    clean = predict_trace(host, 1000, 2000, "power", training=ph[ph["program"] != PROG]).cli_json()
    # the same program's target run in the trace and its target phases in the training table, poisoned:
    # anything that read them would be NaN or different
    target_run = s[(s["program"] == PROG) & (s["freq_mhz"] == 2000)].assign(power_w=np.nan, CPU_CYCLES=-1)
    poisoned = ph.copy()
    own = poisoned["program"] == PROG
    poisoned.loc[own, ["target_cycles", "target_power_w", "target_time_s"]] = np.nan
    got = predict_trace(pd.concat([host, target_run]), 1000, 2000, "power", training=poisoned).cli_json()
    for k in ("model", "total", "phases", "cv", "phase_half_width", "total_half_width"):
        assert got[k] == clean[k], k
    assert any("2000 MHz ignored" in n for n in got["notes"])
    # a phase table with the program's target columns: dropped before anything, named
    tab = ph[own & (ph["host_run"] == 1)].assign(target_cycles=np.nan, target_power_w=np.nan)
    fromtab = predict_trace(tab, 1000, 2000, "power", training=poisoned).cli_json()
    assert fromtab["phases"] == clean["phases"] and "never read" in fromtab["notes"][0]
    # the benchmark's path: the table's own rows poisoned, only the host samples given
    from testkit.phases_holdout import predict_one

    a = predict_one(PROG, poisoned, s[~((s["program"] == PROG) & (s["freq_mhz"] == 2000))], "power", 1000.0,
                    2000.0, 0.9).cli_json()
    assert a["phases"] == clean["phases"] and a["total"] == clean["total"]


def test_a_trace_missing_columns_is_refused_with_their_names():
    s = data.shipped_samples()
    host = s[(s["program"] == PROG) & (s["freq_mhz"] == 1000)]
    with pytest.raises(DataError, match="duration_s.*INST_RETIRED"):
        new_program(host.drop(columns=["duration_s", "INST_RETIRED"]), 1000)
    with pytest.raises(DataError, match="not at the host frequency 1400"):
        new_program(host, 1400)


def test_cli_json_equals_the_library(tmp_path):
    s = data.shipped_samples()
    host = s[(s["program"] == PROG) & (s["freq_mhz"] == 1000) & (s["run"] == 1)]
    path = tmp_path / "host.csv"
    host.to_csv(path, index=False)
    r = cli.run_cli("phases", "predict", "--trace", str(path), "--host-freq", "1000", "--target-freq", "2000",
                    "--target", "power", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    lib = predict_trace(pd.read_csv(path), 1000, 2000, "power").cli_json()
    got.pop("seconds"), lib.pop("seconds")
    assert got == json.loads(json.dumps(lib))
    assert {"program", "model", "level", "total", "phases"} <= set(got)
    assert set(got["total"]) >= {"predicted", "lower", "upper"}
    assert set(got["phases"][0]) >= {"start_instructions", "predicted", "lower", "upper", "fallback"}
    out = tmp_path / "pred.parquet"
    r = cli.run_cli("phases", "predict", "--trace", str(path), "--host-freq", "1000", "--target-freq", "2000",
                    "--target", "power", "--out", str(out))
    assert r.returncode == 0, r.stderr
    f = pd.read_parquet(out)
    assert len(f) == len(got["phases"]) + 1 and f["code_version"].nunique() == 1
    assert f["predicted"].iloc[-1] == pytest.approx(got["total"]["predicted"])
