"""Metric kinds of Nsight Compute display names, prefixed per-X units, the decimal mark of all-integer files and
the units of nvprof metrics renamed to their ncu names: small ncu details files built in the test."""

from pathlib import Path

import pytest

from modeling.tables.profilers.detect import read_profile
from modeling.tables.profilers.profile import metric_kind
from modeling.tables.profilers.workloads import to_workloads

F = Path(__file__).resolve().parents[2] / "fixtures" / "profilers"
HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def details(launches) -> bytes:
    """An ncu details page: ``launches`` = ``[(grid size, [(section, metric, unit, value), ...]), ...]``, one
    launch of ``k`` each."""
    lines = [HEADER]
    for i, (grid, metrics) in enumerate(launches):
        for section, name, unit, value in metrics:
            lines.append(f'"{i}","1","app","127.0.0.1","k(float*)","1","7","(256, 1, 1)","({grid}, 1, 1)","0","7.0",'
                         f'"{section}","{name}","{unit}","{value}"')
    return ("\n".join(lines) + "\n").encode()


def test_display_name_kinds():
    rates = [("Achieved Active Warps Per SM", "warp"), ("Theoretical Active Warps per SM", "warp"),
             ("Warp Cycles Per Issued Instruction", "cycle"), ("Warp Cycles Per Executed Instruction", "cycle"),
             ("Warp Cycles Per Issue Active", ""), ("Avg. Active Threads Per Warp", ""),
             ("Avg. Not Predicated Off Threads Per Warp", ""), ("Eligible Warps Per Scheduler", "warp"),
             ("Active Warps Per Scheduler", "warp"), ("Issued Warp Per Scheduler", "")]
    geometry = [("Static Shared Memory Per Block", "byte/block"), ("Dynamic Shared Memory Per Block", "byte/block"),
                ("Driver Shared Memory Per Block", "byte/block"), ("Shared Memory Configuration Size", "byte"),
                ("Threads", "thread"), ("Waves Per SM", ""), ("Registers Per Thread", "register/thread"),
                ("Launch Statistics: Block Size", ""), ("# SMs", "SM"), ("# TPCs", ""), ("Cluster Size", ""),
                ("Max Cluster Size", "block"), ("Max Active Clusters", "cluster"), ("Stack Size", ""),
                ("Uses Green Context", ""), ("Static SMem", "byte"), ("Dynamic SMem", "byte")]
    # counts per scheduler / SM add up over launches like their totals
    sums = [("Avg. Executed Instructions Per Scheduler", "inst"), ("Average SM Active Cycles", "cycle"),
            ("Executed Instructions", "inst"), ("SM Active Cycles", "cycle"), ("Avg. Divergent Branches", "")]
    got = {n: metric_kind(n, u) for n, u in rates + geometry + sums}
    assert got == {**{n: "wmean" for n, _ in rates}, **{n: "mean" for n, _ in geometry},
                   **{n: "sum" for n, _ in sums}}


def test_shipped_snake_case_kinds_unchanged():
    assert metric_kind("achieved_occupancy", "") == "wmean" and metric_kind("inst_executed", "") == "sum"
    assert metric_kind("static_smem", "byte") == "mean" and metric_kind("launch__registers_per_thread", "") == "mean"
    assert metric_kind("eligible_warps_per_cycle", "") == "wmean" and metric_kind("SQ_WAVES", "") == "sum"


def test_per_sm_averages_are_not_summed_over_a_workloads_parts():
    # one kernel at two grid sizes: two parts of one workload; durations 3 us and 1 us weigh the rates
    raw = details([(40, [("GPU Speed Of Light", "Duration", "usecond", "3"),
                         ("Occupancy", "Achieved Active Warps Per SM", "warp", "40"),
                         ("Warp State Statistics", "Warp Cycles Per Issued Instruction", "cycle", "20"),
                         ("Launch Statistics", "Static Shared Memory Per Block", "byte/block", "3072"),
                         ("Instruction Statistics", "Executed Instructions", "inst", "1000")]),
                   (12, [("GPU Speed Of Light", "Duration", "usecond", "1"),
                         ("Occupancy", "Achieved Active Warps Per SM", "warp", "12"),
                         ("Warp State Statistics", "Warp Cycles Per Issued Instruction", "cycle", "4"),
                         ("Launch Statistics", "Static Shared Memory Per Block", "byte/block", "1024"),
                         ("Instruction Statistics", "Executed Instructions", "inst", "500")])])
    w = to_workloads([(read_profile(raw), "x")])
    row = w.frame.set_index("workload").loc["k"]
    assert row["Achieved Active Warps Per SM"] == pytest.approx((40 * 3 + 12 * 1) / 4)   # not 52
    assert row["Warp Cycles Per Issued Instruction"] == pytest.approx((20 * 3 + 4 * 1) / 4)
    assert row["Static Shared Memory Per Block"] == pytest.approx(2048)               # geometry: the mean
    assert row["Executed Instructions"] == 1500 and row["gpu__time_duration.sum"] == pytest.approx(4e-6)


def test_real_ncu_files_kinds():
    lassen = read_profile((F / "ncu_details_xplacer_bfs_v100_lassen.csv").read_bytes())
    assert {m: lassen.kinds[m] for m in ("Achieved Active Warps Per SM", "Eligible Warps Per Scheduler",
                                         "Avg. Active Threads Per Warp", "Warp Cycles Per Issued Instruction",
                                         "Static Shared Memory Per Block", "Threads", "Waves Per SM",
                                         "Avg. Executed Instructions Per Scheduler")} == {
        "Achieved Active Warps Per SM": "wmean", "Eligible Warps Per Scheduler": "wmean",
        "Avg. Active Threads Per Warp": "wmean", "Warp Cycles Per Issued Instruction": "wmean",
        "Static Shared Memory Per Block": "mean", "Threads": "mean", "Waves Per SM": "mean",
        "Avg. Executed Instructions Per Scheduler": "sum"}
    trace = read_profile((F / "nvprof_gpu_trace.csv").read_bytes())
    assert trace.kinds["Static SMem"] == trace.kinds["Dynamic SMem"] == "mean"


