"""/data's profiler card with a simulator's own output as the target upload: its statistics are the target
(the host profile's counters the features, joined on the workload key) or the target and the features (the
records' other statistics), chosen on the page as ``import-sim --target/--features`` chooses them; the saved
dataset is the one ``import-sim --join ... --out`` writes, each row remembering the file and dump its target
and features came from; every value from the browser checked."""

import base64
import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dashboard.access import projects
from dashboard.data_import import panel
from dashboard.state import datasets
from modeling.tables.simulators.cli import run_import_sim

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "docs" / "examples" / "farm" / "host"
SIM = ROOT / "tests" / "data" / "simulators" / "accel-sim-rodinia"
GEM5 = ROOT / "tests" / "data" / "simulators" / "gem5-hello-simple-atomic"


def _url(raw: bytes, kind="application/octet-stream") -> str:
    return f"data:{kind};base64," + base64.b64encode(raw).decode()


def _zip(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for f in sorted(folder.iterdir()):
            if f.suffix == ".txt":
                zf.write(f, f"{folder.name}/{f.name}")
    return buf.getvalue()


def _host():
    names = sorted(p.name for p in HOST.iterdir())
    _status, tokens, _o, _v = panel._host_uploaded([_url((HOST / n).read_bytes(), "text/csv") for n in names], names)
    assert tokens, _status
    return tokens


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with each provenance cell's folder left out (the page reads an upload, the command line a path)."""
    out = frame.copy()
    for c in ("target_from", "features_from"):
        out[c] = out[c].astype(str).map(lambda s: s.rsplit("/", 1)[-1])  # zip!folder/file#dump, folder/file#dump
    return out.sort_values("workload").reset_index(drop=True)


def test_simulator_output_as_the_target_is_saved_as_import_sim_writes_it(var, tmp_path):
    host = _host()
    status, target, box, options, _value = panel._target_uploaded(_url(_zip(SIM)), "round1.zip")
    assert target and box == {"display": "block"}, status
    # what was read, and the file refused with why
    assert "simulator output (gpgpusim-log): 4 record(s)" in str(status) and "heartwall" in str(status)
    assert options[:4] == ["cycles", "seconds", "instructions", "power"] and "gpu_sim_insn" in options
    shown = panel._preview(host, target, "kernel", None, "measured", ["cycles"])
    assert shown[0] == {"display": "block"} and "target gpu_sim_cycle from the simulator" in str(shown[1])
    assert "matched" in str(shown[4])
    status, _listing = panel._save(1, host, target, "kernel", None, "farm round 1", "measured", ["cycles"],
                                   shown_in=projects.current_id())
    assert "Saved 10 workloads" in str(status), status
    meta = datasets.list_datasets()[0]
    ds = datasets.get(meta["id"])
    table = datasets.dataset_table(meta["id"])
    info = run_import_sim([str(SIM)], False, str(tmp_path / "cli.csv"), [str(HOST)], targets=["cycles"])
    cli = pd.read_csv(tmp_path / "cli.csv", keep_default_na=True)
    assert ds.mapping["targets"] == ["gpu_sim_cycle"] == info["dataset"]["targets"]
    assert sorted(ds.mapping["features"]) == sorted(info["dataset"]["features"])
    assert ds.mapping["host_col"] == "gpu__time_duration.sum"  # the host's time: the baseline, /plan's slowdown
    page, cmd = _plain(table), _plain(cli.fillna({"target_from": ""}))
    cols = ["workload", "application", "configuration", "gpu_sim_cycle", *info["dataset"]["features"],
            "target_from", "features_from"]
    page["target_from"] = page["target_from"].fillna("").replace("nan", "")
    cmd["target_from"] = cmd["target_from"].replace("nan", "")
    pd.testing.assert_frame_equal(page[cols], cmd[cols], check_dtype=False)
    prov = ds.notes["simulator_import"]
    assert prov["role"] == "measured" and prov["join"]["n_matched"] == info["join"]["n_matched"] == 4
    done = table.loc[table["gpu_sim_cycle"].notna(), "workload"]
    assert all(prov["target_from"][w].startswith("round1.zip!accel-sim-rodinia/") and "#" in prov["target_from"][w]
               for w in done)
    assert np.isnan(table.loc[table["target_from"].fillna("") == "", "gpu_sim_cycle"]).all()


def test_the_simulators_statistics_as_the_features(var, tmp_path):
    """gem5 atomic-CPU statistics: one is the target, the others the features (import-sim --features
    simulated); no host profile is needed."""
    raw = (GEM5 / "stats.txt").read_bytes()
    status, target, box, options, _value = panel._target_uploaded(_url(raw), "stats.txt")
    assert target and box == {"display": "block"}, status
    status, _ = panel._save(1, None, target, "kernel", None, "atomic", "simulated", ["instructions"],
                            shown_in=projects.current_id())
    assert "Saved 1 workload" in str(status), status
    ds = datasets.get(datasets.list_datasets()[0]["id"])
    info = run_import_sim([str(GEM5 / "stats.txt")], False, None, None, targets=["instructions"],
                          features="simulated")
    assert ds.notes["simulator_import"]["role"] == "simulated"
    assert ds.mapping["targets"] == info["dataset"]["targets"]
    assert len(ds.mapping["features"]) > 0 and set(ds.mapping["features"]) <= set(info["dataset"]["features"])
    table = datasets.dataset_table(ds.id)
    assert table["target_from"].iloc[0] == "stats.txt#0" == table["features_from"].iloc[0]


@pytest.mark.parametrize("role, targets, match", [
    ("both", ["cycles"], "Choose what the simulator's statistics are"),
    (["measured"], ["cycles"], "Choose what the simulator's statistics are"),
    ("measured", ["no_such_stat"], "is not a statistic of the simulator output"),
    ("measured", [], "Choose the simulator statistic"),
    ("measured", [{"x": 1}], "is not a statistic"),
    ("measured", ["cycles"] * 9, "Choose the simulator statistic"),
])
def test_forged_roles_and_statistics_are_refused_and_nothing_is_saved(var, role, targets, match):
    host = _host()
    _s, target, _b, _o, _v = panel._target_uploaded(_url(_zip(SIM)), "round1.zip")
    status, listing = panel._save(1, host, target, "kernel", None, "x", role, targets, shown_in=projects.current_id())
    assert "Not saved" in str(status) and match in str(status), status
    assert datasets.list_datasets() == []
    shown = panel._preview(host, target, "kernel", None, role, targets)
    assert match in str(shown[1])


@pytest.mark.parametrize("sent_as", ["..", ".", "../../etc/stats.txt", "..\\..\\stats.txt", 7, None, ""])
def test_a_simulator_upload_sent_under_any_name_is_read_inside_its_own_folder(sent_as, var):
    """The uploaded bytes are written under a safe version of the name the browser sent (one helper for /data
    and /plan): sent as ``..`` the card's reader once opened the temporary folder's parent for writing."""
    from dashboard.data_import.staged import stage_sim_output
    from dashboard.state import files

    raw = (GEM5 / "stats.txt").read_bytes()
    with files.upload_as_file(raw, sent_as, "simulator") as (path, prefix):
        assert Path(path).parent == Path(prefix) and Path(path).name not in ("", ".", "..")
        assert Path(path).read_bytes() == raw
    _, info = stage_sim_output(raw, sent_as)
    assert info["kind"] == "simrecords" and "gem5" in info["description"]
