"""rocprof-compute output read as the tool writes it: a run's folder is one input (its counter files merged by
dispatch, its folder name the input tag), GRBM counters summed over an MI300's XCDs divided by the XCD count
as the tool does, and one layout detected as one layout on MI100 and MI300X.

The MI100 files are the real ones kept in tests/fixtures/profilers (one run: pmc_perf.csv and
SQ_LEVEL_WAVES.csv of the same three dispatches), copied into a folder here; the MI300X-like run
(``rocprof_compute/vcopy/MI300X_A1``) is synthetic, shaped like the tool's MI300 layout (see the fixtures'
README)."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from modeling.__main__ import main
from modeling.errors import DataError
from modeling.tables.profilers.cli import run_import
from modeling.tables.profilers.detect import detect, read_profile
from modeling.tables.profilers.values import profiler_text

F = Path(__file__).resolve().parents[2] / "fixtures" / "profilers"
MI300X = F / "rocprof_compute" / "vcopy" / "MI300X_A1"
MI100_PMC, MI100_SQ = F / "rocprof_compute_MI100_pmc_perf.csv", F / "rocprof_MI100_SQ_LEVEL_WAVES.csv"


def mi100_run(parent: Path, name: str = "vcopy_n1048576") -> Path:
    """The real MI100 run's two files in a folder named as rocprof-compute names its files."""
    folder = parent / name
    folder.mkdir(parents=True)
    shutil.copy(MI100_PMC, folder / "pmc_perf.csv")
    shutil.copy(MI100_SQ, folder / "SQ_LEVEL_WAVES.csv")
    return folder


def test_a_run_folder_counts_each_dispatch_once_and_is_tagged_by_its_folder(tmp_path):
    """pmc_perf.csv and SQ_LEVEL_WAVES.csv hold the same 3 dispatches: 3 launches, not 6, one workload per
    kernel x input named by the folder (every file is pmc_perf.csv, so the file name cannot tag it)."""
    folder = mi100_run(tmp_path)
    out = run_import("rocprof", [str(folder)], [], "kernel+tag", None, 7.0)
    assert out["launches"]["launches"] == 3 and out["formats"] == ["rocprof-compute"]
    assert out["workloads"] == 1
    # the same run given as its files (from one folder) is the same input
    files = run_import("rocprof", [str(folder / "pmc_perf.csv"), str(folder / "SQ_LEVEL_WAVES.csv")], [],
                       "kernel+tag", str(tmp_path / "t.csv"), 7.0)
    assert files["launches"]["launches"] == 3 and files["workloads"] == 1
    table = pd.read_csv(tmp_path / "t.csv")
    assert table["workload"].tolist() == ["vecCopy@vcopy_n1048576"]
    # the level counter only SQ_LEVEL_WAVES.csv has is merged in; a counter both have keeps pmc_perf.csv's value
    assert {"SQ_LEVEL_WAVES", "SQ_ACCUM_PREV_HIRES (SQ_LEVEL_WAVES)"} <= set(table.columns)
    from modeling.tables.profilers.rocprof_compute import read_folder

    pmc = read_profile(MI100_PMC.read_bytes()).launches["GRBM_GUI_ACTIVE"]
    run = read_folder(folder).profile
    assert run.launches["GRBM_GUI_ACTIVE"].tolist() == pmc.tolist()
    assert run.launches["SQ_ACCUM_PREV_HIRES (SQ_LEVEL_WAVES)"].tolist() == [101113104, 98814560, 99218352]


def test_two_runs_folders_are_two_inputs_named_by_what_differs(tmp_path):
    a, b = mi100_run(tmp_path, "vcopy_n1024"), mi100_run(tmp_path, "vcopy_n2048")
    out = run_import("rocprof", [str(a), str(b)], [], "kernel+tag", str(tmp_path / "t.csv"), 7.0)
    assert out["launches"]["launches"] == 6 and out["workloads"] == 2
    assert sorted(pd.read_csv(tmp_path / "t.csv")["workload"]) == ["vecCopy@1024", "vecCopy@2048"]


def test_mi300x_like_run_divides_grbm_by_the_xcd_count_and_says_so(tmp_path):
    """MI300X sums GRBM_GUI_ACTIVE over its 8 XCDs; rocprof-compute divides by sysinfo.csv's num_xcd. Read
    without sysinfo.csv the same run gives 8x the cycles (and says they may be summed); read with it, exactly
    an eighth, with a note naming the divisor and where it came from. Totals (SQ_WAVES) are left alone."""
    from modeling.tables.profilers.rocprof import XCD_HINT
    from modeling.tables.profilers.rocprof_compute import read_folder

    run = read_folder(MI300X)
    bare = tmp_path / "MI300X_bare"
    shutil.copytree(MI300X, bare)
    (bare / "sysinfo.csv").unlink()
    raw = read_folder(bare).profile
    for m in ("GRBM_GUI_ACTIVE", "GRBM_COUNT", "GRBM_SPI_BUSY"):
        assert (raw.launches[m] / run.profile.launches[m]).tolist() == [8.0, 8.0, 8.0]
    assert run.profile.launches["SQ_WAVES"].tolist() == raw.launches["SQ_WAVES"].tolist() == [16384.0] * 3
    note = next(n for n in run.profile.notes if "divided by" in n)
    assert "divided by 8" in note and "num_xcd in sysinfo.csv" in note and "rocprof-compute" in note
    assert not any(n.endswith(XCD_HINT) for n in run.profile.notes)
    assert "pmc_perf.csv: " + XCD_HINT in raw.notes
    # the single pmc_perf.csv of that layout is not divided (no XCD count) and says why
    alone = read_profile((MI300X / "pmc_perf.csv").read_bytes())
    assert alone.launches["GRBM_GUI_ACTIVE"].tolist() == raw.launches["GRBM_GUI_ACTIVE"].tolist()
    assert XCD_HINT in alone.notes


