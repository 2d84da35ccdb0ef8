"""Profiler readers on the fixtures (tests/fixtures/profilers/README.md), launches -> workloads, names, join, CLI."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from modeling.errors import DataError
from modeling.tables.profilers.detect import detect, read_profile
from modeling.tables.profilers.join import with_profile, with_simulator
from modeling.tables.profilers.names import NVPROF_TO_NCU, align
from modeling.tables.profilers.values import number, profiler_text
from modeling.tables.profilers.workloads import kernel_base, to_workloads

F = Path(__file__).resolve().parents[2] / "fixtures" / "profilers"


def read(name, tool=None):
    return read_profile((F / name).read_bytes(), tool)


def test_ncu_details_pivots_launches_converts_units_and_keeps_signatures():
    p = read("ncu_details.csv", "ncu")
    assert p.format == "ncu-details" and len(p.launches) == 13
    first = p.launches.iloc[0]
    assert first["kernel"] == "void gemm_tiled<128, 64>(float const*, float const*, float*, int, int, int)"
    assert first["smsp__inst_executed.sum"] == 41_943_040            # "41,943,040": thousands separators
    assert first["dram__bytes_read.sum"] == pytest.approx(12.58e6)   # Mbyte -> byte
    assert p.units["dram__bytes_read.sum"] == "byte" and p.units["gpu__time_duration.sum"] == "s"
    scan = p.launches[p.launches["kernel"].str.startswith("scan")].iloc[0]
    assert scan["gpu__time_duration.sum"] == pytest.approx(9.4e-6)   # nsecond "9,400.00" -> s
    assert np.isnan(scan["launch__registers_per_thread"])            # n/a stays empty
    assert p.kinds["sm__throughput.avg.pct_of_peak_sustained_elapsed"] == "wmean"
    assert p.kinds["launch__registers_per_thread"] == "mean" and p.kinds["sm__cycles_elapsed.sum"] == "sum"


def test_ncu_raw_reads_the_units_row_and_leaves_text_columns_out():
    p = read("ncu_raw.csv")
    assert p.format == "ncu-raw" and len(p.launches) == 6
    assert p.launches["gpu__time_duration.sum"].iloc[0] == pytest.approx(182.4e-6)
    assert "device__attribute_display_name" not in p.units
    assert any("launch__func_cache_config: text" in n for n in p.notes)


def test_decimal_comma_file():
    p = read("ncu_details_decimal_comma.csv")
    assert p.launches["gpu__time_duration.sum"].tolist() == pytest.approx([41.2e-6, 41.6e-6, 16.8e-6])
    assert p.launches["smsp__inst_executed.sum"].iloc[0] == 3_276_800
    assert "decimal comma" in p.notes[0]


def test_nvprof_summary_reads_events_and_metrics_with_their_units():
    p = read("nvprof_metrics_events.csv", "nvprof")
    assert p.format == "nvprof-metrics" and not p.per_launch and len(p.launches) == 7
    gemm = p.launches.iloc[0]
    assert gemm["invocations"] == 4 and gemm["elapsed_cycles_sm"] == 13_618_714
    assert p.units["dram_read_throughput"] == "byte/s" and gemm["dram_read_throughput"] > 1e9   # "113.09GB/s"
    assert p.units["gld_efficiency"] == "%" and gemm["gld_efficiency"] == 100.0
    assert gemm["dram_utilization"] == 3                                                     # "Low (3)"
    assert "cannot be filtered" in p.notes[0]


def test_nvprof_trace_leaves_copies_out():
    p = read("nvprof_gpu_trace.csv")
    assert p.format == "nvprof-trace" and len(p.launches) == 9
    assert p.launches["Duration"].iloc[0] == pytest.approx(182.4e-6)   # us -> s
    assert any("1 memory copies" in n for n in p.notes)


@pytest.mark.parametrize("name,fmt", [("rocprof_compute_MI100_pmc_perf.csv", "rocprof-compute"),
                                      ("rocprof_MI100_SQ_LEVEL_WAVES.csv", "rocprof")])
def test_rocprof_real_files(name, fmt):
    p = read(name, "rocprof")
    assert p.format == fmt and len(p.launches) == 3
    assert p.launches["kernel"].iloc[0] == "vecCopy(double*, double*, double*, int, int)"   # [clone .kd] dropped
    assert p.launches["duration"].iloc[0] == pytest.approx(24_320e-9)                      # End - Start
    assert "obj" not in p.units and "Start_Timestamp" not in p.units
    assert "wave_size_1" not in p.units and p.launches["GRBM_GUI_ACTIVE"].iloc[0] > 0
    w = to_workloads([(p, "vcopy")])
    assert w.frame["workload"].tolist() == ["vecCopy"] and w.repeats == {"launches": 3, "outliers": 0}
    assert w.frame["duration"].iloc[0] == pytest.approx(np.mean([24320, 18720, 18720]) * 1e-9)


def test_rocprofv3_real_files():
    """ROCm's own rocprofv3 outputs (counter collection, long layout; kernel trace, no counters): register and
    memory allocations are metrics of the kernel, averaged over its launches (a VGPR count used to add up);
    the trace gives each dispatch's time and its grid, as a target's profile needs."""
    p = read("rocprofv3_counter_collection.csv", "rocprof")
    assert p.format == "rocprofv3" and len(p.launches) == 4
    assert p.launches["kernel"].iloc[0] == "void addition_kernel<float>(float*, float const*, float const*, int, int)"
    assert p.launches["SQ_WAVES"].tolist() == [16384.0] * 4 and p.kinds["SQ_WAVES"] == "sum"
    assert p.launches["VGPR_Count"].tolist() == [8.0, 8.0, 8.0, 12.0]
    assert {p.kinds[m] for m in ("VGPR_Count", "SGPR_Count", "Accum_VGPR_Count", "LDS_Block_Size")} == {"mean"}
    assert p.launches["duration"].iloc[0] == pytest.approx((3200098838483232 - 3200098838431081) * 1e-9)

    t = read("rocprofv3_kernel_trace.csv", "rocprof")
    assert t.format == "rocprofv3-trace" and t.metrics == ["duration"] and len(t.launches) == 8
    assert "Kind" in t.tag_columns and "Grid_Size_Y" in t.config
    w = to_workloads([(t, "trace")])
    assert len(w.frame) == 4 and w.repeats["launches"] == 8  # each kernel twice, one configuration
    add = w.frame.set_index("workload").loc["addition_kernel<float>", "duration"]
    assert add == pytest.approx(np.mean([16157, 12830]) * 1e-9)


def test_rocprofv3_long_layout_is_pivoted():
    text = ("Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,"
            "Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,"
            "Start_Timestamp,End_Timestamp\n"
            '1,1,1,1,7,7,1024,3,"add(float*, float*)",64,0,0,8,16,SQ_WAVES,16,100,1100\n'
            '1,1,1,1,7,7,1024,3,"add(float*, float*)",64,0,0,8,16,GRBM_GUI_ACTIVE,5000,100,1100\n'
            '2,2,1,1,7,7,1024,3,"add(float*, float*)",64,0,0,8,16,SQ_WAVES,16,2000,3000\n'
            '2,2,1,1,7,7,1024,3,"add(float*, float*)",64,0,0,8,16,GRBM_GUI_ACTIVE,5100,2000,3000\n')
    assert detect(text) == "rocprofv3"
    p = read_profile(text.encode())
    assert len(p.launches) == 2 and p.launches["GRBM_GUI_ACTIVE"].tolist() == [5000, 5100]
    assert p.launches["duration"].tolist() == pytest.approx([1e-6, 1e-6])


def test_repeated_launches_are_mad_filtered_and_aggregated_by_kind():
    w = to_workloads([(read("ncu_details.csv"), "host")])
    assert len(w.frame) == 8 and w.repeats == {"launches": 13, "outliers": 1}
    gemm = w.frame.set_index("workload").loc["gemm_tiled<128, 64>"]
    # the 9.5x slower fourth launch is out; the other three are averaged
    assert gemm["gpu__time_duration.sum"] == pytest.approx((182.40 + 184.22 + 186.05) / 3 * 1e-6)  # as printed
    assert gemm["launches"] == 4


def test_kernel_tag_and_app_keys():
    p = read("ncu_details.csv")
    by_tag = to_workloads([(p, "n1024"), (p, "n2048")], "kernel+tag")
    assert "vectorAdd@n2048" in set(by_tag.frame["workload"]) and len(by_tag.frame) == 16
    assert set(by_tag.frame["application"]) == set(to_workloads([(p, "x")]).frame["workload"])
    app = to_workloads([(p, "run1")], "app")
    assert app.frame["workload"].tolist() == ["run1"]
    parts = to_workloads([(p, "x")]).frame
    assert app.frame["smsp__inst_executed.sum"].iloc[0] == pytest.approx(parts["smsp__inst_executed.sum"].sum())
    with pytest.raises(DataError, match="Unknown workload key"):
        to_workloads([(p, "x")], "launch")


def test_kernel_base():
    assert kernel_base("void gemm_tiled<128, 64>(float const*, int)") == "gemm_tiled<128, 64>"
    assert kernel_base("vecCopy(double*, int) [clone .kd]") == "vecCopy"
    assert kernel_base("ampere_sgemm_128x64_nn") == "ampere_sgemm_128x64_nn"


def test_nvprof_names_map_to_ncu_and_one_sided_metrics_are_listed():
    assert NVPROF_TO_NCU["elapsed_cycles_sm"][0] == "sm__cycles_elapsed.sum"
    host = to_workloads([(read("ncu_details.csv"), "h")])
    target = to_workloads([(read("nvprof_metrics_events.csv"), "t")])
    assert "sm__cycles_elapsed.sum" in target.metrics and "smsp__inst_executed.sum" in target.metrics
    occ = target.frame.set_index("workload").loc["vectorAdd", "sm__warps_active.avg.pct_of_peak_sustained_active"]
    assert occ == pytest.approx(64.0)                      # 0.64 (fraction) x 100 -> percent
    assert "flop_count_sp" in target.metrics               # no one-to-one equivalent: kept under its name
    j = with_profile(host, target)
    assert j.targets == ["sm__cycles_elapsed.sum@target"] and j.host_col == "sm__cycles_elapsed.sum"
    assert "flop_count_sp" in j.target_only_metrics and "dram__bytes_read.sum" in j.host_only_metrics
    assert j.host_only_rows == ["scan_blelloch"] and j.target_only_rows == []
    gemm = j.frame.set_index("workload").loc["gemm_tiled<128, 64>"]
    assert gemm["sm__cycles_elapsed.sum@target"] == 13_618_714   # nvprof's per-launch average
    assert align(["a", "b"], ["b", "c"]) == {"common": ["b"], "host_only": ["a"], "target_only": ["c"]}


def test_simulator_join_lists_one_sided_rows():
    host = to_workloads([(read("ncu_details.csv"), "h")])
    j = with_simulator(host, pd.read_csv(F / "simulator_results.csv"))
    assert j.targets == ["sim_cycles@target", "sim_seconds@target"]
    assert j.target_only_rows == ["never_on_host"] and j.host_only_rows == ["gemm_tiled<128, 64>"]
    assert j.frame.set_index("workload").loc["vectorAdd", "sim_cycles@target"] == pytest.approx(41.2 * 2100)
    # two overloads of one kernel name: the host's workload names cannot tell them apart; said, not merged
    two = pd.DataFrame({"kernel": ["vectorAdd(float*)", "vectorAdd(double*)", "stencil_2d(float*)"],
                        "sim_cycles": [1.0, 2.0, 3.0]})
    with pytest.raises(DataError, match=r"Simulator rows 'vectorAdd\(float\*\)' and 'vectorAdd\(double\*\)' both "
                                        r"name kernel 'vectorAdd'"):
        with_simulator(host, two)


@pytest.mark.parametrize("content,message", [
    (b"a,b\n1,2\n", "Not a profiler"),
    (b"PK\x03\x04zip", r"Excel/zip file, not a profiler's CSV output\.$"),  # no ncu-rep advice for a zip
    (b'"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k","x","byte","1"\n'
     b'"1","k","x","%","2"\n', "do not convert to one"),
    (b'"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k","x","byte","1"\n'
     b'"1","k","x","byte","abc"\n', "'abc' is not a number"),
    (b'"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k","x","byte"\n'
     b'"1","k","x","byte","2"\n', "Line 2 has 4 fields"),
    (b"a\x00b", "NUL"),
    (b"NVIDIA Nsight Compute report\x00\x01\x02", r"binary.*ncu --import FILE\.ncu-rep --csv"),
    (b'"ID","Kernel Name","Metric Name","Metric Value"\n"0","k","name","abc"\n', "no numeric metric"),
])
def test_bad_files_are_refused_with_a_message(content, message):
    with pytest.raises(DataError, match=message):
        read_profile(content)


def test_number_parsing():
    assert number("1,234,567.5") == (1234567.5, None)
    assert number("1.234,5", comma_decimal=True) == (1234.5, None)
    assert number("15.5%") == (15.5, "%")
    assert number("Idle (0)") == (0.0, "level")
    assert np.isnan(number("n/a")[0])
    assert profiler_text("\ufeffx".encode("utf-8")) == "x"


def test_cli_writes_the_joined_table(tmp_path, capsys):
    from modeling.__main__ import main

    out = tmp_path / "t.parquet"
    assert main(["import", "ncu", str(F / "ncu_details.csv"), "--target-file", str(F / "nvprof_metrics_events.csv"),
                 "--out", str(out)]) == 0
    frame = pd.read_parquet(out)
    assert len(frame) == 8 and "sm__cycles_elapsed.sum@target" in frame
    assert '"host_only_rows": [\n    "scan_blelloch"' in capsys.readouterr().out
    assert main(["import", "nvprof", str(F / "ncu_details.csv")]) == 2


def test_file_tags_are_the_part_of_the_names_that_differs():
    from modeling.tables.profilers.workloads import file_tags

    assert file_tags(["runs/host_n1024.csv", "runs/host_n2048.csv"]) == ["1024", "2048"]
    assert file_tags(["v100_n1024.csv", "v100_n2048.csv"]) == ["1024", "2048"]
    assert file_tags(["only.csv"]) == ["only"]
    assert file_tags(["same.csv", "same.csv"]) == ["same", "same"]


def test_cli_kernel_and_input_tag_across_files(tmp_path, capsys):
    from modeling.__main__ import main

    paths = {}
    for name, src in [("host_n1.csv", "ncu_details.csv"), ("host_n2.csv", "ncu_details.csv"),
                      ("v100_n1.csv", "nvprof_metrics_events.csv"), ("v100_n2.csv", "nvprof_metrics_events.csv")]:
        paths[name] = tmp_path / name
        paths[name].write_bytes((F / src).read_bytes())
    out = tmp_path / "t.csv"
    assert main(["import", "ncu", str(paths["host_n1.csv"]), str(paths["host_n2.csv"]), "--workload", "kernel+tag",
                 "--target-file", str(paths["v100_n1.csv"]), "--target-file", str(paths["v100_n2.csv"]),
                 "--out", str(out)]) == 0
    frame = pd.read_csv(out)
    assert len(frame) == 16 and frame["sm__cycles_elapsed.sum@target"].notna().sum() == 14
    assert "vectorAdd@2" in set(frame["workload"])


def test_rocprof_v1_layout():
    text = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
            "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs,SQ_WAVES,GRBM_GUI_ACTIVE\n"
            '0,"matrixTranspose(float*, float*, int) (.kd)",2,0,0,9,9,1048576,16,0,0,8,0,16,64,0x0,0x1,100,'
            "1000,3000,3100,16384,4100\n"
            '1,"matrixTranspose(float*, float*, int) (.kd)",2,0,2,9,9,1048576,16,0,0,8,0,16,64,0x0,0x1,4000,'
            "5000,7100,7200,16384,4300\n")
    assert detect(text) == "rocprof"
    p = read_profile(text.encode(), "rocprof")
    assert p.launches["kernel"].tolist() == ["matrixTranspose(float*, float*, int)"] * 2
    assert p.launches["duration"].tolist() == pytest.approx([2e-6, 2.1e-6])
    assert p.config == ["grd", "wgr", "lds"] and "BeginNs" not in p.units and p.kinds["SQ_WAVES"] == "sum"


def test_ncu_details_page_names_and_a_metric_in_two_sections():
    head = '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n'
    rows = ['"0","k(int, int)","GPU Speed Of Light Throughput","Duration","usecond","2.50"\n',
            '"0","k(int, int)","GPU Speed Of Light Throughput","Elapsed Cycles","cycle","4,100"\n',
            '"0","k(int, int)","Launch Statistics","Registers Per Thread","register/thread","32"\n',
            '"0","k(int, int)","Occupancy","Registers Per Thread","register/thread","32"\n',
            '"0","k(int, int)","Occupancy","Block Limit Registers","block","8"\n',
            '"0","k(int, int)","Memory Workload Analysis","Block Limit Registers","block","6"\n']
    p = read_profile((head + "".join(rows)).encode())
    assert p.launches["gpu__time_duration.sum"].iloc[0] == pytest.approx(2.5e-6)
    assert p.launches["gpc__cycles_elapsed.max"].iloc[0] == 4100
    assert "Registers Per Thread" in p.units and "Occupancy: Registers Per Thread" not in p.units  # same value
    assert p.launches["Memory Workload Analysis: Block Limit Registers"].iloc[0] == 6           # another value


def test_nvprof_names_follow_the_transition_guide():
    # per-SM rates, as the guide gives them (the sub-partition's smsp__ rate is four times smaller)
    assert NVPROF_TO_NCU["ipc"] == ("sm__inst_executed.avg.per_cycle_active", 1.0)
    assert NVPROF_TO_NCU["issued_ipc"] == ("sm__inst_issued.avg.per_cycle_active", 1.0)
    # a sum of three ncu metrics in the guide (read + atomic + reduction sectors): not a one-to-one name
    assert "l2_read_transactions" not in NVPROF_TO_NCU and "l2_write_transactions" not in NVPROF_TO_NCU
    assert NVPROF_TO_NCU["inst_executed_global_loads"] == ("smsp__inst_executed_op_global_ld.sum", 1.0)
    assert NVPROF_TO_NCU["divergent_branch"] == ("smsp__sass_branch_targets_threads_divergent.sum", 1.0)


def test_two_nvprof_names_for_one_ncu_metric_keep_two_columns():
    """gld_request and inst_executed_global_loads are the same ncu metric: the one the name table lists first
    is renamed, the other keeps its nvprof name (no two columns of one name, nothing dropped)."""
    rows = ['"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"']
    for kernel, v in (("k1(int)", 100), ("k2(int)", 200), ("k3(int)", 300)):
        for metric in ("gld_request", "inst_executed_global_loads"):
            rows.append(f'"Tesla V100-SXM2-16GB (0)","{kernel}","1","{metric}","Global loads","{v}","{v}","{v}"')
    text = "==1== Profiling result:\n==1== Metric result:\n" + "\n".join(rows) + "\n"
    w = to_workloads([(read_profile(text.encode(), "nvprof"), "t")])
    assert "smsp__inst_executed_op_global_ld.sum" in w.metrics and "gld_request" in w.metrics
    assert len(w.frame.columns) == len(set(w.frame.columns))
    assert w.frame.set_index("workload").loc["k2", "gld_request"] == 200


def test_a_tag_column_with_one_value_in_two_files_is_refused():
    """Real files: XPlacer's hotspot at two grid sizes both ran as process 'hotspot_00'; reading the tag from
    Process Name would merge two inputs into one workload, so it is refused (the file names still serve)."""
    hs = F / "xplacer_hotspot" / "aws"
    profs = [(read_profile((hs / f"hotspot_{n}.csv").read_bytes()), str(n)) for n in (64, 8192)]
    with pytest.raises(DataError, match="same value 'hotspot_00'"):
        to_workloads(profs, "kernel+tag", tag_column="Process Name")
    w = to_workloads(profs, "kernel+tag")
    assert sorted(w.frame["workload"]) == ["calculate_temp@64", "calculate_temp@8192"]


def test_the_same_nvprof_name_wins_in_every_file():
    """Which of two nvprof names for one ncu metric is renamed follows the name table, not the file's order."""
    def profile(order):
        rows = ['"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"']
        for metric in order:
            rows.append(f'"V100 (0)","k1(int)","1","{metric}","Global loads","{7 if metric == "gld_request" else 9}",'
                        f'"{7 if metric == "gld_request" else 9}","{7 if metric == "gld_request" else 9}"')
        return read_profile(("==1== Metric result:\n" + "\n".join(rows) + "\n").encode(), "nvprof")
    a = to_workloads([(profile(["gld_request", "inst_executed_global_loads"]), "a")])
    b = to_workloads([(profile(["inst_executed_global_loads", "gld_request"]), "b")])
    for w in (a, b):
        assert w.frame.set_index("workload").loc["k1", "smsp__inst_executed_op_global_ld.sum"] == 9  # the table's
        assert w.frame.set_index("workload").loc["k1", "gld_request"] == 7
