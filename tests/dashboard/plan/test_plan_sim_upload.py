"""/plan's upload of the farm's own output: a zip of simulator logs joined to the dataset on the workload key,
the missing runs named, the next round's "what changed", and hostile zips refused with nothing saved."""

import io
import zipfile

import pytest

from dashboard.jobs.progress import silent
from dashboard.plan import views, work
from dashboard.plan.kinds import PLAN
from dashboard.state import datasets
from modeling.plan.inputs import PlanInputError
from tests.dashboard.plan.plan_table import plan_frame, save
from tests.modeling.simulators import simlogs

pytestmark = pytest.mark.slow  # each test plans at least once, replays included


def keyed_frame():
    f = plan_frame()
    f["workload"] = [f"{a}/NO_ARGS--kern{i}--0" for i, a in enumerate(f["application"])]
    return f


def farm_zip(ids, truth, extra=None) -> bytes:
    """A zip of one GPGPU-Sim log per application, a block per workload of ``ids`` (cycles: the truth)."""
    by_app = {}
    for wid in ids:
        by_app.setdefault(wid.split("/")[0], []).append(wid)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for app, wids in by_app.items():
            parts, tc, ti = [simlogs.HEADER], 0, 0
            for uid, wid in enumerate(wids, start=1):
                c = int(round(truth[wid]))
                tc, ti = tc + c, ti + 1000
                parts.append(simlogs.block(wid.split("--")[1], uid, c, 1000, tc, ti, 4 * uid))
            parts.append(simlogs.EXIT)
            zf.writestr(f"farm/{app}.log", "".join(parts))
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()


@pytest.fixture()
def round1(var):
    frame = keyed_frame()
    meta = save(frame)
    params = PLAN.request({"dataset": meta["id"], "cost": "sim_hours", "strategy": "diversity", "budget": 6})[
        "params"]
    first = PLAN.run(params, silent)
    return params, first, frame.set_index("workload")["truth"]


def test_a_zip_of_logs_merges_by_key_names_the_missing_and_the_next_round_says_what_changed(round1):
    params, first, truth = round1
    ids = [b.id for b in first.plan.batch]
    raw = farm_zip(ids[:-1], truth)
    assert work.is_sim_upload(raw, "../../farm.zip")
    meta = work.merge_sim_upload(params, raw, "../../farm.zip", first.plan)
    res = meta["round"]
    assert sorted(meta["merged_ids"]) == sorted(ids[:-1]) and res.statistic == "gpu_sim_cycle"
    assert [m.id for m in res.missing] == [ids[-1]] and res.missing[0].reason == "no simulator output for it"
    assert res.join["n_matched"] == len(ids) - 1
    # where each value came from, without the server's temporary folder
    assert all(s.startswith("farm.zip") for s in res.sources.values()), res.sources
    second = PLAN.run({**params, "dataset": meta["id"]}, silent)
    said = {d.key: d.value for d in second.summary().details}["round-change"]
    assert f"{len(ids) - 1} simulated values were merged" in said
    assert sorted(r["id"] for r in views.round_rows(second)) == sorted(ids[:-1])
    assert second.plan.n_measured == first.plan.n_measured + len(ids) - 1


def test_hostile_or_unjoinable_uploads_are_refused_and_nothing_is_saved(round1):
    params, first, truth = round1
    before = len(datasets.list_datasets())
    climbing = farm_zip([], truth, extra={"../../etc/x.log": simlogs.log(1)})
    with pytest.raises(PlanInputError, match="x.zip: member '../../etc/x.log' has a path that climbs out") as exc:
        work.merge_sim_upload(params, climbing, "x.zip", first.plan)
    assert "perfcast-sim-" not in str(exc.value)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("big.log", b"0" * (40 * 2**20))
    with pytest.raises(PlanInputError, match="bomb.zip: expands 1,026-fold.*zip bomb"):
        work.merge_sim_upload(params, bomb.getvalue(), "bomb.zip", first.plan)
    stranger = farm_zip(["alpha/NO_ARGS--nobody--0"], {"alpha/NO_ARGS--nobody--0": 5.0})
    with pytest.raises(PlanInputError, match="No simulated record joined.*nobody"):
        work.merge_sim_upload(params, stranger, "farm.zip", first.plan)
    assert len(datasets.list_datasets()) == before


