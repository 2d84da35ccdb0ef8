"""The simulator readers on output written as the simulators print it, and on gem5's own reference
statistics (tests/data/simulators, BSD)."""

import json
import math
from pathlib import Path

import pytest

from modeling.tables.simulators import gem5
from modeling.tables.simulators.detect import detect, read_paths
from modeling.tables.simulators.records import argument_folder
from tests.modeling.simulators import simlogs

DATA = Path(__file__).resolve().parents[2] / "data" / "simulators"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_gpgpusim_log_one_record_per_launch(tmp_path):
    p = _write(tmp_path, "vecadd.log", simlogs.log(3))
    result = read_paths([p])
    assert not result.refused
    recs = result.records
    assert [r.key.kernel for r in recs] == ["vecAdd", "sgemm_nt_", "vecAdd"]
    assert [r.key.occurrence for r in recs] == [0, 0, 1]
    assert [r.launch_uid for r in recs] == [1, 2, 3]
    assert {r.key.application for r in recs} == {"vecadd"}
    assert recs[2].kernel == simlogs.VEC and recs[0].stream == 0
    v = recs[1].values
    assert v["gpu_sim_cycle"] == 1100 and v["gpu_tot_sim_cycle"] == 2100
    # per-kernel CTAs from the cumulative count, by difference
    assert [r.values["gpu_issued_cta"] for r in recs] == [4, 5, 6]
    assert v["gpgpu_simulation_time"] == 2 and v["gpgpu_simulation_rate_cycle"] == 1050
    assert v["L1D_cache_core[0].Miss_rate"] == pytest.approx(0.667)
    assert math.isnan(v["L1D_cache_core[1].Miss_rate"])  # printed -nan: kept as missing, not dropped
    assert v["total dram reads"] == 12 and v["Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT]"] == 10
    f = result.files[0]
    assert f.units["gpu_occupancy"] == "%" and f.units["L2_BW"] == "GB/s"
    assert recs[0].configuration.startswith("gpgpusim-")
    assert len({r.configuration for r in recs}) == 1


def test_gpgpusim_stream_printed_in_block(tmp_path):
    text = simlogs.HEADER + simlogs.block(simlogs.VEC, 1, 1000, 5000, 1000, 5000, 4, stream=7) + simlogs.EXIT
    rec = read_paths([_write(tmp_path, "s.log", text)]).records[0]
    assert rec.stream == 7


def test_gpgpusim_concurrent_kernels_share_a_block(tmp_path):
    text = simlogs.log(1).replace(f"kernel_name = {simlogs.VEC} ", f"kernel_name = {simlogs.VEC} {simlogs.SGEMM} ")
    rec = read_paths([_write(tmp_path, "c.log", text)]).records[0]
    assert rec.key.kernel == "vecAdd + sgemm_nt_"
    assert "share this block" in rec.notes[0]


def test_accel_sim_run_folder_names_application_arguments_configuration(tmp_path):
    p = _write(tmp_path, "sim_run_11.0/backprop-rodinia-2.0-ft/4096___data_result_4096_txt/QV100-PTX/"
                         "backprop-rodinia-2.0-ft-4096___data_result_4096_txt.accelsim.o1234", simlogs.log(2))
    rec = read_paths([tmp_path / "sim_run_11.0"]).records[0]
    assert (rec.key.application, rec.key.arguments, rec.configuration) == (
        "backprop-rodinia-2.0-ft", "4096___data_result_4096_txt", "QV100-PTX")
    assert p.exists()


def test_limit_leaves_the_cut_kernel_out_and_names_it(tmp_path):
    text = simlogs.log(3, end=simlogs.LIMIT)
    result = read_paths([_write(tmp_path, "lim.log", text)])
    assert [r.launch_uid for r in result.records] == [1, 2]
    assert any("Left out" in n and simlogs.VEC in n and "limit" in n for n in result.files[0].notes)


