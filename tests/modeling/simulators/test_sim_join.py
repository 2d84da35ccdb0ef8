"""Simulated records joined to measured runs on the workload key, the join report, and the dataset's roles."""

import json
import shutil
from pathlib import Path

import pytest

from modeling.__main__ import main
from modeling.errors import DataError
from modeling.tables.simulators import join as sj
from modeling.tables.simulators.detect import read_paths

DATA = Path(__file__).resolve().parents[2] / "data" / "simulators"
RODINIA = DATA / "accel-sim-rodinia"
HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')
LAYER = "bpnn_layerforward_CUDA(float*, float*, float*, float*, int, int)"
ADJUST = "bpnn_adjust_weights_cuda(float*, int, float*, int, float*, float*)"


def ncu(path: Path, kernels: list) -> Path:
    """An Nsight Compute details CSV of ``kernels`` (one launch each, in order)."""
    out = HEADER
    for i, k in enumerate(kernels):
        for m, u, v in (("gpu__time_duration.sum", "usecond", 10 + i),
                        ("smsp__inst_executed.sum", "inst", 1000 * (i + 1))):
            out += f'"{i}","1","app","h","{k}","1","7","(256, 1, 1)","(64, 1, 1)","0","8.6","S","{m}","{u}","{v}"\n'
    path.write_text(out)
    return path


def simulated():
    return sj.runs_of_import(read_paths([str(RODINIA)]))


def test_join_by_key_names_what_each_side_lacks(tmp_path):
    measured, notes = sj.read_measured([str(ncu(tmp_path / "backprop.csv", [LAYER, ADJUST, "extra_kernel(int)"]))])
    rep = sj.join(simulated(), measured)
    assert rep.by == "key" and not rep.warnings
    assert sorted(p.simulated.key.kernel for p in rep.matched) == ["bpnn_adjust_weights_cuda", "bpnn_layerforward_CUDA"]
    assert all(p.simulated.key.kernel == p.measured.key.kernel for p in rep.matched)
    assert [x.split("--")[1] for x in rep.measured_only] == ["extra_kernel"]
    # the pathfinder run has no measured run: both its complete launches are named
    assert len(rep.simulated_only) == 2 and all("dynproc_kernel" in x for x in rep.simulated_only)
    assert any("paired with simulated run backprop-rodinia-2.0-ft" in n for n in rep.notes)
    assert rep.to_dict()["n_matched"] == 2 and not rep.renamed


def test_traced_window_joins_by_key_and_by_order_only_with_its_offset(tmp_path):
    # the profiler kept every launch, and an extra one first; the simulator ran the traced window
    prof = ncu(tmp_path / "backprop.csv", ["warmup(int)", LAYER, ADJUST])
    measured, _ = sj.read_measured([str(prof)])
    by_key = sj.join(simulated(), measured)
    assert len(by_key.matched) == 2 and [x.split("--")[1] for x in by_key.measured_only] == ["warmup"]
    # by order without the offset: every pair is shifted, named, and a warning says how it was joined
    shifted = sj.join(simulated(), measured, by="order")
    assert shifted.warnings and "launch order" in shifted.warnings[0]
    assert [(r.simulated, r.measured) for r in shifted.renamed] == [
        ("bpnn_layerforward_CUDA", "warmup"), ("bpnn_adjust_weights_cuda", "bpnn_layerforward_CUDA")]
    right = sj.join(simulated(), measured, by="order", offset=1)
    assert len(right.matched) == 2 and not right.renamed
    assert all(p.simulated.key.kernel == p.measured.key.kernel for p in right.matched)


def test_names_that_differ_at_the_same_position_are_listed(tmp_path):
    measured, _ = sj.read_measured([str(ncu(tmp_path / "backprop.csv", [LAYER, "adjust_weights_v2(float*)"]))])
    rep = sj.join(simulated(), measured)
    assert len(rep.matched) == 1
    assert [(r.position, r.simulated, r.measured) for r in rep.renamed] == [
        (1, "bpnn_adjust_weights_cuda", "adjust_weights_v2")]
    assert "names differ" in rep.text()


def test_offset_without_order_and_unknown_join_refused():
    with pytest.raises(DataError, match="offset"):
        sj.join([], [], by="key", offset=2)
    with pytest.raises(DataError, match="not understood"):
        sj.join([], [], by="name")


