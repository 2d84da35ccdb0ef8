"""The /data profiler card's server side as plain functions: staging, key and token checks, join, save parts."""

import base64
from pathlib import Path

import pytest

from dashboard.data_import import panel, staged
from dashboard.state import datasets
from modeling.errors import DataError
from modeling.tables.workload import table_scenario

F = Path(__file__).resolve().parents[1] / "fixtures" / "profilers"


def url(name):
    return "data:text/csv;base64," + base64.b64encode((F / name).read_bytes()).decode()


def test_recognises_each_format_and_refuses_a_plain_table():
    assert staged.profiler_format((F / "ncu_details.csv").read_bytes()) == "ncu-details"
    assert staged.profiler_format((F / "rocprof_compute_MI100_pmc_perf.csv").read_bytes()) == "rocprof-compute"
    assert staged.profiler_format(b"workload,x\nw1,1\n") is None
    assert staged.profiler_format(b"PAR1....") is None


def test_host_and_target_staged_joined_and_saved():
    tokens, infos = panel._host_files([url("ncu_details.csv")], ["ncu_details.csv"])
    assert infos[0]["format"] == "ncu-details" and infos[0]["tag"] == "ncu_details"
    target, tinfo = staged.stage_target((F / "nvprof_metrics_events.csv").read_bytes(), "v100.csv")
    assert tinfo["format"] == "nvprof-metrics"
    joined, host = staged.joined_table(tokens, [target], "kernel")
    assert joined.targets == ["sm__cycles_elapsed.sum@target"] and joined.host_only_rows == ["scan_blelloch"]
    assert staged.target_units(joined) == {}  # nvprof prints no unit for a count: none is invented
    table, raw, mapping, notes = staged.dataset_parts(joined)
    # registers per thread has an n/a: its column is left out rather than inventing a value or dropping a kernel
    assert "launch__registers_per_thread" not in mapping["features"] and len(table) == 8
    assert notes["unmeasured"]["sm__cycles_elapsed.sum@target"]["ids"] == ["scan_blelloch"]
    meta = datasets.save_dataset(table, "ncu host", mapping, notes, raw)
    s = table_scenario(datasets.dataset_table(meta["id"]), mapping["targets"][0], "application", "workload",
                       mapping["features"], mapping["host_col"])
    assert s["X"].shape[0] == 7


def test_simulator_target_and_no_target():
    tokens, _ = panel._host_files(url("ncu_details.csv"), "ncu_details.csv")
    target, info = staged.stage_target((F / "simulator_results.csv").read_bytes(), "sim.csv")
    assert info["kind"] == "simulator"
    joined, _ = staged.joined_table(tokens, [target], "kernel")
    assert joined.target_only_rows == ["never_on_host"]
    alone, _ = staged.joined_table(tokens, None, "kernel")
    with pytest.raises(DataError, match="No target yet"):
        staged.dataset_parts(alone)


@pytest.mark.parametrize("tokens,target,key,message", [
    (None, None, "kernel", "Upload the host"),
    (["st-0000000000000000"] * 21, None, "kernel", "Upload the host"),
    ([{"x": 1}], None, "kernel", "Upload the host"),
    (["../../etc"], None, "kernel", "not found"),
    (["st-0000000000000000"], None, "launch", "Choose what a workload is"),
    (["st-0000000000000000"], None, ["kernel"], "Choose what a workload is"),
])
def test_forged_values_are_refused(tokens, target, key, message):
    with pytest.raises((DataError, LookupError), match=message):
        staged.joined_table(tokens, target, key)


def test_a_bad_file_names_itself_and_nothing_is_staged():
    bad = "data:text/csv;base64," + base64.b64encode(b'"ID","Kernel Name","Metric Name","Metric Value"\n'
                                                     b'"0","k","x","1"\n"1","k","x","abc"\n').decode()
    with pytest.raises(DataError, match="broken.csv: Metric 'x'"):
        panel._host_files([url("ncu_details.csv"), bad], ["ok.csv", "broken.csv"])
    status, tokens, options, _ = panel._host_uploaded([bad], ["broken.csv"])
    assert tokens is None and "Nothing was imported" in str(status) and options == []


def test_one_file_per_input_on_both_sides_matches_by_input_tag():
    host, _ = panel._host_files([url("ncu_details.csv")] * 2, ["a100_n1024.csv", "a100_n2048.csv"])
    status, target, *_ = panel._target_uploaded([url("nvprof_metrics_events.csv")] * 2,
                                             ["v100_n1024.csv", "v100_n2048.csv"])
    assert "2 file(s) read" in str(status)
    joined, _ = staged.joined_table(host, target, "kernel+tag")
    assert "vectorAdd@2048" in set(joined.frame["workload"]) and joined.host_only_rows == ["scan_blelloch@1024",
                                                                                             "scan_blelloch@2048"]
    status, tokens, *_ = panel._target_uploaded([url("simulator_results.csv")] * 2, ["s1.csv", "s2.csv"])
    assert tokens is None and "one simulator table" in str(status)