def test_gem5_v21_dumps_vectors_units_nan_and_cut_dump(tmp_path):
    result = read_paths([_write(tmp_path, "sp1/m5out/stats.txt", simlogs.GEM5_V21)])
    f = result.files[0]
    assert len(f.records) == 2  # the third dump has no end marker
    assert any("dump 2" in n and "end marker" in n for n in f.notes)
    d0, d1 = f.records
    assert d0.key.application == "sp1" and d0.dump == 0 and d1.key.occurrence == 1
    assert d0.values["simSeconds"] == 0.000031 and d1.values["simInsts"] == 13110
    assert d0.values["board.cache_hierarchy.l1dcaches.overallMisses::total"] == 300
    assert d0.values["board.memory.mem_ctrl.readBursts::32-63"] == 18
    assert math.isnan(d0.values["board.cache_hierarchy.l1dcaches.demandAvgMissLatency::cpu.data"])
    assert "board.processor.cores.core.ipc" not in d1.values  # not printed in the second dump: absent
    assert f.units["simSeconds"] == "Second" and f.units["hostTickRate"] == "Tick/Second"
    assert not f.original  # v21 names are already the canonical ones


def test_gem5_real_reference_stats_old_names_mapped():
    result = read_paths([DATA / "gem5-hello-simple-atomic" / "stats.txt"])
    f = result.files[0]
    rec = f.records[0]
    assert rec.values["simInsts"] == 5417 and rec.values["simSeconds"] == 0.000006
    assert rec.values["system.cpu.commitStats0.numInsts"] == 5417  # v23's regrouping of committedInsts
    assert f.original["simSeconds"] == "sim_seconds"
    assert f.original["system.cpu.commitStats0.numInsts"] == "system.cpu.committedInsts"
    assert f.units == {}  # pre-v21 files print no units
    assert rec.key.application == "gem5-hello-simple-atomic"


@pytest.mark.parametrize("printed,canonical", [
    ("sim_seconds", "simSeconds"), ("host_mem_usage", "hostMemory"), ("simInsts", "simInsts"),
    ("system.cpu.dcache.overall_miss_rate::total", "system.cpu.dcache.overallMissRate::total"),
    ("system.cpu.committedInsts", "system.cpu.commitStats0.numInsts"),
    ("system.cpu.numCycles", "system.cpu.numCycles")])
def test_gem5_names_across_versions(printed, canonical):
    assert gem5.canonical(printed) == canonical


def test_get_stats_apps_as_rows(tmp_path):
    result = read_paths([_write(tmp_path, "stats.csv", simlogs.GETSTATS_APPS)])
    f = result.files[0]
    assert f.format == "accelsim-getstats"
    by = {(r.key.application, r.configuration): r.values for r in f.records}
    assert by[("backprop-rodinia-2.0-ft", "RTX2060-PTX")] == {"gpu_tot_sim_cycle": 70210, "gpu_ipc": 640.2}
    assert by[("hotspot-rodinia-2.0-ft", "QV100-PTX")]["gpu_ipc"] == 1200.5
    assert ("hotspot-rodinia-2.0-ft", "RTX2060-PTX") not in by  # NA everywhere: no record


def test_get_stats_kernel_instances_with_commas_in_names(tmp_path):
    f = read_paths([_write(tmp_path, "k.csv", simlogs.GETSTATS_K)]).files[0]
    keys = [(r.key.kernel, r.key.occurrence, r.values["gpu_tot_sim_cycle"]) for r in f.records]
    assert keys == [("bpnn_layerforward_CUDA", 0, 31000), ("bpnn_adjust_weights_cuda", 0, 33005),
                    ("gemm<float, 2>", 0, 9000), ("gemm<float, 2>", 1, 9100)]


def test_get_stats_configs_as_rows(tmp_path):
    f = read_paths([_write(tmp_path, "r.csv", simlogs.GETSTATS_R)]).files[0]
    by = {(r.key.application, r.configuration): r.values["gpu_tot_sim_cycle"] for r in f.records}
    assert by == {("backprop-rodinia-2.0-ft", "QV100-PTX"): 64005, ("hotspot-rodinia-2.0-ft", "QV100-PTX"): 101234,
                  ("backprop-rodinia-2.0-ft", "RTX2060-PTX"): 70210}


