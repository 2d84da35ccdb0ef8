"""What a new user met importing profiles: every reader note on the page, no blank tag columns, one run
savable, the scenario's folds defaulting to what the data allows, rounded MI300 timestamps read and said."""

import base64
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dashboard.data_import import panel, staged
from dashboard.state import datasets, uploads

F = Path(__file__).resolve().parents[1] / "fixtures" / "profilers"
RUN = F / "rocprof_compute" / "vcopy" / "MI300X_A1"
NAMES = ["pmc_perf.csv", "SQ_LEVEL_WAVES.csv", "sysinfo.csv", "log.txt"]


def _urls(folder, names):
    return ["data:text/csv;base64," + base64.b64encode((folder / n).read_bytes()).decode() for n in names]


def test_every_reader_note_is_on_the_page_the_xcd_divisor_included():
    status, tokens, _options, _ = panel._host_uploaded(_urls(RUN, NAMES), NAMES)
    text = str(status)
    assert "divided by 8, the XCD count of MI300X_A1" in text
    info = {"filename": "f.csv", "description": "d", "notes": [f"note {i}" for i in range(9)]}
    shown = str(panel._described([info]))
    assert all(f"note {i}" in shown for i in range(9))


def test_the_tag_column_list_has_no_blank_choice():
    infos = [{"kind": "profile", "config": ["Grid_Size", "", " "], "text": ["Dispatch_ID", "\t", "Grid_Size"]},
             {"kind": "profile", "config": ["Grid_Size", ""], "text": ["Dispatch_ID", " "]}]
    assert staged.tag_columns(infos) == ["Grid_Size", "Dispatch_ID"]
    assert all(o["label"].strip() for o in panel._tag_options(infos))


def test_one_run_is_saved_and_says_a_model_needs_three(var):
    """A single rocprof-compute run (one workload) on both sides: saved, with a note instead of a link to a
    scenario that would refuse."""
    urls = _urls(RUN, NAMES)
    _status, host, _o, _v = panel._host_uploaded(urls, NAMES)
    _status, target, *_ = panel._target_uploaded(urls, NAMES)
    from dashboard.access import projects

    status, _listing = panel._save(1, host, target, "kernel+tag", None, "one run", shown_in=projects.current_id())
    text = str(status)
    assert "Saved 1 workload as" in text and "Not saved" not in text
    assert "a model trains on" in text and "data-prof-saved-link" not in text
    meta = datasets.list_datasets()[0]
    assert meta["rows"] == 1 and meta["name"] == "one run"


def test_a_table_upload_still_needs_three_workloads():
    frame = pd.DataFrame({"w": ["a", "b"], "t": [1.0, 2.0], "x": [1.0, 3.0], "y": [2.0, 1.0]})
    from modeling.errors import DataError

    with pytest.raises(DataError, match="at least 3"):
        uploads.build_dataset(frame, {"id_col": "w", "targets": ["t"], "features": ["x", "y"]})


def test_the_scenario_folds_default_to_what_the_data_allows(var):
    from dashboard.crossgen.params import scenario_params
    from dashboard.ui.url_state import parse

    table = pd.DataFrame({"workload": ["a", "b", "c"], "t": [1.0, 2.0, 4.0], "x": [1.0, 3.0, 2.0],
                          "y": [2.0, 1.0, 5.0]})
    mapping = {"id_col": "workload", "targets": ["t"], "features": ["x", "y"]}
    tab, raw, mp, notes = uploads.build_dataset(table, mapping)
    meta = datasets.save_dataset(tab, "three", mp, notes, raw)
    v = parse({"dataset": meta["id"]}, scenario_params())
    assert v["folds"] == 3
    assert parse({}, scenario_params())["folds"] == 10  # the shipped dataset: the papers' 10
    assert parse({"dataset": meta["id"], "folds": "5"}, scenario_params())["folds"] == 5  # a link's own value


def test_rounded_mi300_timestamps_are_read_and_the_reason_for_no_duration_said():
    """rocprof-compute's MI300X test output (ROCm/rocprofiler-compute, MIT) writes Start/End_Timestamp as
    8.1097E+14: read as numbers, to 1e10 ns, so the dispatch's duration cannot be told; the note says so instead
    of calling them unreadable. The same stamps written with every digit in scientific notation give durations."""
    from modeling.tables.profilers.detect import read_profile

    raw = (F / "rocprof_compute_MI300X_SQ_LEVEL_WAVES.csv").read_bytes()
    p = read_profile(raw)
    assert p.launches["duration"].isna().all()
    assert not any("unreadable" in n for n in p.notes)
    assert any("5 significant digits (8.1097E+14: to the nearest 1e+10 ns" in n for n in p.notes)
    mi100 = (F / "rocprof_MI100_SQ_LEVEL_WAVES.csv").read_text()
    ref = read_profile(mi100.encode()).launches["duration"].to_numpy()
    head, *rows = mi100.splitlines()
    cols = head.split(",")
    i_s, i_e = cols.index("Start_Timestamp"), cols.index("End_Timestamp")

    def sci(line):  # the kernel name has commas inside quotes: the stamps are counted from the line's end
        parts = line.split(",")
        for i in (i_s, i_e):
            parts[i - len(cols)] = f"{int(parts[i - len(cols)]):.15E}"
        return ",".join(parts)

    got = read_profile("\n".join([head, *map(sci, rows)]).encode()).launches["duration"].to_numpy()
    assert "E+" in sci(rows[0]) and np.allclose(got, ref) and np.isfinite(got).all()
