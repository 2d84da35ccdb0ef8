"""The Nsight Compute readers on real ncu output kept as fixtures (sources and trims in
tests/fixtures/profilers/README.md): values checked against the files by eye."""

from pathlib import Path

import pytest

from modeling.tables.profilers.detect import read_profile
from modeling.tables.profilers.join import with_profile
from modeling.tables.profilers.workloads import to_workloads

F = Path(__file__).resolve().parents[2] / "fixtures" / "profilers"
AWS, LASSEN = "ncu_details_xplacer_bfs_v100_aws.csv", "ncu_details_xplacer_bfs_v100_lassen.csv"
B200 = "ncu_details_superbench_cublaslt_b200.csv"


def read(name, tool=None):
    return read_profile((F / name).read_bytes(), tool)


def test_xplacer_v100_details_after_the_programs_output():
    # the program's own lines and ==PROF== lines come before the header; "Kernel Time" column; old section names
    p = read(AWS, "ncu")
    assert p.format == "ncu-details" and len(p.launches) == 6
    assert list(p.launches["kernel"][:2]) == ["Kernel2(bool*,bool*,bool*,bool*,int)",
                                             "Kernel(Node*,int*,bool*,bool*,bool*,int*,int)"]
    first = p.launches.iloc[0]
    assert first["gpu__time_duration.sum"] == pytest.approx(3200e-9)     # "Duration","nsecond","3200"
    assert first["gpc__cycles_elapsed.max"] == 3086                      # "Elapsed Cycles","cycle","3086"
    assert first["SM Frequency"] == pytest.approx(963802083.33)          # cycle/second -> Hz
    assert p.units["SM Frequency"] == "Hz" and p.units["gpu__time_duration.sum"] == "s"
    assert first["Achieved Occupancy"] == pytest.approx(22.95) and p.units["Achieved Occupancy"] == "%"
    assert first["Block Size"] == 512 and p.kinds["Block Size"] == "mean"   # launch geometry, not a sum
    assert p.launches.iloc[1]["gpu__time_duration.sum"] == pytest.approx(9344e-9)


def test_xplacer_lassen_details_more_sections_short_kernel_names():
    p = read(LASSEN)
    assert p.format == "ncu-details" and len(p.launches) == 6
    assert list(p.launches["kernel"][:2]) == ["Kernel2", "Kernel"]
    first = p.launches.iloc[0]
    assert first["gpu__time_duration.sum"] == pytest.approx(4672e-9)
    assert first["Memory Throughput"] == pytest.approx(5986301369.86) and p.units["Memory Throughput"] == "byte/s"
    assert first["Executed Instructions"] == 2399 and p.units["Executed Instructions"] == "inst"
    assert first["Registers Per Thread"] == 16


def test_real_host_and_target_join_on_the_kernels_base_name():
    """Host: the AWS V100 (signatures); target: Lassen's V100 (bare names): the same six bfs launches."""
    host = to_workloads([(read(AWS), "aws")])
    target = to_workloads([(read(LASSEN), "lassen")])
    assert host.repeats == {"launches": 6, "outliers": 1}     # Kernel's 10,272 ns launch vs 9,344 and 9,376
    joined = with_profile(host, target)
    rows = joined.frame.set_index("workload")
    assert sorted(rows.index) == ["Kernel", "Kernel2"] and not joined.host_only_rows
    assert rows.loc["Kernel2", "gpu__time_duration.sum"] == pytest.approx((3200 + 3104 + 3104) / 3 * 1e-9)
    assert rows.loc["Kernel", "gpu__time_duration.sum"] == pytest.approx((9344 + 9376) / 2 * 1e-9)
    assert rows.loc["Kernel2", "gpu__time_duration.sum@target"] == pytest.approx((4672 + 4672 + 4256) / 3 * 1e-9)
    assert rows.loc["Kernel", "gpu__time_duration.sum@target"] == pytest.approx((10048 + 10944 + 11936) / 3 * 1e-9)
    assert joined.host_col == "gpu__time_duration.sum"
    assert "Executed Instructions" in joined.target_only_metrics     # the sections AWS did not collect