def test_retry_missing_on_the_page_gives_the_command_lines_batch(round1, tmp_path, capsys):
    """'run again first' on /plan after an upload of the farm's output plans the batch `plan --results ...
    --previous ... --retry-missing` prints for the same table, output and last batch, to the workload."""
    import json

    from modeling.__main__ import main

    params, first, truth = round1
    ids = [b.id for b in first.plan.batch]
    raw = farm_zip(ids[:-1], truth)
    meta = work.merge_sim_upload(params, raw, "farm.zip", first.plan)
    assert [m.id for m in meta["missing"]] == [ids[-1]]
    second = PLAN.run(PLAN.request({**params, "dataset": meta["id"], "retry": ["missing"]})["params"], silent)
    page = [b.id for b in second.plan.batch]
    assert page[0] == ids[-1] and "run again" in second.plan.batch[0].why
    plain = PLAN.run(PLAN.request({**params, "dataset": meta["id"]})["params"], silent)
    assert [b.id for b in plain.plan.batch] != page  # the option is what put it first
    csv, farm, previous = tmp_path / "table.csv", tmp_path / "farm.zip", tmp_path / "batch.csv"
    keyed_frame().drop(columns=["truth"]).to_csv(csv, index=False)
    farm.write_bytes(raw)
    first.plan.batch_frame().to_csv(previous, index=False)
    assert main(["plan", "--csv", str(csv), "--target", "sim_cycles", "--id", "workload", "--group", "application",
                 "--host-col", "host_s", "--features", "host_s,inst,c1,c2,c3", "--cost-col", "sim_hours",
                 "--budget", "6", "--strategy", "diversity", "--results", str(farm), "--previous", str(previous),
                 "--retry-missing", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert [b["id"] for b in cli["batch"]] == page
    assert [(m["id"], m["reason"]) for m in cli["results"]["missing"]] == [(m.id, m.reason) for m in meta["missing"]]


def test_retry_missing_is_validated_on_the_server(round1):
    """A forged value is refused, and so is the option on a dataset version no round was merged into (nothing
    to run again) or merged without the batch's plan shown (what is missing is unknown)."""
    from dashboard.ui.url_state import InvalidParameter, Refused

    params, first, truth = round1
    for forged in (["yes"], "missing,all", [["missing"]], {"missing": 1}):
        with pytest.raises(InvalidParameter):
            PLAN.request({**params, "retry": forged})
    with pytest.raises(Refused, match="no last batch whose missing runs are known"):
        PLAN.request({**params, "retry": ["missing"]})
    blind = work.merge_sim_upload(params, farm_zip([b.id for b in first.plan.batch][:2], truth), "farm.zip", None)
    with pytest.raises(Refused, match="no last batch whose missing runs are known"):
        PLAN.request({**params, "dataset": blind["id"], "retry": ["missing"]})


def test_a_table_of_results_records_the_missing_for_the_next_batch(round1):
    """The sibling path: results uploaded as a table of ids and values leave the batch's other workloads
    missing, and 'run again first' puts them first as the command line does with a results table."""
    params, first, truth = round1
    ids = [b.id for b in first.plan.batch]
    import pandas as pd

    meta = work.merge_upload(params, pd.DataFrame({"workload": ids[:-2], "sim_cycles": [truth[i] for i in ids[:-2]]}),
                             first.plan)
    assert [m.id for m in meta["missing"]] == ids[-2:]
    second = PLAN.run(PLAN.request({**params, "dataset": meta["id"], "retry": ["missing"]})["params"], silent)
    assert sorted(b.id for b in second.plan.batch[:2]) == sorted(ids[-2:])