def test_long_table(tmp_path):
    text = ("workload,configuration,metric,value,unit\n"
            "mcf/ref--dump--0,skylake,cycles,1200,cycle\n"
            "mcf/ref--dump--0,skylake,ipc,0.8,\n"
            "lbm,skylake,cycles,9000,cycle\n"
            "lbm,skylake,power,nan,W\n")
    f = read_paths([_write(tmp_path, "farm.csv", text)]).files[0]
    assert f.format == "long-table"
    mcf, lbm = f.records
    assert (mcf.key.application, mcf.key.arguments) == ("mcf", "ref") and mcf.values == {"cycles": 1200, "ipc": 0.8}
    assert lbm.key.application == "lbm" and math.isnan(lbm.values["power"])
    assert f.units == {"cycles": "cycle", "power": "W"}


def test_detect_by_content_not_name():
    assert detect(simlogs.log(1).encode(), "x.txt") == "gpgpusim-log"
    assert detect(simlogs.GEM5_V21.encode(), "whatever.out") == "gem5-stats"
    assert detect(simlogs.GETSTATS_R.encode(), "a.log") == "accelsim-getstats"
    assert detect(b"hello\n", "a.log") is None


def test_arguments_named_as_accel_sim_names_run_folders():
    assert argument_folder("-i data/128k.txt") == "_i_data_128k_txt"
    assert argument_folder("") == "NO_ARGS"
    assert argument_folder("x" * 300).startswith("hashed_args_")


def test_json_holds_every_record_with_key_dump_values_notes(tmp_path):
    result = read_paths([_write(tmp_path, "a.log", simlogs.log(2)), DATA / "gem5-hello-simple-atomic"])
    d = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert len(d["records"]) == 3
    r = d["records"][0]
    assert set(r) >= {"key", "configuration", "dump", "values", "notes", "source"}
    assert r["values"]["L1D_cache_core[1].Miss_rate"] is None
    assert result.frame().shape[0] == 3 and set(result.long().columns) >= {"workload", "metric", "value"}


def test_kernel_names_without_the_demangler(monkeypatch):
    from modeling.tables.simulators import records

    monkeypatch.setattr(records.shutil, "which", lambda name: None)
    names = records.demangle([simlogs.VEC, "plain_kernel"])
    assert records.normalise_kernel(simlogs.VEC, names) == "vecAdd"
    assert records.normalise_kernel("plain_kernel", names) == "plain_kernel"


def _stat_lines(path):
    """The statistic lines of each dump of a stats.txt, counted independently of the reader."""
    counts, n, inside = [], 0, False
    for line in path.read_text().splitlines():
        if "Begin Simulation Statistics" in line:
            inside, n = True, 0
        elif "End Simulation Statistics" in line:
            inside = False
            counts.append(n)
        elif inside and line.strip():
            n += 1
    return counts


@pytest.mark.parametrize("folder", ["gem5-hello-simple-atomic", "gem5-hello-simple-timing",
                                    "gem5-dram-lowp-closepage"])
def test_gem5_real_files_every_statistic_read(folder):
    path = DATA / folder / "stats.txt"
    f = read_paths([path]).files[0]
    assert [len(r.values) for r in f.records] == _stat_lines(path)


def test_gem5_real_vectors_and_nan():
    f = read_paths([DATA / "gem5-hello-simple-timing" / "stats.txt"]).files[0]
    v = f.records[0].values
    assert math.isnan(v["system.cpu.dcache.avgBlockedCycles::no_mshrs"])
    printed = f.original["system.cpu.dcache.avgBlockedCycles::no_mshrs"]
    assert printed == "system.cpu.dcache.avg_blocked_cycles::no_mshrs"
    assert v["system.physmem.bytesRead::total"] == v["system.physmem.bytesRead::cpu.inst"] + \
        v["system.physmem.bytesRead::cpu.data"]


def test_gem5_real_file_cut_inside_its_second_dump(tmp_path):
    text = (DATA / "gem5-dram-lowp-closepage" / "stats.txt").read_text()
    cut = tmp_path / "cut" / "stats.txt"
    cut.parent.mkdir()
    cut.write_text(text[: text.rindex("End Simulation Statistics") - 200])
    f = read_paths([cut]).files[0]
    assert [r.dump for r in f.records] == [0]
    assert f.notes[0] == "Left out: dump 1 (the file ends inside it, without its end marker)."


