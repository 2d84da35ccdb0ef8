"""Store, URL state and upload handling as plain functions (no browser)."""

import base64
import json
import os

import numpy as np
import pandas as pd
import pytest

from dashboard.access.projects import project_path
from dashboard.state import datasets, files, scenarios, uploads
from dashboard import jobs
from dashboard.jobs import local
from dashboard.crossgen.params import scenario_params
from dashboard.ui.url_state import InvalidParameter, Param, parse, to_query
from modeling.crossgen.apply import align_columns
from modeling.errors import DataError

KEY_DEAD = jobs.result_key("scenario", {"test": "scenario-dead"}, "fp")
KEY_OK = jobs.result_key("scenario", {"test": "scenario-ok"}, "fp")
KEY_TEST_ERR = jobs.result_key("scenario", {"test": "scenario-test-err"}, "fp")


def _table(n=12):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "x1": rng.random(n), "x2": rng.random(n),
                         "t": rng.random(n) + 1})


MAP = {"id_col": "workload", "group_col": None, "targets": ["t"], "features": ["x1", "x2"], "host_col": None,
       "repeat_col": None}


def test_dataset_roundtrip_checksums_and_restart(var):
    meta = datasets.save_dataset(_table(), "bench", MAP)
    assert datasets.DATASET_ID.match(meta["id"])
    # a "restart": nothing in memory, everything read back from disk
    again = json.loads((project_path("datasets") / meta["id"] / "meta.json").read_text())
    assert again == datasets.dataset_meta(meta["id"])
    assert datasets.verify_dataset(meta["id"])
    pd.testing.assert_frame_equal(datasets.dataset_table(meta["id"]), _table())
    datasets.delete_dataset(meta["id"])
    with pytest.raises(files.NotFound, match="not found"):
        datasets.dataset_meta(meta["id"])


def test_crash_mid_save_leaves_nothing_half_written(var, monkeypatch):
    good = datasets.save_dataset(_table(), "good", MAP)

    def boom(*a, **k):
        raise OSError("No space left on device")
    monkeypatch.setattr(pd.DataFrame, "to_parquet", boom)
    with pytest.raises(files.StorageError, match="Nothing was saved"):
        datasets.save_dataset(_table(), "bad", MAP)
    assert [m["id"] for m in datasets.list_datasets()] == [good["id"]]
    assert not [p for p in project_path("datasets").iterdir() if p.name.startswith(".")]
    assert datasets.verify_dataset(good["id"])


@pytest.mark.parametrize("name", ["../../x", "a\x00b", "CON", "x" * 5000, "🚀 run", "<img onerror=alert(1)>"])
def test_user_names_are_text_only(var, name):
    meta = datasets.save_dataset(_table(), name, MAP)
    assert meta["id"].startswith("ds-") and "/" not in meta["id"]
    assert "\x00" not in meta["name"] and len(meta["name"]) <= files.NAME_MAX
    assert (project_path("datasets") / meta["id"]).is_dir()
    assert sorted(p.name for p in project_path("datasets").iterdir()) == [meta["id"]]


def test_scenarios_survive_restart(var):
    rec = scenarios.save_scenario("scenario", {"host": "GTX-680"}, {"best": "OLS", "e_out": 3.2}, "mine")
    assert scenarios.load_scenario(rec["id"]) == rec
    assert scenarios.list_scenarios("scenario")[0]["id"] == rec["id"]
    with pytest.raises(files.NotFound):
        scenarios.load_scenario("sc-../../etc")
    again = scenarios.save_scenario("scenario", {"host": "GTX-680"}, {"best": "OLS", "e_out": 3.2}, "mine")
    assert again["existing"] and again["id"] == rec["id"] and again["created"] == rec["created"]
    other = scenarios.save_scenario("scenario", {"host": "GTX-680"}, {"best": "OLS", "e_out": 3.2}, "theirs")
    assert other["id"] != rec["id"] and len(scenarios.list_scenarios("scenario")) == 2


