"""Trace reading, sample cleaning, phase alignment on constructed traces, quality control, the granularity
refusal, and the shipped phase tables built by the command."""

import numpy as np
import pandas as pd
import pytest

from modeling.build import armpm
from modeling.errors import DataError
from tests.shared_data import armpm_trace

def trace(runs):
    """runs: {(program, run, freq): [(instructions, cycles, power), ...]} at 0.5 s samples."""
    return armpm_trace({k: [(pw, {"CPU_CYCLES": cyc, "INST_RETIRED": instr, "BRANCH_PRED": instr // 10})
                            for instr, cyc, pw in smp] for k, smp in runs.items()})


def test_phases_line_up_exactly_on_a_constructed_trace():
    # host: 1e9 instructions per sample at 1000 MHz; target: 2e9 per sample at 2000 MHz, same program total
    host = [(10**9, 5 * 10**8, 1.0)] * 10  # samples 1..8 cut into phases: 8e9 instructions
    target = [(2 * 10**9, 10**9, 2.0)] * 6  # samples 1..4 cut into phases: 8e9 instructions
    raw = trace({("p", 1, 1000): host, ("p", 1, 2000): target, ("q", 1, 1000): host, ("q", 1, 2000): target})
    s, notes = armpm.samples(armpm.read_trace(raw))
    assert armpm.core(s).groupby(["program", "freq_mhz"]).size().tolist() == [8, 4, 8, 4] and not notes
    ph = armpm.phase_table(s, 1000, 2000, granularity=2e9)
    whole = ph[ph["program"] == "p"]
    p = armpm.core(whole)
    assert len(p) == 4
    assert np.allclose(p["host_INST_RETIRED"], 2e9) and np.allclose(p["host_CPU_CYCLES"], 1e9)
    assert np.allclose(p["target_cycles"], 1e9) and np.allclose(p["target_time_s"], 0.5)
    assert np.allclose(p["target_power_w"], 2.0) and np.allclose(p["host_time_s"], 1.0)
    # a phase that ends inside a sample takes its share of the sample (linear inside a sample)
    ph3 = armpm.core(armpm.phase_table(s, 1000, 2000, granularity=8e9 / 3))
    assert np.allclose(ph3[ph3["program"] == "p"]["target_cycles"], 4e9 / 3)


def test_a_runs_rows_sum_to_the_whole_run_first_and_last_samples_included():
    """The first sample (no start) and the last (maybe cut short) are not cut into phases but are the run's:
    its phase rows plus its two edge rows hold every cycle the trace recorded, on both sides."""
    host = [(10**9, 5 * 10**8, 1.0)] * 10
    target = [(2 * 10**9, 10**9, 2.0)] * 6
    s, _ = armpm.samples(armpm.read_trace(trace({("p", 1, 1000): host, ("p", 1, 2000): target,
                                                  ("q", 1, 1000): host, ("q", 1, 2000): target})))
    ph = armpm.phase_table(s, 1000, 2000, granularity=2e9)
    p = ph[ph["program"] == "p"]
    assert p["edge"].tolist() == [True, False, False, False, False, True]
    assert p["phase"].tolist() == [-1, 0, 1, 2, 3, 4]
    assert np.isclose(p["host_CPU_CYCLES"].sum(), 10 * 5e8) and np.isclose(p["target_cycles"].sum(), 6 * 1e9)
    assert np.isclose(p["host_INST_RETIRED"].sum(), 10e9)
    # the first sample's duration: its cycles at the run's clock, at most the run's median sample
    head = p[p["phase"] == -1].iloc[0]
    assert np.isclose(head["host_time_s"], 0.5) and np.isclose(head["target_time_s"], 0.5)


def test_a_granularity_finer_than_a_sample_is_refused_with_the_reason():
    host = [(10**9, 5 * 10**8, 1.0)] * 10
    target = [(2 * 10**9, 10**9, 2.0)] * 6
    s, _ = armpm.samples(armpm.read_trace(trace({("p", 1, 1000): host, ("p", 1, 2000): target})))
    with pytest.raises(DataError, match="finer than one sample of the target run"):
        armpm.phase_table(s, 1000, 2000, granularity=1e9)


def test_quality_control_lists_a_run_whose_total_differs():
    ok = [(10**9, 5 * 10**8, 1.0)] * 10
    short = [(10**9, 5 * 10**8, 1.0)] * 8  # 6e9 kept vs 8e9
    s, _ = armpm.samples(armpm.read_trace(trace({("p", 1, 1000): ok, ("p", 2, 1000): ok, ("p", 1, 2000): ok,
                                                  ("p", 2, 2000): short})))
    bad = armpm.quality(s)
    assert bad[["program", "run", "freq_mhz"]].values.tolist() == [["p", 2, 2000]]
    ph = armpm.phase_table(s, 1000, 2000, 2e9, bad)
    assert armpm.core(ph)["host_run"].tolist() == [1] * 4  # run 2's pair is excluded


def test_the_noise_floor_pairs_a_run_with_the_next_one_only():
    """At one frequency run 1 predicts run 2 and not the reverse too: with both directions a program's phases
    would total the same on both sides, and every whole-program error would be zero by construction."""
    a = [(10**9, 5 * 10**8, 1.0)] * 10
    b = [(10**9, 6 * 10**8, 1.1)] * 10
    s, _ = armpm.samples(armpm.read_trace(trace({("p", 1, 1000): a, ("p", 2, 1000): b, ("p", 3, 1000): a})))
    ph = armpm.core(armpm.phase_table(s, 1000, 1000, 2e9))
    assert sorted(set(zip(ph["host_run"], ph["target_run"]))) == [(1, 2), (2, 3)]
    one = ph[ph["host_run"] == 1]
    assert np.allclose(one["host_CPU_CYCLES"], 1e9) and np.allclose(one["target_cycles"], 1.2e9)


def test_a_trace_without_the_layout_is_a_clear_error():
    with pytest.raises(DataError, match="lacks column"):
        armpm.read_trace(b"a\tb\n1\t2\n")
    with pytest.raises(DataError, match="INST_RETIRED"):
        armpm.read_trace(pd.DataFrame([[1, "p", 1, 1000, 1.0, 5]], columns=[
            "#Timestamp", "Benchmark", "Run(#)", "CPU(4) Frequency(MHz)", "A15 Power(W)", "CPU_CYCLES"]
        ).to_csv(sep="\t", index=False).encode())


def test_multi_core_runs_are_kept_unless_one_core_count_is_asked():
    host = [(10**9, 5 * 10**8, 1.0)] * 6
    df = armpm.read_trace(trace({("p", 1, 1000): host, ("p", 2, 1000): host}))
    df["cores"] = np.where(df["run"] == 2, 4, 1)
    s, notes = armpm.samples(df, cores=1)
    assert set(s["run"]) == {1} and "other than 1 core" in notes[0]
    s_all, _ = armpm.samples(df)
    assert set(s_all["run"]) == {1, 2} and s_all.groupby("run")["cores"].first().tolist() == [1, 4]


def test_the_shipped_phase_tables_are_what_the_command_builds(tmp_path):
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    src = Path(os.environ.get("PERFCAST_PUBLIC_DATA", "/nonexistent")) / "armpm" / \
        "xu3_cset_perfcpu_cBench_eMMC_big.data.gz"
    if not src.exists():
        pytest.skip("PERFCAST_PUBLIC_DATA names no folder with the armpm trace (data/README.md)")
    info = armpm.build(src, tmp_path)
    assert info["programs"] == 30 and info["frequencies"] == [1000, 1500, 2000]
    for name in ("armpm_samples.parquet", "armpm_phases.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / name), pd.read_parquet(root / "data" / name))
