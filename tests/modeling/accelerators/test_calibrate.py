"""LogCA calibration from timing tables, the OpenSSL collector and the logca command line."""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from modeling.__main__ import main
from modeling.collect.openssl import parse_speed_output, speed_once
from modeling.errors import ConfigError, DataError, NotEnoughDataError
from modeling.accelerators.logca import LogCAParams, accel_time, host_time
from modeling.accelerators.calibrate import fit_table

SHIPPED = Path(__file__).resolve().parents[3] / "data" / "openssl_offload_timing.csv"
G = 16 * 2.0 ** np.arange(22)


def _table(p: LogCAParams, noise=0.0, repeats=3, seed=0, clock=2e9, energy=None):
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(repeats):
        t0 = host_time(p, G) * np.exp(rng.normal(0, noise, G.size)) / clock
        t1 = accel_time(p, G) * np.exp(rng.normal(0, noise, G.size)) / clock
        for i, g in enumerate(G):
            row = {"kernel": "k", "granularity_bytes": g, "repeat": r, "host_s": t0[i], "accel_s": t1[i],
                   "clock_hz": clock, "note": "extra columns are ignored"}
            if energy is not None:
                row["host_j"] = float(host_time(energy, g))
                row["accel_j"] = float(accel_time(energy, g))
            rows.append(row)
    return pd.DataFrame(rows)


@pytest.mark.parametrize("truth", [
    LogCAParams(L=0.5, o=2e4, C=40, A=12, beta=1.05, latency="dependent"),
    LogCAParams(L=3, o=1e5, C=2, A=30, beta=1.7, latency="dependent"),
    LogCAParams(L=15, o=4e8, C=290, A=7, beta=0.94, latency="dependent"),
    LogCAParams(L=0, o=3e4, C=90, A=19, beta=1.01, latency="independent"),
])
def test_noise_free_curves_are_recovered_exactly(truth):
    res = fit_table(_table(truth))
    p = res.params
    assert res.chosen == truth.latency
    for k in ("L", "o", "C", "A", "beta"):
        assert getattr(p, k) == pytest.approx(getattr(truth, k), rel=1e-6, abs=1e-9)
    assert res.to_dict()["mape_speedup"] < 1e-6


def test_independent_latency_keeps_the_given_l_and_fits_the_rest():
    truth = LogCAParams(L=1500, o=2.9e4, C=90, A=19, beta=1.01)
    res = fit_table(_table(truth), L=1500, latency="independent")
    assert res.params.o == pytest.approx(2.9e4, rel=1e-6) and res.params.L == 1500


def test_noisy_curves_within_tolerance():
    truth = LogCAParams(L=3, o=1e5, C=2, A=30, beta=1.7, latency="dependent")
    res = fit_table(_table(truth, noise=0.03, repeats=5, seed=3), latency="dependent")
    p = res.params
    # 3 % log-normal noise on 5 repeats: the speedup curve within 3 %, C and beta within 3 %, A within 15 %
    assert res.modes["dependent"].mape < 3.0
    assert p.C == pytest.approx(2, rel=0.03) and p.beta == pytest.approx(1.7, rel=0.03)
    assert p.A == pytest.approx(30, rel=0.15)
    d = res.to_dict()
    assert 0.01 < d["repeat_spread"]["host_cv_median"] < 0.06
    assert d["clock_source"] == "table" and d["clock_hz"] == 2e9


def test_energy_columns_fit_the_energy_model():
    truth = LogCAParams(L=0.5, o=2e4, C=40, A=12, beta=1.05, latency="dependent")
    energy = LogCAParams(L=2e-9, o=1e-5, C=5e-8, A=6, beta=1.05, latency="dependent")
    d = fit_table(_table(truth, energy=energy)).to_dict()["energy"]
    for k in ("L", "o", "C", "A", "beta"):
        assert d[k] == pytest.approx(getattr(energy, k), rel=1e-5)


