"""/data in the browser: profiler files (an ncu details CSV as host, an nvprof metrics CSV as target) become a
saved dataset a scenario runs on; real ncu output of two machines joins with the input tag read from a column, and
real ncu files of two machines (eight inputs a side) are saved and run as a scenario;
a rocprof-compute pmc_perf.csv is recognised and previewed; bad files lose nothing."""

from pathlib import Path
from urllib.parse import parse_qs, quote, urlparse

import pytest

from dashboard.state import datasets
from modeling.crossgen.ensemble import run_ensemble
from modeling.tables.profilers.detect import read_profile
from modeling.tables.workload import table_scenario
from pc_browser import choose, download_report, screenshot, start, wait_text

F = Path(__file__).resolve().parents[1] / "fixtures" / "profilers"


def _scenario_and_recomputed(dash_duo, meta, folds):
    """Open /scenario on the saved dataset's first target: the page's ★ E_out, the ★ E_out (the lowest, the
    baseline counted) computed here from the saved table with the transform the page used, and that transform."""
    target = meta["mapping"]["targets"][0]
    dash_duo.driver.get(dash_duo.server_url + f"/scenario?dataset={meta['id']}&target={quote(target)}&folds={folds}")
    eout = wait_text(dash_duo, "#scenario-best-eout", timeout=180)
    transform = parse_qs(urlparse(dash_duo.driver.current_url).query)["transform"][0]
    s = table_scenario(datasets.dataset_table(meta["id"]), target, "application", "workload",
                       meta["mapping"]["features"], meta["mapping"]["host_col"])
    res = run_ensemble(s["X"], s["y"], models="halwpe", folds=folds, host_index=s["host_index"], seed=0,
                       groups=s["groups"], drop_constant=True, transform=transform)
    return eout, f"{res.star[1]:.2f} %", transform


HOTSPOT = F / "xplacer_hotspot"
HOTSPOT_SIZES = (64, 128, 256, 512, 1024, 2048, 4096, 8192)


def _hotspot_joined(dash_duo, perfcast_app, measured):
    """/data with XPlacer's hotspot profiles: the AWS V100's at every size as host, Lassen's at ``measured`` as
    target, joined by kernel x input (the tag from the file names): eight workloads."""
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-prof-host input[type=file]").send_keys(
        "\n".join(str(HOTSPOT / "aws" / f"hotspot_{n}.csv") for n in HOTSPOT_SIZES))
    dash_duo.wait_for_contains_text("#data-prof-host-status", "Nsight Compute CSV, details page", timeout=30)
    dash_duo.find_element("#data-prof-target input[type=file]").send_keys(
        "\n".join(str(HOTSPOT / "lassen" / f"hotspot_{n}.csv") for n in measured))
    dash_duo.wait_for_contains_text("#data-prof-summary", "targets: gpu__time_duration.sum@target", timeout=30)
    dash_duo.find_element("#data-prof-key input[value='kernel+tag']").click()
    dash_duo.wait_for_contains_text("#data-prof-summary", "8 workloads (one per kernel × input)", timeout=30)


def test_ncu_host_and_nvprof_target_saved_and_run(dash_duo, perfcast_app):
    before = len(datasets.list_datasets())
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-prof-host input[type=file]").send_keys(str(F / "ncu_details.csv"))
    dash_duo.wait_for_contains_text("#data-prof-host-status", "Nsight Compute CSV, details page", timeout=20)
    dash_duo.wait_for_contains_text("#data-prof-summary", "8 workloads", timeout=20)
    assert "13 launches (1 outlier launches dropped" in dash_duo.find_element("#data-prof-summary").text
    dash_duo.find_element("#data-prof-target input[type=file]").send_keys(str(F / "nvprof_metrics_events.csv"))
    dash_duo.wait_for_contains_text("#data-prof-target-status", "nvprof CSV, --metrics / --events", timeout=20)
    dash_duo.wait_for_contains_text("#data-prof-summary", "targets: sm__cycles_elapsed.sum@target", timeout=20)
    dash_duo.wait_for_contains_text("#data-prof-preview", "gemm_tiled<128, 64>", timeout=10)
    dash_duo.wait_for_contains_text("#data-prof-host-only", "scan_blelloch", timeout=10)
    assert "flop_count_sp" in dash_duo.find_element("#data-prof-metrics-sides").text
    screenshot(dash_duo.driver, "data_profiler_import")
    dash_duo.find_element("#data-prof-name").send_keys("ncu host, V100 target")
    dash_duo.find_element("#data-prof-save").click()
    dash_duo.wait_for_contains_text("#data-prof-save-status", "Saved 8 workloads", timeout=20)
    assert "1 workload has no value for sm__cycles_elapsed.sum@target" in \
        dash_duo.find_element("#data-prof-save-status").text
    assert len(datasets.list_datasets()) == before + 1
    # the page's saved list shows it without a reload
    dash_duo.wait_for_contains_text("#data-datasets", "ncu host, V100 target", timeout=10)
    meta = next(m for m in datasets.list_datasets() if m["name"] == "ncu host, V100 target")
    assert meta["notes"]["profiler_import"]["formats"] == ["ncu-details"]
    assert datasets.verify_dataset(meta["id"])

    eout, best, _ = _scenario_and_recomputed(dash_duo, meta, folds=3)
    assert eout == best