def test_an_mi300x_target_is_normalised_in_the_joined_table_with_its_note(tmp_path):
    """MI100 host, MI300X-like target in rocprof-compute's default layout (workloads/vcopy/MI300X_A1): the
    target's GRBM_GUI_ACTIVE is per XCD (no false 8x slowdown), its note reaches the joined table, and the
    target folder, named after its GPU, takes the run's name (the folder above) as its tag."""
    host = mi100_run(tmp_path, "vcopy")
    out = run_import("rocprof", [str(host)], [str(MI300X)], "kernel+tag", str(tmp_path / "j.csv"), 7.0)
    assert out["targets"] == ["duration@target", "GRBM_GUI_ACTIVE@target"] and out["target_only_rows"] == []
    assert any(n.startswith("target vcopy: GRBM_GUI_ACTIVE, GRBM_COUNT, GRBM_SPI_BUSY divided by 8")
               for n in out["notes"])
    j = pd.read_csv(tmp_path / "j.csv")
    assert j["workload"].tolist() == ["vecCopy@vcopy"]
    ratio = j["GRBM_GUI_ACTIVE@target"].iloc[0] / j["GRBM_GUI_ACTIVE"].iloc[0]
    assert 0.5 < ratio < 1.5   # the fixture's MI300X cycles per XCD are of the MI100's order; summed, 6x-7x


def test_one_layout_is_one_format_on_mi100_and_mi300x():
    """The MI300 layout writes Wave_Size_1 / Correlation_ID_1 / XCC_Index where the MI100 / MI200 one writes
    wave_size_1 / obj_1: both are rocprof-compute's merged pmc_perf.csv; ids and indices are not metrics."""
    mi100, mi300x = MI100_PMC.read_bytes(), (MI300X / "pmc_perf.csv").read_bytes()
    assert detect(profiler_text(mi100)) == detect(profiler_text(mi300x)) == "rocprof-compute"
    p = read_profile(mi300x, "rocprof")
    assert p.format == read_profile(mi100, "rocprof").format == "rocprof-compute"
    assert not {"Correlation_ID_1", "Correlation_ID_2", "XCC_Index", "XCC_Index_2"} & set(p.metrics)
    # the per-counter files of both generations are one layout too
    sq = [MI100_SQ.read_bytes(), (MI300X / "SQ_LEVEL_WAVES.csv").read_bytes()]
    assert {detect(profiler_text(r)) for r in sq} == {"rocprof"}


def test_the_command_line_reads_a_folder(tmp_path, capsys):
    assert main(["import", "rocprof", str(MI300X), "--out", str(tmp_path / "t.parquet")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["launches"]["launches"] == 3 and out["formats"] == ["rocprof-compute"]
    assert main(["import", "rocprof", str(tmp_path / "nothing-here")]) == 2
    assert "No file or folder" in capsys.readouterr().err


def test_files_of_two_runs_in_one_folder_and_foreign_files_are_refused(tmp_path):
    from modeling.tables.profilers.rocprof_compute import read_folder, read_run

    pmc = MI100_PMC.read_bytes()
    other = MI100_SQ.read_text().replace("vecCopy(", "vecAdd(").encode()
    with pytest.raises(DataError, match="not of one run"):
        read_run([("pmc_perf.csv", pmc), ("SQ_LEVEL_WAVES.csv", other)])
    with pytest.raises(DataError, match="Nsight Compute.*rocprof output only"):
        read_run([("pmc_perf.csv", pmc), ("x.csv", (F / "ncu_details.csv").read_bytes())])
    with pytest.raises(DataError, match="Two files named 'pmc_perf.csv'"):
        read_run([("a/pmc_perf.csv", pmc), ("b/pmc_perf.csv", pmc)])
    with pytest.raises(DataError, match="No rocprof counter table"):
        read_run([("sysinfo.csv", (MI300X / "sysinfo.csv").read_bytes()), ("log.txt", b"hello\n")])
    bad = (MI300X / "sysinfo.csv").read_text().rsplit(",", 1)[0] + ",eight\n"
    with pytest.raises(DataError, match="num_xcd = 'eight'"):
        read_run([("pmc_perf.csv", (MI300X / "pmc_perf.csv").read_bytes()), ("sysinfo.csv", bad.encode())])
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="empty folder"):
        read_folder(tmp_path / "empty")


def test_which_uploads_are_one_run():
    from modeling.tables.profilers.rocprof_compute import is_run_upload

    assert is_run_upload(["pmc_perf.csv", "SQ_LEVEL_WAVES.csv", "sysinfo.csv", "log.txt"])
    assert is_run_upload(["SQ_LEVEL_WAVES.csv", "sysinfo.csv"])
    assert not is_run_upload(["pmc_perf.csv"])                      # one file: read as it always was
    assert not is_run_upload(["SQ_LEVEL_WAVES.csv", "SQ_IFETCH_LEVEL.csv"])  # no pmc_perf / sysinfo
    assert not is_run_upload(["pmc_perf.csv", "a100_n1024.csv"])    # not all rocprof-compute's names