def _gem5_pair(tmp_path):
    """gem5's own atomic and timing runs of one program, laid out as a farm keeps two CPU models."""
    for model in ("atomic", "timing"):
        d = tmp_path / model / "hello"
        d.mkdir(parents=True)
        shutil.copy(DATA / f"gem5-hello-simple-{model}" / "stats.txt", d / "stats.txt")
    return tmp_path / "timing", tmp_path / "atomic"


def test_another_simulator_as_features_keeps_file_and_dump(tmp_path):
    detailed, atomic = _gem5_pair(tmp_path)
    sim = sj.runs_of_import(read_paths([str(detailed)]))
    measured, _ = sj.read_measured([str(atomic)])
    rep = sj.join(sim, measured)
    assert len(rep.matched) == 1 and not rep.simulated_only and not rep.measured_only
    ds = sj.build_dataset(sim, ["cycles", "seconds"], "measured", rep)
    row = ds.frame.iloc[0]
    assert ds.targets[1] == "simSeconds" and ds.targets[0].endswith("numCycles")
    # the atomic run's own cycles are a feature beside the timing run's cycles, under a name of their own
    assert f"{ds.targets[0]}@measured" in ds.features
    assert row[ds.targets[0]] != row[f"{ds.targets[0]}@measured"]
    assert row["target_from"].endswith("timing/hello/stats.txt#0")
    assert row["features_from"].endswith("atomic/hello/stats.txt#0")


def test_simulated_features_and_unknown_target(tmp_path):
    sim = simulated()
    ds = sj.build_dataset(sim, ["instructions"], "simulated")
    assert ds.targets == ["gpu_sim_insn"] and "gpu_sim_insn" not in ds.features and "gpu_sim_cycle" in ds.features
    assert len(ds.frame) == 4 and ds.features_from == "simulated"
    named = sj.build_dataset(sim, ["gpu_sim_cycle"], ["gpu_occupancy"])
    assert named.features == ["gpu_occupancy"]
    with pytest.raises(DataError, match="No statistic 'gpu_sim_cycl'.*similar: gpu_sim_cycle"):
        sj.build_dataset(sim, ["gpu_sim_cycl"], "simulated")
    with pytest.raises(DataError, match="need a join"):
        sj.build_dataset(sim, ["cycles"], "measured")


def test_import_sim_join_cli_text_and_json(tmp_path, capsys):
    prof = ncu(tmp_path / "backprop.csv", [LAYER, ADJUST, "extra_kernel(int)"])
    out = tmp_path / "ds.csv"
    assert main(["import-sim", str(RODINIA), "--join", str(prof), "--target", "cycles", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "joined by workload key: 2 matched, 2 simulated only, 1 measured only" in text
    assert "measured only: gpgpusim-81d41300f0: backprop/NO_ARGS--extra_kernel--0" in text
    assert "dataset: 3 workload(s), target gpu_sim_cycle, 2 feature(s) from the measured side" in text
    import pandas as pd

    frame = pd.read_csv(out)
    assert list(frame.columns[:4]) == ["workload", "application", "configuration", "gpu_sim_cycle"]
    assert set(sj.PROVENANCE) <= set(frame.columns)
    # the launch the simulator has not run is a candidate, keyed as the simulator will key it
    cand = frame[frame["gpu_sim_cycle"].isna()]
    assert cand["workload"].tolist() == ["backprop-rodinia-2.0-ft/4096___data_result_4096_txt--extra_kernel--0"]
    assert cand["target_from"].isna().all() and cand["features_from"].eq(f"{prof}#2").all()
    assert frame.loc[0, "target_from"].endswith("backprop-rodinia-2.0-ft.txt#0")
    assert main(["import-sim", str(RODINIA), "--join", str(prof), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["join"]["n_matched"] == 2 and len(d["records"]) == 4
    assert d["join"]["matched"][0]["measured_source"] == str(prof)


def test_import_sim_join_options_refused(tmp_path, capsys):
    assert main(["import-sim", str(RODINIA), "--offset", "1"]) == 2
    assert "--by order" in capsys.readouterr().err
    assert main(["import-sim", str(RODINIA), "--target", "cycles", "--features", "measured"]) == 2
    assert "--join" in capsys.readouterr().err
    junk = tmp_path / "junk.csv"
    junk.write_text("a,b\n1,2\n")
    assert main(["import-sim", str(RODINIA), "--join", str(junk)]) == 2
    assert "nothing to join" in capsys.readouterr().err