def test_real_ncu_host_and_target_joined_by_an_input_tag_column(dash_duo, perfcast_app):
    """Real ncu output (XPlacer's bfs on an AWS V100 and on Lassen: tests/fixtures/profilers/README.md)."""
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-prof-host input[type=file]").send_keys(
        str(F / "ncu_details_xplacer_bfs_v100_aws.csv"))
    dash_duo.wait_for_contains_text("#data-prof-host-status", "Nsight Compute CSV, details page", timeout=20)
    dash_duo.find_element("#data-prof-target input[type=file]").send_keys(
        str(F / "ncu_details_xplacer_bfs_v100_lassen.csv"))
    dash_duo.wait_for_contains_text("#data-prof-summary", "targets: gpu__time_duration.sum@target", timeout=20)
    assert "2 workloads" in dash_duo.find_element("#data-prof-summary").text
    # kernel x input: the files' names (aws, lassen) never match; the tag from the Process Name column does
    dash_duo.find_element("#data-prof-key input[value='kernel+tag']").click()
    dash_duo.wait_for_contains_text("#data-prof-summary", "No workload of the host matches", timeout=20)
    choose(dash_duo, "#data-prof-tag-col", "Process Name")
    dash_duo.wait_for_contains_text("#data-prof-summary", "2 workloads (one per kernel × input)", timeout=20)
    dash_duo.wait_for_contains_text("#data-prof-preview", "Kernel2@bfs_000000", timeout=10)
    # bfs has two kernels: saved (a dataset to add the other inputs to), and the message says a model needs 3
    # instead of linking to a scenario that would refuse
    before = len(datasets.list_datasets())
    dash_duo.find_element("#data-prof-save").click()
    dash_duo.wait_for_contains_text("#data-prof-save-status", "Saved 2 workloads as", timeout=20)
    assert "the fewest a model trains on" in dash_duo.find_element("#data-prof-save-status").text
    assert not dash_duo.driver.find_elements("css selector", "#data-prof-saved-link")
    assert len(datasets.list_datasets()) == before + 1


def test_real_ncu_files_of_two_machines_saved_and_run(dash_duo, perfcast_app):
    """Real ncu output on both sides (XPlacer's hotspot at eight grid sizes, an AWS V100 as host and Lassen's V100
    as target: tests/fixtures/profilers/README.md): eight files a side, joined by kernel x input tag (from the
    file names), saved and run as a scenario whose best E_out is the one computed here from the saved table."""
    _hotspot_joined(dash_duo, perfcast_app, HOTSPOT_SIZES)
    dash_duo.wait_for_contains_text("#data-prof-preview", "calculate_temp@8192", timeout=10)
    dash_duo.find_element("#data-prof-name").send_keys("hotspot, AWS V100 to Lassen V100")
    dash_duo.find_element("#data-prof-save").click()
    dash_duo.wait_for_contains_text("#data-prof-save-status", "Saved 8 workloads", timeout=30)
    dash_duo.wait_for_contains_text("#data-datasets", "hotspot, AWS V100 to Lassen V100", timeout=10)
    meta = next(m for m in datasets.list_datasets() if m["name"] == "hotspot, AWS V100 to Lassen V100")
    assert datasets.verify_dataset(meta["id"])
    eout, best, transform = _scenario_and_recomputed(dash_duo, meta, folds=4)
    assert transform == "logratio"  # the page picked the log of the ratio to the host for this data
    assert eout == best


