"""The splits of a GPU never built on data the project was not built on (KernelBench's timings on six GPUs):
the derivative parses, and the splits the benchmark runs work on a slice of it through the library's code."""

import numpy as np
import pytest

from modeling.errors import ConfigError
from modeling.newapp import splits
from testkit import apps2016_splits as apps
from testkit import kernelbench_splits as kb


@pytest.fixture(scope="module")
def data():
    return kb.load()


def test_the_kernelbench_derivative_parses(data):
    times, devices = data
    assert set(times["gpu"]) == set(devices["device"]) and len(devices) == 6
    assert devices["architecture"].nunique() == 4
    assert (times["mean_ms"] > 0).all() and times["mean_ms"].notna().all()
    assert not times.duplicated(["gpu", "level", "problem"]).any()
    assert times.groupby("gpu")["problem"].nunique().min() >= 249  # one T4 problem has no timing in the source
    assert sorted(devices["released"]) == sorted(set(devices["released"]))  # the chronological order is strict


def test_the_splits_run_on_a_slice_through_the_library(data):
    """Four GPUs' single operators, from T4: every split holds each other GPU out and calibrates only on what
    the split allows; its coverage is the share of the GPU's own programs inside its interval."""
    times, devices = data
    keep = ["T4", "A100-40GB", "A100-80GB", "L4", "H100"]
    part = times[times["gpu"].isin(keep) & (times["level"] != "level3")]
    v = kb.validation("T4", part, devices[devices["device"].isin(keep)])
    assert [s.split for s in v.splits] == list(splits.SPLITS)
    released = dict(zip(devices["device"], devices["released"]))
    for s in v.splits:
        assert sorted(g.target for g in s.gpus) == sorted(keep[1:])
        for g in s.gpus:
            assert g.target not in g.training and g.n == 200
            if s.split == "architecture":
                assert all(devices.set_index("device").loc[t, "architecture"] != g.architecture for t in g.training)
            if s.split == "chronological":
                assert all(released[t] < released[g.target] for t in g.training)
            if g.coverage is not None:
                assert 0.0 <= g.coverage <= 100.0
    gpu = v.split("gpu")
    assert gpu.min_coverage == min(g.coverage for g in gpu.gpus)
    # the estimate is the same in every split: only the interval's calibration differs
    assert len({round(s.gpu("L4").mean_ape, 9) for s in v.splits}) == 1


def test_pair_errors_scores_only_rows_with_a_positive_measurement_and_estimate():
    p = splits.pair_errors("X", "Arch", [1.0, 2.0, np.nan, 0.0, 4.0], [2.0, 2.0, 1.0, 1.0, -1.0],
                           ["a", "b", "c", "d", "e"], ["g", "g", "g", "h", "h"])
    assert p["kernel"].tolist() == ["a", "b"] and np.allclose(p["ape"], [100.0, 0.0])
    assert np.allclose(p["err"], [np.log(2.0), 0.0])


def test_an_unknown_split_is_refused_naming_the_four():
    with pytest.raises(ConfigError, match="gpu, architecture, chronological, gpu\\+application"):
        splits.validate_pairs([], "T4", splits=("leave-everything-out",))


def test_the_splits_state_the_per_pair_rule_and_compare_another_only_when_asked(data):
    """The default rule is the one /new-app states (each pair's quantile, then the conformal rank over pairs);
    ``held_out`` calibrates the mean coverage instead, so its interval is no wider on any held-out GPU here;
    the pooled rule (every workload a unit) is refused: a GPU's workloads share its bias."""
    times, devices = data
    part = times[times["level"] == "level1"]
    stated = kb.validation("T4", part, devices, splits=("gpu",)).split("gpu")
    same = kb.validation("T4", part, devices, splits=("gpu",), rule="per_application").split("gpu")
    other = kb.validation("T4", part, devices, splits=("gpu",), rule="held_out").split("gpu")
    assert [g.factor for g in stated.gpus] == [g.factor for g in same.gpus]
    assert all(o.factor <= s.factor + 1e-12 for o, s in zip(other.gpus, stated.gpus))
    assert any(o.factor < s.factor for o, s in zip(other.gpus, stated.gpus))
    with pytest.raises(ConfigError, match="held_out"):
        kb.validation("T4", part, devices, rule="pooled")


def test_the_apps2016_kernels_run_through_the_page_s_own_path():
    """apps-2016 carries the host's counters: each pair is read as an upload is (frame_table) and the splits
    are splits.validate, the counters-based roofline included; a slice of three GPUs and two applications."""
    data = apps.load()
    assert set(data["gpu"]) == {"GTX-680", "Tesla-K20", "Tesla-K40", "Titan", "Quadro", "GTX-970", "GTX-980",
                                "TitanX"}
    assert data["application"].nunique() == 9 and (data["duration"] > 0).all()
    part = data[data["gpu"].isin(["GTX-680", "GTX-980", "TitanX"]) & data["application"].isin(["vectorAdd", "dotProd"])]
    tables = apps.tables_from("GTX-680", part)
    assert [t.target_spec["device"] for t in tables] == ["GTX-980", "TitanX"]
    assert all(t.roles.keys() >= {"dram_read", "dram_write", "issue_util", "grid_x"} for t in tables)
    v = apps.validation("GTX-680", part)
    gpu = v.split("gpu")
    assert all(g.coverage is None and "fewer than two" in g.note for g in gpu.gpus)  # one other GPU each
    assert all(g.n > 0 and np.isfinite(g.mean_ape) for g in gpu.gpus)