def _save_same(q):
    q.put(scenarios.save_scenario("scenario", {"host": "GTX-980", "seed": 1}, {"best": "RF"}, "race"))


def test_the_same_scenario_saved_at_once_gives_one_record(var):
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_save_same, args=(q,)) for _ in range(8)]
    for p in procs:
        p.start()
    recs = [q.get(timeout=30) for _ in procs]
    for p in procs:
        p.join(10)
    assert len({r["id"] for r in recs}) == 1 and sum(not r.get("existing") for r in recs) == 1
    assert [p.name for p in project_path("scenarios").iterdir()] == [f"{recs[0]['id']}.json"]  # no temp files left


def test_url_state_validates_and_roundtrips():
    v = parse({}, scenario_params())
    assert v["host"] == "GTX-680" and v["target"] == "GTX-980" and v["folds"] == 10
    q = to_query(v)
    assert parse(dict(kv.split("=") for kv in q[1:].split("&")), scenario_params()) == v
    for bad, name in [({"host": "NOPE"}, "host"), ({"folds": "1e9"}, "folds"), ({"seed": "x"}, "seed"),
                      ({"cv": ["kfold"]}, "cv"), ({"zzz": "1"}, "zzz"), ({"transform": {"a": 1}}, "transform")]:
        with pytest.raises(InvalidParameter, match=f"invalid parameter {name}"):
            parse(bad, scenario_params())
    with pytest.raises(LookupError, match="not found"):
        parse({"dataset": "ds-0123456789abcdef"}, scenario_params())
    multi = Param("m", "multi", [], ["a", "b"])
    assert multi.parse("a,b,a", {}) == ["a", "b"]
    with pytest.raises(InvalidParameter):
        multi.parse(["a", 3], {})


def test_upload_size_and_kind_checks(monkeypatch):
    monkeypatch.setattr("dashboard.state.uploads.MAX_UPLOAD_BYTES", 1000)
    big = "data:text/csv;base64," + base64.b64encode(b"a,b\n" + b"1,2\n" * 400).decode()
    with pytest.raises(DataError, match="larger than"):
        uploads.decode_upload(big)
    with pytest.raises(DataError, match="corrupted"):
        uploads.decode_upload("data:text/csv;base64,@@@")
    with pytest.raises(DataError, match="never loaded"):
        uploads.parse_upload(b"anything", "model.joblib")


def test_huge_tables_are_refused_before_parsing():
    with pytest.raises(DataError, match="rows"):
        uploads.parse_upload(b"a\n" + b"1\n" * 10_000_001)
    with pytest.raises(DataError, match="columns"):
        uploads.parse_upload(",".join(f"c{i}" for i in range(10_000)).encode() + b"\n" + b"1," * 9999 + b"1\n")


def test_mapping_rules():
    df = _table()
    table, raw, mapping, notes = uploads.build_dataset(df, {"id_col": "workload", "targets": ["t"]})
    assert mapping["features"] == ["x1", "x2"] and raw is None
    with pytest.raises(DataError, match="at least 3"):
        uploads.build_dataset(df.head(2), {"id_col": "workload", "targets": ["t"]})
    with pytest.raises(DataError, match="usable feature"):
        uploads.build_dataset(df.assign(x2=1.0), {"id_col": "workload", "targets": ["t"]})
    with pytest.raises(DataError, match="more than once"):
        uploads.build_dataset(pd.concat([df, df]), {"id_col": "workload", "targets": ["t"]})
    empty = df.assign(x3=np.nan)
    _, _, m, notes = uploads.build_dataset(empty, {"id_col": "workload", "targets": ["t"]})
    assert notes["dropped_empty"] == ["x3"] and "x3" not in m["features"]


