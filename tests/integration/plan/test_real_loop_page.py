"""The loop in headless Chromium, from real host profiles: XPlacer's Nsight Compute profiles of Rodinia hotspot
(eight grid sizes, an AWS V100) imported on /data with the farm's GPGPU-Sim logs for five of them as the
target (the simulator's statistics the target, the host's counters the features, joined on the workload key),
the three not simulated predicted on /predict, and /plan choosing the next batch among them."""

import zipfile
from pathlib import Path

from dashboard.state import datasets
from modeling.tables.profilers.detect import read_profile
from pc_browser import click_settled as click
from pc_browser import start, text_in, wait_text
from tests.modeling.simulators import simlogs

HOTSPOT = Path(__file__).resolve().parents[2] / "fixtures" / "profilers" / "xplacer_hotspot" / "aws"
SIZES = (64, 128, 256, 512, 1024, 2048, 4096, 8192)
SIMULATED = (64, 256, 1024, 4096, 8192)


def farm_zip(path: Path) -> list[str]:
    """A zip of one GPGPU-Sim log per simulated size (``hotspot_N.log``, the kernel the profile names, cycles
    about the host's time at 1.4 GHz); returns the keys of the sizes not simulated."""
    with zipfile.ZipFile(path, "w") as zf:
        for n in SIMULATED:
            prof = read_profile((HOTSPOT / f"hotspot_{n}.csv").read_bytes())
            seconds = float(prof.launches["gpu__time_duration.sum"].iloc[0])
            cycles = int(seconds * 1.4e9 * (1.1 if n % 3 else 0.95))
            zf.writestr(f"farm/hotspot_{n}.log", simlogs.HEADER + simlogs.block("calculate_temp", 1, cycles, 4000,
                                                                                cycles, 4000, 4) + simlogs.EXIT)
    return [f"hotspot_{n}/NO_ARGS--calculate_temp--0" for n in SIZES if n not in SIMULATED]


def test_host_profiles_and_simulator_logs_to_a_prediction_and_the_next_plan(dash_duo, perfcast_app, tmp_path):
    candidates = farm_zip(tmp_path / "farm_round1.zip")
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-prof-host input[type=file]").send_keys(
        "\n".join(str(HOTSPOT / f"hotspot_{n}.csv") for n in SIZES))
    dash_duo.wait_for_contains_text("#data-prof-host-status", "Nsight Compute CSV, details page", timeout=30)
    dash_duo.find_element("#data-prof-target input[type=file]").send_keys(str(tmp_path / "farm_round1.zip"))
    dash_duo.wait_for_contains_text("#data-prof-target-status", "simulator output (gpgpusim-log): 5 record(s)",
                                    timeout=30)
    dash_duo.wait_for_contains_text("#data-prof-summary-text", "target gpu_sim_cycle from the simulator", timeout=30)
    assert "features from the measured side" in text_in(dash_duo.driver, "#data-prof-summary-text")
    assert "5 matched" in text_in(dash_duo.driver, "#data-prof-sim-join")
    dash_duo.wait_for_contains_text("#data-prof-preview", "hotspot_8192/NO_ARGS--calculate_temp--0", timeout=10)
    dash_duo.find_element("#data-prof-name").send_keys("hotspot round 1")
    click(dash_duo, "#data-prof-save")
    dash_duo.wait_for_contains_text("#data-prof-save-status", "Saved 8 workloads", timeout=30)
    meta = next(m for m in datasets.list_datasets() if m["name"] == "hotspot round 1")
    prov = meta["notes"]["simulator_import"]
    assert prov["role"] == "measured" and prov["target_from"]["hotspot_64/NO_ARGS--calculate_temp--0"] == \
        "farm_round1.zip!farm/hotspot_64.log#0"

    dash_duo.driver.get(dash_duo.server_url + f"/predict?dataset={meta['id']}&target=gpu_sim_cycle"
                                              "&model=OLS&transform=log")
    click(dash_duo, "#predict-run")
    wait_text(dash_duo, "#predict-model-used", timeout=180)
    assert text_in(dash_duo.driver, "#predict-counts").startswith("5 / 3")
    for wid in candidates:
        dash_duo.wait_for_contains_text("#predict-table", wid.split("/")[0], timeout=20)

    dash_duo.driver.get(dash_duo.server_url + f"/plan?dataset={meta['id']}&target=gpu_sim_cycle&cost=slowdown"
                                              "&budget=2&strategy=diversity")
    click(dash_duo, "#plan-run")
    wait_text(dash_duo, "#plan-strategy-used", timeout=240)
    assert text_in(dash_duo.driver, "#plan-counts") == "5 / 3"
    rows = dash_duo.driver.find_elements("css selector", "#plan-batch .ag-pinned-left-cols-container .ag-row")
    ids = [r.text.split("\n")[1] for r in sorted(rows, key=lambda r: int(r.get_attribute("row-index")))]
    assert len(ids) == 2 and set(ids) <= set(candidates), ids
