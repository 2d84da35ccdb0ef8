"""A run's total is the whole run (its first and last samples included), a prediction is judged per run as it
is made, and the default granularity is one rule that every trace the product accepts supports."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from modeling.__main__ import main
from modeling.build import armpm
from modeling.phases import data
from modeling.phases.evaluate import evaluate
from modeling.phases.predict import predict_trace
from tests.shared_data import parsec_like

PARSEC = Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "parsec_xu3" / "parsec_xu3.data.gz"
PROGRAMS = tuple(f"parsec.p{i}" for i in range(5))


def _raw(scale=1.0) -> bytes:
    """A PARSEC-like trace; ``scale`` multiplies the instructions per sample (2.9: up to ~3.1e9 at 1800 MHz,
    as the public PARSEC traces' 2-core runs)."""
    df = pd.read_csv(__import__("io").BytesIO(parsec_like(PROGRAMS)), sep="\t")
    df["INST_RETIRED"] = (df["INST_RETIRED"] * scale).astype("int64")
    return df.to_csv(sep="\t", index=False).encode()


def test_a_new_programs_total_is_its_whole_host_run():
    """The program-ratio prediction of a new program is host cycles x the training ratio: over the whole run,
    the first and last samples included (they were left out: 3-6 % of a short run's cycles)."""
    raw = armpm.read_trace(_raw())
    s, _ = armpm.samples(raw)
    prog = PROGRAMS[0]
    host = s[(s["program"] == prog) & (s["freq_mhz"] == 1000) & (s["run"] == 1)]
    training = data.pair_from(s[s["program"] != prog], 1000, 1800, 2e9)
    res = predict_trace(host, 1000, 1800, "cycles", "program-ratio", training=training, granularity=2e9)
    whole = raw[(raw["program"] == prog) & (raw["freq_mhz"] == 1000) & (raw["run"] == 1) & (raw["cores"] == 1)]
    assert res.total["host"] == pytest.approx(whole["CPU_CYCLES"].sum(), rel=1e-12)
    assert res.total["predicted"] == pytest.approx(res.total["program_ratio"], rel=1e-12)
    assert res.total["edges"]["rows"] == 2 and 0 < res.total["edges"]["host_share"] < 0.2
    # the phases listed are the ones cut; the total is more than their sum by the edges' prediction
    assert res.total["predicted"] == pytest.approx(sum(res.predicted) + res.total["edges"]["predicted"])


def test_held_out_totals_are_whole_runs_one_per_run():
    """The CV figure a prediction quotes is measured as the prediction is made: one row per run of a held-out
    program (1-core and 2-core runs apart, not summed), each the whole run's measured target."""
    raw = armpm.read_trace(_raw())
    s, _ = armpm.samples(raw)
    ph = data.pair_from(s, 1000, 1800, 2e9)
    ev = evaluate(ph, "cycles", models=("program-ratio", "ratio-baseline"), folds=5)
    rows = pd.DataFrame(ev.programs)
    assert len(rows) == 5 * 4 and set(rows["cores"]) == {1, 2}
    r = rows[(rows["program"] == PROGRAMS[1]) & (rows["host_run"] == 3)].iloc[0]  # its first 2-core run
    whole = raw[(raw["program"] == PROGRAMS[1]) & (raw["freq_mhz"] == 1800) & (raw["run"] == 1)
                & (raw["cores"] == 2)]
    assert r["cores"] == 2 and r["actual"] == pytest.approx(whole["CPU_CYCLES"].sum(), rel=1e-12)
    assert ev.n_phases == int((~ph["edge"]).sum())  # the edges are never counted as phases


def test_the_default_granularity_is_accepted_on_samples_as_large_as_parsecs(tmp_path, capsys):
    """build-data, the evaluation and a new program's prediction on the command line all take the default on a
    trace whose samples hold more than 2e9 instructions (they refused their own default)."""
    trace = tmp_path / "big.data"
    trace.write_bytes(_raw(2.9))
    s, _ = armpm.samples(armpm.read_trace(trace))
    assert main(["build-data", "armpm", "--source", str(trace), "--out", str(tmp_path / "out")]) == 0
    built = json.loads(capsys.readouterr().out)
    from modeling.phases.granularity import rule

    g = rule(s)
    assert g.raised and armpm.SAMPLE_SLACK * g.per_sample <= g.value < 1.1 * g.per_sample
    assert built["granularity"] == g.value and any("too many for 2e+09" in n for n in built["notes"])
    assert main(["phases", "--phases", str(tmp_path / "out"), "--host-freq", "1000", "--target-freq", "1800",
                 "--eps", "100", "--T", "1", "--folds", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["granularity"] == rule(s, freqs=(1000, 1800)).value
    host = tmp_path / "host.csv"
    s[(s["program"] == PROGRAMS[0]) & (s["freq_mhz"] == 1000) & (s["run"] == 1)].to_csv(host, index=False)
    assert main(["phases", "predict", "--trace", str(host), "--host-freq", "1000", "--target-freq", "1800",
                 "--phases", str(tmp_path / "out"), "--model", "program-ratio", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["granularity"] == rule(s, freqs=(1000, 1800)).value


def test_the_default_granularity_on_the_public_parsec_trace():
    """The public PARSEC traces (2-core runs at 1800 MHz hold up to 3.16e9 instructions per sample): 3.0e9,
    accepted by every pair."""
    s, _ = armpm.samples(armpm.read_trace(PARSEC))
    ph = data.pair_from(s, 1000, 1800)  # the default: no refusal
    assert ph["program"].nunique() == 9 and ph.groupby(["program", "host_run"]).ngroups == 34  # 2 runs excluded
    from modeling.phases.granularity import PREFERRED, rule

    g = rule(s, freqs=(1000, 1800))
    assert g.value == 3.0e9 and g.finest == 3.0e9 and g.per_sample == pytest.approx(3.156e9, rel=1e-3)
    with pytest.raises(Exception, match="Use at least 3e\\+09"):
        data.pair_from(s, 1000, 1800, PREFERRED)


def test_the_rounded_bound_is_one_that_is_accepted():
    for x in (2.998e9, 2.3249e9, 1.52e9, 3e9, 9.96e9):
        v = armpm.rounded_up(x)
        assert x <= v < 1.05 * x + 1e8 and float(f"{v:.2g}") == v
    assert np.isclose(armpm.rounded_up(2.3249e9), 2.4e9)