def test_inputs_the_target_never_ran_are_predicted_and_checked_against_their_held_back_profiles(
        dash_duo, perfcast_app, tmp_path):
    """What the tool is for, on real files: hotspot profiled on the AWS V100 (host) at all eight grid sizes,
    on Lassen's V100 (target) at five of them (64, 128, 512, 2048, 8192). The other three are saved as
    workloads to predict; /predict gives each a time on Lassen -- the numbers the library gives for the saved
    dataset -- and finds them inside the training data; five measured inputs cannot support a 90 % interval
    (it needs 9), and the page says so instead of printing the widest residual as one. Lassen's own profiles
    of those inputs, held back here, are the truth: the model is nearer to it, on average, than the host x
    median-ratio baseline."""
    import numpy as np
    import pandas as pd

    from modeling.crossgen.predict import predict_scenario
    from modeling.tables.profilers.workloads import to_workloads

    _hotspot_joined(dash_duo, perfcast_app, (64, 128, 512, 2048, 8192))
    dash_duo.wait_for_contains_text("#data-prof-host-only", "calculate_temp@1024, calculate_temp@256, "
                                                            "calculate_temp@4096", timeout=10)
    dash_duo.find_element("#data-prof-name").send_keys("hotspot, Lassen measured at five sizes")
    dash_duo.find_element("#data-prof-save").click()
    dash_duo.wait_for_contains_text("#data-prof-save-status", "Saved 8 workloads", timeout=30)
    meta = next(m for m in datasets.list_datasets() if m["name"] == "hotspot, Lassen measured at five sizes")
    target = "gpu__time_duration.sum@target"

    # the save's message leads there
    dash_duo.wait_for_contains_text("#data-prof-predict-link",
                                    f"Predict the 3 workloads without a {target} value", timeout=10)
    dash_duo.find_element("#data-prof-predict-link").click()
    model = wait_text(dash_duo, "#predict-model-used", timeout=180)
    assert f"dataset={meta['id']}" in dash_duo.driver.current_url
    assert wait_text(dash_duo, "#predict-counts") == "5 / 3 / 3"  # trained on 5, predicts 3, all inside the data
    # the target's own unit (the profiler's seconds; its other target, cycles, has its own)
    assert wait_text(dash_duo, "#predict-graph .g-ytitle") == "predicted gpu__time_duration.sum@target (s, log scale)"
    screenshot(dash_duo.driver, "predict_profiler_import")
    got = pd.read_csv(download_report(dash_duo.driver, "#predict-download-csv", "predictions_*.csv", tmp_path,
                                      timeout=30)).set_index("id")
    assert sorted(got.index) == ["calculate_temp@1024", "calculate_temp@256", "calculate_temp@4096"]
    assert set(got["unit"]) == {"s"} and got["applicable"].all()

    # the library's prediction for the saved dataset: the same model and numbers
    lib = predict_scenario(datasets.get(meta["id"]).scenario("table", target, "value"), seed=0).cli_json()
    assert model.startswith(lib["model"])
    for r in lib["predictions"]:
        assert got.loc[r["id"], "predicted"] == pytest.approx(r["predicted"], rel=1e-9)
        assert r["lower"] is None and r["upper"] is None  # no interval: 5 inputs support at most 83 %
    assert got["lower"].isna().all() and got["upper"].isna().all()
    assert "No 90 % interval is given" in wait_text(dash_duo, "#predict-summary")

    # the truth: Lassen's profiles of the three inputs, never uploaded
    ape, base_ape = [], []
    for n in (256, 1024, 4096):
        w = to_workloads([(read_profile((HOTSPOT / "lassen" / f"hotspot_{n}.csv").read_bytes()), str(n))],
                         "kernel+tag")
        truth = float(w.frame["gpu__time_duration.sum"].iloc[0])
        row = got.loc[f"calculate_temp@{n}"]
        ape.append(abs(row["predicted"] - truth) / truth)
        base_ape.append(abs(row["baseline"] - truth) / truth)
    assert np.mean(ape) < np.mean(base_ape), (ape, base_ape)