def test_superbench_b200_rows_end_after_the_metric_value():
    """ncu 2025: metric rows stop after "Metric Value" (a trailing comma), rule rows fill the rule columns;
    text values (PolicySpread, CachePreferNone, all) are not metrics; "Block Size" is both a column and a
    Launch Statistics metric."""
    p = read(B200, "ncu")
    assert p.format == "ncu-details" and len(p.launches) == 1 and not p.launches.columns.duplicated().any()
    k = p.launches.iloc[0]
    assert k["kernel"].startswith("cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16")
    assert k["Block Size"] == "(384, 1, 1)" and k["Grid Size"] == "(9, 32, 1)"
    assert k["Launch Statistics: Block Size"] == 384 and k["Launch Statistics: Grid Size"] == 288
    assert p.kinds["Launch Statistics: Block Size"] == "mean"
    assert k["gpu__time_duration.sum"] == pytest.approx(406240e-9)        # "Duration","ns","406240"
    assert k["DRAM Frequency"] == pytest.approx(3995313115.40) and p.units["DRAM Frequency"] == "Hz"  # "hz"
    assert k["Registers Per Thread"] == 168 and k["# SMs"] == 152
    assert k["Dynamic Shared Memory Per Block"] == 205696 and p.units["Dynamic Shared Memory Per Block"] == "byte/block"
    assert k["Achieved Occupancy"] == pytest.approx(15.53)
    assert "Cluster Scheduling Policy: text, not a metric (not imported)" in p.notes
    assert "SOLBottleneck" not in " ".join(p.metrics)


def test_input_tag_from_a_column_joins_files_named_differently():
    """kernel x input with the tag from ncu's Process Name (bfs_000000 on both machines): the files' names
    (aws / lassen) would give tags that never match."""
    from modeling.errors import DataError
    from modeling.tables.profilers.workloads import launch_tags, target_tag_column

    host_p, target_p = read(AWS), read(LASSEN)
    assert "Process Name" in host_p.tag_columns and "Kernel Time" in host_p.tag_columns
    assert set(launch_tags(host_p, "aws", "Process Name")) == {"bfs_000000"}
    by_file = [to_workloads([(p, t)], "kernel+tag") for p, t in ((host_p, "aws"), (target_p, "lassen"))]
    with pytest.raises(DataError, match="No workload of the host matches"):
        with_profile(*by_file)
    host = to_workloads([(host_p, "aws")], "kernel+tag", tag_column="Process Name")
    tcol = target_tag_column([(target_p, "lassen")], "Process Name")
    joined = with_profile(host, to_workloads([(target_p, "lassen")], "kernel+tag", tag_column=tcol))
    assert sorted(joined.frame["workload"]) == ["Kernel2@bfs_000000", "Kernel@bfs_000000"]
    assert set(joined.frame["application"]) == {"Kernel", "Kernel2"}
    app = to_workloads([(host_p, "aws")], "app", tag_column="Process Name")
    assert list(app.frame["workload"]) == ["bfs_000000"] and app.frame["launches"].iloc[0] == 6
    with pytest.raises(DataError, match=r"aws: no column 'Section Name' to read the input tag from \(columns "
                                        r"that can give it: Process ID, Process Name"):
        to_workloads([(host_p, "aws")], "kernel+tag", tag_column="Section Name")
    with pytest.raises(DataError, match="not for kernel alone"):
        to_workloads([(host_p, "aws")], "kernel", tag_column="Process Name")
    # a target without the column (nvprof has only Device) keeps its file-name tags
    assert target_tag_column([(read("nvprof_metrics_events.csv"), "v100")], "Process Name") is None


def test_cli_tag_column(tmp_path, capsys):
    from modeling.__main__ import main

    out = tmp_path / "t.csv"
    assert main(["import", "ncu", str(F / AWS), "--workload", "kernel+tag", "--tag-column", "Process Name",
                 "--target-file", str(F / LASSEN), "--out", str(out)]) == 0
    assert '"tag_column": "Process Name"' in capsys.readouterr().out
    import pandas as pd
    frame = pd.read_csv(out)
    assert sorted(frame["workload"]) == ["Kernel2@bfs_000000", "Kernel@bfs_000000"]
    assert frame["gpu__time_duration.sum@target"].notna().all()
    assert main(["import", "ncu", str(F / AWS), "--workload", "kernel+tag", "--tag-column", "Nope"]) == 2
    assert "no column 'Nope'" in capsys.readouterr().err


@pytest.mark.parametrize("missing", [None, float("nan"), "", "  "])
def test_a_tag_column_with_a_launch_missing_its_value_is_refused(missing):
    """A launch without a value in the tag column cannot be given an input: refused, whether the value is
    absent (None, NaN) or blank -- not read as the text "None"."""
    from modeling.errors import DataError
    from modeling.tables.profilers.workloads import launch_tags

    p = read(AWS)
    p.launches.loc[p.launches.index[2], "Process Name"] = missing
    with pytest.raises(DataError, match="'Process Name' is empty for some launches"):
        launch_tags(p, "aws", "Process Name")