def test_simulator_time_columns_pair_with_targets_and_stay_out_of_features(var):
    df = _table().assign(t2=lambda d: d.t * 2, host_time=0.5, **{"sim_time@t": 900.0, "sim_time@t2": 1800.0})
    table, _, m, _ = uploads.build_dataset(df, {"id_col": "workload", "targets": ["t", "t2"],
                                                "host_time_col": "host_time",
                                                "sim_cols": ["sim_time@t2", "sim_time@t"]})
    assert m["sim_time_cols"] == {"t2": "sim_time@t2", "t": "sim_time@t"}  # longest target name wins
    assert m["features"] == ["x1", "x2"] and {"host_time", "sim_time@t"} <= set(table.columns)
    guess = uploads.guess_mapping(uploads.parse_upload(df.to_csv(index=False).encode()))
    assert guess["host_time_col"] == "host_time" and guess["sim_cols"] == ["sim_time@t", "sim_time@t2"]
    meta = datasets.save_dataset(table, "sims", m, {}, None)
    ds = datasets.get(meta["id"])
    host, sim = ds.simulator_times("t2")
    from dashboard.crossgen.work import simulator_speedups

    assert set(simulator_speedups(host, sim).values()) == {3600.0}
    assert ds.simulator_times("nope") is None
    with pytest.raises(DataError, match="names none of the targets"):
        uploads.build_dataset(df.rename(columns={"sim_time@t": "simulated"}),
                              {"id_col": "workload", "targets": ["t2"], "host_time_col": "host_time",
                               "sim_cols": ["simulated"]})
    with pytest.raises(DataError, match="Two simulator-time columns"):
        uploads.build_dataset(df.assign(sim_other_t2=1.0), {
            "id_col": "workload", "targets": ["t2"], "host_time_col": "host_time",
            "sim_cols": ["sim_time@t2", "sim_other_t2"]})
    with pytest.raises(DataError, match="host's run time"):
        uploads.build_dataset(df, {"id_col": "workload", "targets": ["t"], "sim_cols": ["sim_time@t"]})
    with pytest.raises(DataError, match="zero or negative"):
        uploads.build_dataset(df.assign(host_time=0.0), {"id_col": "workload", "targets": ["t"],
                                                         "host_time_col": "host_time", "sim_cols": ["sim_time@t"]})


def test_repeats_are_filtered_then_averaged():
    rows = []
    for i, w in enumerate(("a", "b", "c")):
        for r in range(9):
            rows.append({"workload": w, "run": r, "f1": r + i, "f2": 2.0 * r + i * i, "t": 100.0 + (r % 3) * 0.1})
    rows.append({"workload": "a", "run": 9, "f1": 4, "f2": 8, "t": 1e6})  # a wild run
    df = pd.DataFrame(rows)
    table, raw, mapping, notes = uploads.build_dataset(df, {"id_col": "workload", "targets": ["t"],
                                                            "repeat_col": "run", "features": ["f1", "f2"]})
    assert len(table) == 3 and len(raw) == 28 and notes["repeats"]["outliers"] == 1
    assert table.loc[table.workload == "a", "t"].item() == pytest.approx(100.1)


def test_prediction_columns_must_match_by_name():
    X = np.arange(6.0).reshape(2, 3)
    Xa, extra = align_columns(["b", "a"], ["a", "b", "c"], X)
    assert Xa.tolist() == [[1.0, 0.0], [4.0, 3.0]] and extra == ["c"]
    with pytest.raises(DataError, match="lacks feature column.*z"):
        align_columns(["a", "z"], ["a", "b", "c"], X)