def test_bad_tables_get_clear_messages():
    good = _table(LogCAParams(L=0, o=3e4, C=90, A=19, beta=1.01))
    with pytest.raises(DataError, match="lacks column"):
        fit_table(good.drop(columns=["accel_s"]))
    bad = good.copy()
    bad["accel_s"] = bad["accel_s"].astype(object)
    bad.loc[3, "host_s"] = -1
    bad.loc[5, "accel_s"] = "fast"
    with pytest.raises(DataError, match="2 row.*lines \\[5, 7\\]"):
        fit_table(bad)
    two = pd.concat([good, good.assign(kernel="other")])
    with pytest.raises(ConfigError, match="choose one"):
        fit_table(two)
    with pytest.raises(ConfigError, match="not in the table"):
        fit_table(good, kernel="sha")
    with pytest.raises(NotEnoughDataError, match="at least 4"):
        fit_table(good[good["granularity_bytes"] < 64])


def test_openssl_speed_output_is_parsed():
    text = "+DT:AES-128-CTR:1:16\n+R:48688929:AES-128-CTR:1.000000\n+H:16\n+F:25:AES-128-CTR:779022864.00\n"
    assert parse_speed_output(text, 16) == pytest.approx(16 / 779022864.0)
    with pytest.raises(DataError):
        parse_speed_output("garbage", 16)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_openssl_measures_one_real_point():
    t = speed_once("sha256", 1024, seconds=1)
    assert 1e-8 < t < 1e-3


def test_shipped_openssl_table_fits_both_kernels():
    frame = pd.read_csv(SHIPPED)
    assert set(frame["kernel"]) == {"aes-128-ctr", "sha-256"}
    assert frame["granularity_bytes"].min() == 16 and frame["granularity_bytes"].max() == 32 * 2**20
    assert frame["repeat"].nunique() >= 3
    for kernel in ("aes-128-ctr", "sha-256"):
        d = fit_table(frame, kernel).to_dict()
        assert d["A"] > 1 and 0.8 < d["beta"] < 1.2
        assert d["mape_speedup"] < 25


def test_cli_presets_eval_and_fit(capsys):
    assert main(["logca", "presets"]) == 0
    out = capsys.readouterr().out
    assert "ultrasparc-t2:aes" in out and "discrete-gpu:matrix-multiplication" in out
    assert main(["logca", "--preset", "ultrasparc-t2:aes", "--granularity", "16,1024,65536", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) >= {"granularity", "speedup", "g1", "g_half", "bound", "bound_kind", "regions", "cutoffs"}
    assert d["granularity"] == [16, 1024, 65536] and len(d["speedup"]) == 3
    assert d["cutoffs"]["L"] is None and d["bound_kind"] == "compute"
    assert main(["logca", "--L", "3000", "--o", "2e8", "--C", "116", "--A", "30", "--beta", "0.14",
                 "--latency", "dependent", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["g1"] is None
    assert main(["logca", "fit", "--csv", str(SHIPPED), "--kernel", "aes-128-ctr", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) >= {"L", "o", "C", "A", "beta", "latency", "mape_speedup"}
    assert main(["logca", "--preset", "ultrasparc-t2:aes", "--C", "3"]) == 2
    assert "not both" in capsys.readouterr().err


def test_where_the_fit_holds_names_the_sizes_it_misses():
    from modeling.accelerators.calibrate import where_fit_holds

    rows = [{"granularity": g, "speedup": s, "speedup_fit": f}
            for g, s, f in [(1024, 10.0, 10.5), (16, 2.0, 1.0), (64, 16.5, 9.8), (4096, 12.0, 12.9)]]
    w = where_fit_holds(rows, 0.10)
    assert (w["measured"], w["holds"], w["holds_from"], w["holds_to"]) == (4, 2, 1024, 4096)
    assert (w["smallest_measured"], w["largest_measured"]) == (16, 4096)
    assert [(m["granularity"], round(m["miss"], 4)) for m in w["misses"]] == [(16, 0.5), (64, round(1 - 9.8 / 16.5, 4))]
    assert where_fit_holds(rows, 0.6)["misses"] == []  # every miss within 60 %
    nowhere = where_fit_holds(rows, 0.01)
    assert nowhere["holds"] == 0 and nowhere["holds_from"] is None
