"""A trace in the armpm layout with a configuration column (``Cores(#)``, as PARSEC traces record each run
once on 1 core and once on 2 under the same ``Run(#)``) and a trace with a time gap inside a run."""

import pytest

from modeling.build import armpm
from modeling.errors import DataError
from modeling.phases import data
from tests.shared_data import parsec_like

def test_runs_on_different_core_counts_stay_apart_and_cores_is_no_counter():
    s, notes = armpm.samples(armpm.read_trace(parsec_like()))
    assert "Cores(#)" not in s.columns and "cores" in s.columns
    assert "cores" not in armpm.event_columns(s)
    # no sample spans the six days between the 1-core and the 2-core recordings
    assert s["duration_s"].max() < 1.0
    runs = s.groupby(["program", "freq_mhz"])["run"].nunique()
    assert (runs == 4).all()  # runs 1, 2 on one core and runs 1, 2 on two cores, not two joined runs
    per_run = s.groupby(["program", "run", "freq_mhz"])["cores"].nunique()
    assert (per_run == 1).all()  # every run has one configuration
    assert any("kept apart" in n and "cores" in n for n in notes)
    assert armpm.quality(s).empty  # a 2-core run's share of the work is judged against the 2-core runs
    ph = armpm.phase_table(s, 1000, 1800, 2e9)
    assert not [c for c in ph.columns if "ores" in c and c != "cores"]
    assert "host_cores" not in data.event_names(ph) and "cores" in ph.columns
    # a host run pairs with the target run of its own configuration
    assert sorted(set(zip(ph["host_run"], ph["target_run"], ph["cores"]))) == [(1, 1, 1), (2, 2, 1), (3, 3, 2),
                                                                              (4, 4, 2)]


def test_a_time_gap_inside_a_run_is_left_out_and_named():
    raw = parsec_like().decode().splitlines()
    # drop the configuration column: the two recordings now share one run number (the old defect)
    cut = [line.split("\t") for line in raw]
    raw = "\n".join("\t".join(c[:3] + c[4:]) for c in cut).encode()
    with pytest.raises(DataError, match=r"time gap.*a sample of 552,3\d\d s"):
        armpm.samples(armpm.read_trace(raw))


def test_a_gap_in_one_run_leaves_the_others_and_says_so():
    raw = parsec_like().decode().splitlines()
    cut = [line.split("\t") for line in raw]
    body = [c for c in cut[1:] if not (c[1] == "parsec.gamma" and c[3] == "2")]
    # parsec.gamma's 1-core run 1 at 1000 MHz: a 2-minute stop after its 5th sample
    g = [i for i, c in enumerate(body) if c[1] == "parsec.gamma" and c[2] == "1" and c[4] == "1000"]
    for i in g[5:]:
        body[i][0] = str(int(body[i][0]) + 120 * 10**9)
    for c in body[g[-1] + 1:]:
        c[0] = str(int(c[0]) + 120 * 10**9)
    text = "\n".join("\t".join(c) for c in [cut[0], *body]).encode()
    s, notes = armpm.samples(armpm.read_trace(text))
    assert ("parsec.gamma", 1, 1000) not in set(zip(s["program"], s["run"], s["freq_mhz"]))
    assert s.groupby(["program", "run", "freq_mhz"]).ngroups == 3 * 4 * 2 - 2 * 2 - 1
    assert any("time gap" in n and "parsec.gamma run 1 at 1000 MHz" in n for n in notes)


def test_phases_as_fine_as_a_coarsely_sampled_trace_allows():
    s, _ = armpm.samples(armpm.read_trace(parsec_like()))
    assert data.supported_granularity(s, 1000, 1800) == (2e9, None)
    coarse = s.assign(INST_RETIRED=s["INST_RETIRED"] * 4)  # up to ~4.5e9 instructions per sample at 1800 MHz
    g, note = data.supported_granularity(coarse, 1000, 1800)
    most = coarse.groupby(["program", "run", "freq_mhz"])["INST_RETIRED"].median().max()
    assert armpm.SAMPLE_SLACK * most <= g < 1.1 * most and "too many for 2e+09" in note
    armpm.phase_table(coarse, 1000, 1800, g)  # accepted where 2e9 is refused
    with pytest.raises(DataError, match="finer than one sample"):
        armpm.phase_table(coarse, 1000, 1800, 2e9)