def test_job_errors_and_failures_are_reported(var):
    out = jobs.run_job(KEY_TEST_ERR, lambda report: (_ for _ in ()).throw(DataError("bad input here")))
    assert out == {"key": KEY_TEST_ERR, "error": "bad input here"}
    assert jobs.status(KEY_TEST_ERR)["state"] == "error"
    local.set_status(KEY_DEAD, "running")
    local.results().set(f"status:{KEY_DEAD}", {"state": "running", "pid": 2**22 + 12345, "t": 0})
    assert jobs.job_failed(KEY_DEAD)
    ok = jobs.run_job(KEY_OK, lambda report: {"v": 1})
    assert ok == {"key": KEY_OK} and jobs.get_result(KEY_OK) == {"v": 1}
    assert not jobs.job_failed(KEY_OK)
    assert jobs.status(KEY_OK)["pid"] == os.getpid()


def test_shipped_dataset_view():
    ds = datasets.get("rodinia")
    assert "GTX-680" in ds.hosts and ds.metrics == ["duration", "cycles"] and len(ds.fingerprint) == 16


def test_a_page_reads_a_datasets_files_once(var, monkeypatch):
    """One /scenario layout used to read meta.json 11 times, one /repeats slider move the raw table 3
    times: a saved dataset never changes, so each file is read once per process; deleting it still
    makes it 'not found' at once."""
    import importlib

    rows = [{"workload": w, "run": r, "a": r + i, "b": (r * i) % 5, "t": 1.0 + r % 3}
            for i, w in enumerate("abcdef") for r in range(6)]
    table, raw, mapping, notes = uploads.build_dataset(pd.DataFrame(rows), {
        "id_col": "workload", "targets": ["t"], "repeat_col": "run", "features": ["a", "b"]})
    meta = datasets.save_dataset(table, "counted", mapping, notes, raw)
    reads = {"json": 0, "parquet": []}
    real_json, real_parquet = datasets._json, pd.read_parquet

    def count_json(path):
        reads["json"] += 1
        return real_json(path)

    def count_parquet(path, *a, **k):
        reads["parquet"].append(os.path.basename(path))
        return real_parquet(path, *a, **k)

    monkeypatch.setattr(datasets, "_json", count_json)
    monkeypatch.setattr(datasets.pd, "read_parquet", count_parquet)
    monkeypatch.setattr(datasets, "_READ", datasets.fresh_read_cache())
    import app  # noqa: F401 - registers the pages

    scenario = importlib.import_module("dashboard.pages.scenario")
    repeats = importlib.import_module("dashboard.pages.repeats")
    scenario.layout(dataset=meta["id"])
    assert reads["json"] == 1
    for k in (3, 5, 7):
        repeats._render(meta["id"], "a", "t", k)
    # /scenario reads the table once (its target's scale picks the default transform), /repeats the raw runs
    assert sorted(reads["parquet"]) == ["raw.parquet", "table.parquet"]
    datasets.delete_dataset(meta["id"])
    with pytest.raises(files.NotFound):
        datasets.dataset_meta(meta["id"])


def test_saved_predictions_of_every_method_reopen_on_their_page(var):
    import pandas as pd

    from dashboard.state import predictions

    table = pd.DataFrame({"id": ["p/b@N=1"], "predicted": [1.0]})
    counts = predictions.save_prediction({"params": {"source": "cpu", "program": "gemm", "at": "N=1"}},
                                         "countspred-" + "1" * 32, table, {"text": "gemm at N=1"}, None,
                                         method="counts", default_name="gemm counts")
    cross = predictions.save_prediction({"params": {"host": "GTX-680", "target": "GTX-970"}},
                                        "predict-" + "2" * 32, table, {"model": "NNLS"}, "mine")
    assert counts["name"].startswith("gemm counts ") and counts["method"] == "counts"
    assert predictions.page_of(counts) == "/counts" and predictions.page_of(cross) == "/predict"
    assert predictions.page_of({"params": {}}) == "/predict"  # saved before methods were recorded
    assert {m["id"] for m in predictions.list_predictions()} == {counts["id"], cross["id"]}
    with pytest.raises(ValueError, match="unknown prediction method"):
        predictions.save_prediction({"params": {}}, "x-" + "3" * 32, table, {}, None, method="nope")