def test_tag_column_offered_from_the_files_and_checked_on_the_server():
    aws, lassen = "ncu_details_xplacer_bfs_v100_aws.csv", "ncu_details_xplacer_bfs_v100_lassen.csv"
    _status, host, options, value = panel._host_uploaded([url(aws)], [aws])
    assert value is None and {"label": "Process Name", "value": "Process Name"} in options
    _status, target, *_ = panel._target_uploaded([url(lassen)], [lassen])
    joined, _ = staged.joined_table(host, target, "kernel+tag", "Process Name")
    assert sorted(joined.frame["workload"]) == ["Kernel2@bfs_000000", "Kernel@bfs_000000"]
    assert staged.joined_table(host, target, "kernel", "Process Name")[0].frame["workload"].tolist() == \
        ["Kernel", "Kernel2"]                                     # no tag in the kernel key: the column is ignored
    for forged, message in [("Process Nam", "no column 'Process Nam'"), (["Process Name"], "from the list"),
                            ("x" * 300, "from the list")]:
        with pytest.raises(DataError, match=message):
            staged.joined_table(host, target, "kernel+tag", forged)


def test_the_sides_say_none_and_how_many_more():
    """ROCm's counter collection (host) against its kernel trace (target): every metric is the host's, so the
    target's list reads "none"; a long list names its first 12 and how many more."""
    tokens, _ = panel._host_files([url("rocprofv3_counter_collection.csv")], ["cc.csv"])
    target, info = staged.stage_target((F / "rocprofv3_kernel_trace.csv").read_bytes(), "trace.csv")
    assert info["format"] == "rocprofv3-trace"
    joined, _ = staged.joined_table(tokens, [target], "kernel")
    assert joined.targets == ["duration@target"] and len(joined.frame) == 4
    assert staged.target_units(joined) == {"duration@target": "s"} and staged.target_unit(joined) == "s"
    text = panel._sides(joined)[-1].children
    assert text.startswith("Metrics only the host has (6): LDS_Block_Size, ")
    assert "Only the target has (0): none." in text
    assert panel._named([f"m{i}" for i in range(15)]) == ", ".join(f"m{i}" for i in range(12)) + " and 3 more"


def test_a_save_with_workloads_to_predict_links_to_predict_them():
    from dashboard.data_import.saved import next_steps

    meta = {"id": "ds-0123456789abcdef"}
    plain = next_steps(meta, {}, "data")
    assert [c.href for c in plain if hasattr(c, "href")] == ["/scenario?dataset=ds-0123456789abcdef"]
    notes = {"unmeasured": {"a@target": {"count": 0, "ids": []}, "t@target": {"count": 3, "ids": ["x", "y", "z"]}}}
    link = next_steps(meta, notes, "data-prof")[-1]
    assert link.id == "data-prof-predict-link" and link.children == "Predict the 3 workloads without a t@target value"
    assert link.href == "/predict?dataset=ds-0123456789abcdef&target=t%40target"


def test_a_bad_profiler_file_on_the_table_upload_keeps_the_host_files_already_staged():
    from dash import no_update

    bad = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k","x","byte","1"\n"1","k","x","%","2"\n'
    got = panel._main_upload_was_a_profile("data:text/csv;base64," + base64.b64encode(bad.encode()).decode(), "b.csv")
    assert "do not convert to one" in str(got[0]) and got[1:] == (no_update, no_update, no_update)
    assert "b.csv: " in str(got[0]) and "the host files read before are kept" in str(got[0])
    plain = b"ID,host_time,target_time,f1\nw1,1,2,3\nw2,2,3,4\n"  # a workload table: not the card's business
    got = panel._main_upload_was_a_profile("data:text/csv;base64," + base64.b64encode(plain).decode(), "t.csv")
    assert got == (no_update, no_update, no_update, no_update)


def test_a_rocprof_compute_runs_files_uploaded_together_are_one_run():
    """A browser uploads a folder's files, not the folder: pmc_perf.csv, SQ_LEVEL_WAVES.csv and sysinfo.csv of one
    MI300X-like run are one profile (3 launches, not 6; GRBM divided by the XCD count, with its note), tagged by
    the run's name in sysinfo.csv; the same files as a target join the host's run by that tag."""
    run = F / "rocprof_compute" / "vcopy" / "MI300X_A1"
    names = ["pmc_perf.csv", "SQ_LEVEL_WAVES.csv", "sysinfo.csv", "log.txt"]
    urls = ["data:text/csv;base64," + base64.b64encode((run / n).read_bytes()).decode() for n in names]
    status, tokens, _options, _ = panel._host_uploaded(urls, names)
    assert len(tokens) == 1 and "Host: one rocprof-compute run read from 4 files" in str(status)
    joined, host = staged.joined_table(tokens, None, "kernel+tag")
    assert host.repeats["launches"] == 3 and joined.frame["workload"].tolist() == ["vecCopy@vcopy"]
    assert any("divided by 8" in n for n in joined.notes)
    _status, target, *_ = panel._target_uploaded(urls, names)
    joined, _ = staged.joined_table(tokens, target, "kernel+tag")
    assert joined.targets == ["duration@target", "GRBM_GUI_ACTIVE@target"] and joined.target_only_rows == []
    assert any(n.startswith("target vcopy: GRBM_GUI_ACTIVE") for n in joined.notes)
    # files of two runs in one upload cannot be told apart: refused, naming the file
    status, tokens, *_ = panel._target_uploaded(urls[:1] * 2 + urls[2:3],
                                                ["pmc_perf.csv", "pmc_perf.csv", "sysinfo.csv"])
    assert tokens is None and "Two files named 'pmc_perf.csv'" in str(status)