def test_rocprof_compute_pmc_perf_is_recognised_and_previewed(dash_duo, perfcast_app, tmp_path):
    before = len(datasets.list_datasets())
    start(dash_duo, perfcast_app, "/data")
    # dropped on the page's table upload: recognised there and read by the profiler card
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(F / "rocprof_compute_MI100_pmc_perf.csv"))
    dash_duo.wait_for_contains_text("#data-upload-status", "rocprof-compute (omniperf) pmc_perf.csv", timeout=20)
    dash_duo.wait_for_contains_text("#data-prof-host-status", "rocprof-compute (omniperf) pmc_perf.csv", timeout=20)
    dash_duo.wait_for_contains_text("#data-prof-summary", "1 workloads", timeout=20)
    assert "from 3 launches" in dash_duo.find_element("#data-prof-summary").text
    assert "no target yet" in dash_duo.find_element("#data-prof-summary").text
    dash_duo.wait_for_contains_text("#data-prof-preview", "vecCopy", timeout=10)
    # every counter of the file is a column (the grid shows only the first ones on screen)
    profile = read_profile((F / "rocprof_compute_MI100_pmc_perf.csv").read_bytes())
    assert "GRBM_GUI_ACTIVE" in profile.metrics
    assert f"{len(profile.metrics) + 1} features" in dash_duo.find_element("#data-prof-summary").text
    dash_duo.find_element("#data-prof-save").click()
    dash_duo.wait_for_contains_text("#data-prof-save-status", "No target yet", timeout=20)
    # the target: the same run's per-counter rocprof file; then a host file of other kernels matches nothing
    dash_duo.find_element("#data-prof-target input[type=file]").send_keys(str(F / "rocprof_MI100_SQ_LEVEL_WAVES.csv"))
    dash_duo.wait_for_contains_text("#data-prof-target-status", "rocprof counter CSV", timeout=20)
    dash_duo.wait_for_contains_text("#data-prof-summary", "targets: duration@target", timeout=20)
    dash_duo.find_element("#data-prof-host input[type=file]").send_keys(str(F / "ncu_raw.csv"))
    dash_duo.wait_for_contains_text("#data-prof-summary", "No workload of the host matches", timeout=20)
    # a broken file: named with its problem, nothing imported, nothing saved
    broken = tmp_path / "broken_ncu.csv"
    broken.write_text('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k","x","byte","1"\n'
                      '"1","k","x","%","2"\n')
    dash_duo.find_element("#data-prof-host input[type=file]").send_keys(str(broken))
    dash_duo.wait_for_contains_text("#data-prof-host-status", "broken_ncu.csv: Metric 'x' is printed in units that "
                                    "do not convert to one (%, byte)", timeout=20)
    assert "Nothing was imported" in dash_duo.find_element("#data-prof-host-status").text
    assert len(datasets.list_datasets()) == before


def test_a_rocprof_compute_runs_files_uploaded_together_are_read_as_one_run(dash_duo, perfcast_app, tmp_path):
    """A browser uploads a folder's files, not the folder: the MI100 run's pmc_perf.csv and SQ_LEVEL_WAVES.csv
    (the same 3 dispatches) are 3 launches, not 6; the MI300X-like run's files as target are one run whose
    GRBM counters are divided by its 8 XCDs, and the card says so."""
    import shutil

    run = F / "rocprof_compute" / "vcopy" / "MI300X_A1"
    host = tmp_path / "MI100"
    host.mkdir()
    shutil.copy(F / "rocprof_compute_MI100_pmc_perf.csv", host / "pmc_perf.csv")
    shutil.copy(F / "rocprof_MI100_SQ_LEVEL_WAVES.csv", host / "SQ_LEVEL_WAVES.csv")
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-prof-host input[type=file]").send_keys(
        "\n".join(str(host / n) for n in ("pmc_perf.csv", "SQ_LEVEL_WAVES.csv")))
    dash_duo.wait_for_contains_text("#data-prof-host-status", "one rocprof-compute run read from 2 files", timeout=20)
    dash_duo.wait_for_contains_text("#data-prof-summary", "1 workloads", timeout=20)
    assert "from 3 launches" in dash_duo.find_element("#data-prof-summary").text
    dash_duo.find_element("#data-prof-target input[type=file]").send_keys(
        "\n".join(str(run / n) for n in ("pmc_perf.csv", "SQ_LEVEL_WAVES.csv", "sysinfo.csv", "log.txt")))
    dash_duo.wait_for_contains_text("#data-prof-target-status", "one rocprof-compute run read from 4 files", timeout=20)
    assert "divided by 8, the XCD count of MI300X_A1" in dash_duo.find_element("#data-prof-target-status").text
    dash_duo.wait_for_contains_text("#data-prof-summary", "targets: duration@target, GRBM_GUI_ACTIVE@target",
                                    timeout=20)
