"""Bad simulator output: each a clear message, nothing of it kept, the rest of the import read."""

import zipfile

import pytest

from modeling.errors import DataError
from modeling.tables.simulators import detect as detect_mod
from modeling.tables.simulators.detect import read_paths
from tests.modeling.simulators import simlogs


def _write(tmp_path, name, data):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    (p.write_bytes if isinstance(data, bytes) else p.write_text)(data)
    return p


def test_truncated_log_keeps_complete_kernels_and_names_the_cut_one(tmp_path):
    full = simlogs.log(3, end="")
    cut = full[: full.rindex("L2_total_cache_accesses")]  # the file ends inside the third block
    result = read_paths([_write(tmp_path, "t.log", cut)])
    f = result.files[0]
    assert [r.launch_uid for r in f.records] == [1, 2]
    note = next(n for n in f.notes if n.startswith("Left out"))
    assert simlogs.VEC in note and "launch 3" in note and "exit marker" in note


def test_log_ending_after_a_launch_that_never_finished(tmp_path):
    text = simlogs.log(2, end="") + f"GPGPU-Sim PTX: pushing kernel '{simlogs.VEC}' to stream 0\n"
    f = read_paths([_write(tmp_path, "u.log", text)]).files[0]
    assert len(f.records) == 2
    assert any("launched after the last statistics block" in n and simlogs.VEC in n for n in f.notes)


def test_log_whose_only_kernel_was_cut_is_refused(tmp_path):
    full = simlogs.log(1, end="")
    result = read_paths([_write(tmp_path, "only.log", full[: full.index("total dram reads")]),
                         _write(tmp_path, "good.log", simlogs.log(1))])
    assert [s for s, _ in result.refused] == [str(tmp_path / "only.log")]
    assert "no complete kernel" in result.refused[0][1]
    assert len(result.records) == 1  # the rest of the import is read


def test_unknown_statistic_names_kept_and_noted(tmp_path):
    text = simlogs.log(1).replace("gpu_total_sim_rate=1200", "gpu_total_sim_rate=1200\nzz_new_counter = 77")
    f = read_paths([_write(tmp_path, "v.log", text)]).files[0]
    assert f.records[0].values["zz_new_counter"] == 77
    assert any("zz_new_counter" in n and "kept" in n for n in f.notes)


def test_block_lacking_the_core_statistics_is_noted(tmp_path):
    text = simlogs.log(1).replace("gpu_sim_insn = 5000\n", "")
    rec = read_paths([_write(tmp_path, "w.log", text)]).records[0]
    assert any("lacks gpu_sim_insn" in n for n in rec.notes)


def test_binary_junk_named_log(tmp_path):
    result = read_paths([_write(tmp_path, "junk.log", bytes(range(256)) * 40)])
    assert not result.files
    assert "binary data" in result.refused[0][1]


def test_stats_txt_without_dumps_and_all_nan(tmp_path):
    empty = _write(tmp_path, "a/stats.txt", "nothing here\n")
    nan = _write(tmp_path, "b/stats.txt", "---------- Begin Simulation Statistics ----------\n"
                 "simSeconds nan # x (Second)\nsimInsts nan # y (Count)\n"
                 "---------- End Simulation Statistics   ----------\n")
    result = read_paths([empty, nan])
    assert not result.files
    reasons = dict(result.refused)
    assert "holds no dump" in reasons[str(empty)]
    assert "every statistic of every dump is nan" in reasons[str(nan)]


def test_two_files_claiming_the_same_workload_and_configuration(tmp_path):
    a = _write(tmp_path, "run1/sim_run/app/NO_ARGS/QV100/app-NO_ARGS.o1", simlogs.log(2))
    b = _write(tmp_path, "run2/sim_run/app/NO_ARGS/QV100/app-NO_ARGS.o2", simlogs.log(2))
    result = read_paths([a, b])
    assert len(result.files) == 1 and len(result.records) == 2
    source, reason = result.refused[0]
    assert source == str(b) and str(a) in reason and "same run" in reason


def test_zip_with_a_climbing_path(tmp_path):
    z = tmp_path / "bad.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("ok/run.log", simlogs.log(1))
        zf.writestr("../../evil.log", simlogs.log(1))
    result = read_paths([z])
    assert not result.files
    assert "climbs out" in result.refused[0][1]
    assert not (tmp_path.parent / "evil.log").exists()


def test_zip_that_expands_a_thousandfold(tmp_path):
    z = tmp_path / "bomb.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("big.log", b"\n" * (30 * 2**20))
    result = read_paths([z])
    assert not result.files
    assert "fold" in result.refused[0][1] and "zip bomb" in result.refused[0][1]


def test_zip_member_past_the_import_limit(tmp_path, monkeypatch):
    z = tmp_path / "liar.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("run.log", simlogs.log(2))
    monkeypatch.setattr(detect_mod, "MAX_FILE_BYTES", 2000)  # as if the member were past the import's limit
    result = read_paths([z])
    assert not result.files and "bytes" in result.refused[0][1]


def test_zip_of_good_runs(tmp_path):
    z = tmp_path / "farm.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("farm/a.log", simlogs.log(2))
        zf.writestr("farm/sp1/stats.txt", simlogs.GEM5_V21)
        zf.writestr("farm/README", "not a log")
    result = read_paths([z])
    assert not result.refused and len(result.records) == 4
    assert {r.key.application for r in result.records} == {"a", "sp1"}
    assert result.records[0].file.source.endswith("farm.zip!farm/a.log")


def test_folder_of_many_small_files(tmp_path):
    for i in range(300):
        _write(tmp_path, f"study/sp{i:04d}/stats.txt", simlogs.GEM5_V21.replace("6555", str(6555 + i)))
    _write(tmp_path, "study/notes.md", "a note")
    _write(tmp_path, "study/broken/run.log", b"\x00\x01junk")
    result = read_paths([tmp_path / "study"])
    assert len(result.files) == 300 and len(result.records) == 600
    assert [s for s, _ in result.refused] == [str(tmp_path / "study" / "broken" / "run.log")]
    assert any("skipped" in n for n in result.notes)


def test_too_many_files_refused_before_reading(tmp_path):
    for i in range(5):
        _write(tmp_path, f"d/{i}/stats.txt", simlogs.GEM5_V21)
    with pytest.raises(DataError, match="at most 3"):
        read_paths([tmp_path / "d"], max_files=3)


def test_long_table_with_a_text_value(tmp_path):
    p = _write(tmp_path, "t.csv", "workload,configuration,metric,value\nmcf,a,cycles,12\nmcf,a,ipc,fast\n")
    result = read_paths([p])
    assert not result.files and "not a number" in result.refused[0][1]