def test_prefixed_per_block_units_convert():
    from modeling.tables.profilers.values import to_base
    assert to_base(1.5, "Kbyte/block") == (1500.0, "byte/block")
    assert to_base(2.0, "Mbyte/block") == (2e6, "byte/block") and to_base(3.0, "byte/block") == (3.0, "byte/block")
    assert to_base(2.0, "Gbyte/second") == (2e9, "byte/s")          # per second: the UNITS entries
    assert to_base(2.0, "Kbyte/usecond") == (2.0, "Kbyte/usecond")  # another time: kept as printed
    assert to_base(4.0, "inst/cycle") == (4.0, "inst/cycle") and to_base(1.0, "warp/cycle") == (1.0, "warp/cycle")
    # ncu scales the unit per launch: one launch in byte/block, the next in Kbyte/block
    p = read_profile(details([(40, [("Launch Statistics", "Static Shared Memory Per Block", "byte/block", "512")]),
                              (12, [("Launch Statistics", "Static Shared Memory Per Block", "Kbyte/block", "1.54")])]))
    assert p.units["Static Shared Memory Per Block"] == "byte/block"
    assert p.launches["Static Shared Memory Per Block"].tolist() == pytest.approx([512.0, 1540.0])


def _one_metric(values, unit="inst"):
    return read_profile(details([(40, [("Command line profiler metrics", "smsp__inst_executed.sum", unit, v)])
                                 for v in values]))


def test_all_integer_european_file_reads_dots_as_thousands():
    # "1.234.567" can only group thousands: the whole file is European, so "45.056" is 45056 as well
    p = _one_metric(["45.056", "1.234.567", "12"])
    assert p.launches["smsp__inst_executed.sum"].tolist() == [45056.0, 1234567.0, 12.0]
    assert "decimal comma" in p.notes[0]


def test_lone_dot_group_is_read_as_a_decimal_point_and_noted():
    p = _one_metric(["45.056", "12"])
    assert p.launches["smsp__inst_executed.sum"].tolist() == [45.056, 12.0]
    assert "'45.056'" in p.notes[0] and "1000 times larger" in p.notes[0] and "European" in p.notes[0]
    # a number only a decimal point prints ("0.5", "117.35", an ungrouped "3072") settles it: no note
    for other in ("0.5", "117.35", "3072", "1,234.5"):
        q = _one_metric(["45.056", other])
        assert q.launches["smsp__inst_executed.sum"].iloc[0] == pytest.approx(45.056)
        assert not any("European" in n for n in q.notes), other


def test_scaled_nvprof_metrics_take_their_ncu_units():
    from modeling.tables.profilers.names import NCU_UNITS, NVPROF_TO_NCU
    from modeling.tables.profilers.workloads import renamed_to_ncu
    assert {new for new, scale in NVPROF_TO_NCU.values() if scale != 1.0} <= set(NCU_UNITS)
    head = '"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"\n'
    rows = [("warp_execution_efficiency", "Warp Execution Efficiency", "50.00%"),
            ("achieved_occupancy", "Achieved Occupancy", "0.5"), ("gld_efficiency", "Global Load Efficiency", "80%")]
    text = head + "".join(f'"V100 (0)","k(float*)","2","{n}","{d}","{v}","{v}","{v}"\n' for n, d, v in rows)
    p = renamed_to_ncu(read_profile(text.encode()))
    ratio = "smsp__thread_inst_executed_per_inst_executed.ratio"
    assert p.launches[ratio].iloc[0] == pytest.approx(16.0) and p.units[ratio] == ""   # 16 threads, not 16 %
    assert p.units["sm__warps_active.avg.pct_of_peak_sustained_active"] == "%"
    assert p.launches["sm__warps_active.avg.pct_of_peak_sustained_active"].iloc[0] == pytest.approx(50.0)
    assert p.units["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"] == "%"
    assert to_workloads([(read_profile(text.encode()), "x")]).units[ratio] == ""


@pytest.mark.parametrize("name,unit,kind", [
    ("sm__cycles_active.avg", "cycle", "sum"),          # a count averaged over SMs: adds over launches
    ("smsp__inst_executed.avg", "inst", "sum"),
    ("gpc__cycles_elapsed.max", "cycle", "sum"),
    ("dram__bytes_read.sum", "byte", "sum"),
    ("sm__warps_active.avg.per_cycle_active", "warp", "wmean"),   # its rate: a sub-metric after the roll-up
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "wmean"),
    ("dram__bytes_read.sum.per_second", "byte/s", "wmean"),
])
def test_ncu_roll_ups_of_counts_add_up_and_their_rates_do_not(name, unit, kind):
    assert metric_kind(name, unit) == kind


def test_nvprof_values_with_a_unit_and_a_decimal_comma():
    text = ('"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"\n'
            '"d","k","1","gld_efficiency","x","15,5%","15,5%","15,5%"\n'
            '"d","k2","1","gld_efficiency","x","80,25%","80,25%","80,25%"\n')
    p = read_profile(text.encode())
    assert p.launches["gld_efficiency"].tolist() == [15.5, 80.25]
    assert any("decimal comma" in n for n in p.notes)