ACCEL = DATA / "accel-sim-rodinia"


def test_real_accel_sim_log_complete_run():
    f = read_paths([ACCEL / "backprop-rodinia-2.0-ft.txt"]).files[0]
    first, second = f.records
    # application and arguments from the log's -trace option, as Accel-Sim names the run folders
    assert (first.key.application, first.key.arguments) == ("backprop-rodinia-2.0-ft", "4096___data_result_4096_txt")
    assert (first.key.kernel, second.key.kernel) == ("bpnn_layerforward_CUDA", "bpnn_adjust_weights_cuda")
    assert (first.launch_uid, second.launch_uid, first.stream) == (1, 2, 0)
    v1, v2 = first.values, second.values
    assert (v1["gpu_sim_cycle"], v2["gpu_sim_cycle"]) == (7948, 7102)
    assert v2["gpu_tot_sim_cycle"] == v1["gpu_tot_sim_cycle"] + v2["gpu_sim_cycle"]
    assert v1["gpu_issued_cta"] + v2["gpu_issued_cta"] == v2["gpu_tot_issued_cta"]
    # each DRAM channel's statistics under its own name, not the last channel's
    assert v1["DRAM[0].n_cmd"] == 4669 and "DRAM[1].n_cmd" in v1
    assert math.isnan(v1["DRAM[0].Row_Buffer_Locality_write"])  # printed -nan
    assert not any("does not know" in n for n in f.notes)


def test_real_accel_sim_log_cut_after_a_launch_and_a_run_that_never_started():
    result = read_paths([ACCEL])
    by = {Path(f.source).name: f for f in result.files}
    path = by["pathfinder-rodinia-2.0-ft.txt"]
    assert [(r.key.kernel, r.key.occurrence) for r in path.records] == [("dynproc_kernel", 0), ("dynproc_kernel", 1)]
    assert any(n.startswith("Left out: _Z14dynproc_kerneliPiS_S_iiii (launch 3)") for n in path.notes)
    assert [Path(s).name for s, _ in result.refused] == ["heartwall-rodinia-2.0-ft.txt"]
    # one simulated machine: one configuration key for both applications
    assert len({r.configuration for r in result.records}) == 1


def test_log_memory_holds_one_block_at_a_time(tmp_path):
    """A log of many launches: the reading holds each block's values only until the block ends (its record
    keeps one array of floats), so memory grows with the records' arrays, not with the blocks' text."""
    import tracemalloc

    text = (ACCEL / "backprop-rodinia-2.0-ft.txt").read_text()
    first, end = text.index("launching kernel name:"), text.index("GPGPU-Sim: *** exit detected ***")
    log = tmp_path / "many.log"
    log.write_text(text[:first] + text[first:end] * 20 + text[end:])  # 40 launches, 2,637 statistics each
    tracemalloc.start()
    try:
        f = read_paths([log]).files[0]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(f.records) == 40
    arrays = sum(r.data.itemsize * len(r.data) for r in f.records)  # 40 x 2,637 x 8 bytes: 0.8 MB
    assert peak < arrays + 6 * 2**20


def test_files_of_one_study_share_their_tables_of_names(tmp_path):
    """10,000 stats.txt files of one study print the same statistics: one table of names, not one per file."""
    text = (DATA / "gem5-hello-simple-timing" / "stats.txt").read_text()
    for i in range(3):
        _write(tmp_path, f"study/sp{i}/stats.txt", text)
    _write(tmp_path, "study/other/stats.txt", simlogs.GEM5_V21)
    files = read_paths([tmp_path / "study"]).files
    by = {f.records[0].key.application: f for f in files}
    assert by["sp0"].names is by["sp1"].names is by["sp2"].names
    assert by["sp0"].original is by["sp2"].original
    assert by["other"].names is not by["sp0"].names
    assert by["sp2"].records[0].to_dict()["values"] == by["sp0"].records[0].to_dict()["values"]
