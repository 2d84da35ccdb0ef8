"""The trash as plain functions: delete → trash → restore gives the same bytes for every kind, a restore over an
existing id is refused, expired items are purged, forged ids are refused, a crash mid-way loses nothing."""

import logging
import time

import numpy as np
import pandas as pd
import pytest

from dashboard.access.projects import project_path
from dashboard.state import datasets, files, moves, predictions, scenarios, trash

MAP = {"id_col": "workload", "group_col": None, "targets": ["t"], "features": ["x1", "x2"], "host_col": None,
       "repeat_col": None}


def _table(n=12):
    rng = np.random.default_rng(1)
    return pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "x1": rng.random(n), "x2": rng.random(n),
                         "t": rng.random(n) + 1})


def _dataset():
    return datasets.save_dataset(_table(), "bench", MAP, raw=_table(24))["id"]


def _scenario():
    return scenarios.save_scenario("scenario", {"dataset": "rodinia", "folds": 5}, {"best": "NNLS"}, "mine")["id"]


def _prediction():
    result = {"params": {"host": "GTX-680", "target": "GTX-980"}, "provenance": {"code_version": "x"}, "n": 3}
    return predictions.save_prediction(result, "predict-" + "0" * 32, _table(3), {"model": "NNLS"}, "mine")["id"]


MAKE = {"dataset": _dataset, "scenario": _scenario, "prediction": _prediction}
LOAD = {"dataset": datasets.dataset_meta, "scenario": scenarios.load_scenario, "prediction": predictions.load_meta}
DELETE = {"dataset": datasets.delete_dataset, "scenario": scenarios.delete_scenario,
          "prediction": predictions.delete_prediction}


def _bytes(kind, item_id):
    return trash._files(trash.KINDS[kind].live(item_id))


@pytest.mark.parametrize("kind", list(MAKE))
def test_delete_then_restore_gives_the_same_bytes(var, kind, caplog):
    item_id = MAKE[kind]()
    before = _bytes(kind, item_id)
    with caplog.at_level(logging.INFO, logger="perfcast.audit"):
        record = DELETE[kind](item_id)
    with pytest.raises(files.NotFound, match="not found"):
        LOAD[kind](item_id)
    listed = trash.list_trash()
    assert [(r["kind"], r["id"], r["name"]) for r in listed] == [(kind, item_id, "mine" if kind != "dataset"
                                                                  else "bench")]
    assert listed[0]["deleted_by"] == {"from": "-"} and 29.9 < listed[0]["days_left"] <= 30
    assert record["checksums"] == before
    with caplog.at_level(logging.INFO, logger="perfcast.audit"):
        trash.restore(record["entry"])
    assert _bytes(kind, item_id) == before
    assert LOAD[kind](item_id)["id"] == item_id and trash.list_trash() == []
    if kind == "dataset":
        assert datasets.verify_dataset(item_id)
        pd.testing.assert_frame_equal(datasets.dataset_table(item_id), _table())
    assert f"{kind} deleted from=- {kind}={item_id} to=trash entry={record['entry']}" in caplog.text
    assert f"{kind} restored from=- {kind}={item_id} entry={record['entry']}" in caplog.text
    assert not [p for p in (project_path("trash")).iterdir()]  # nothing left behind


def test_a_dataset_records_the_checksums_of_its_metadata(var):
    ds = _dataset()
    record = datasets.delete_dataset(ds)
    meta_files = datasets._json(project_path("trash") / record["entry"] / ds / "meta.json")["files"]
    assert {k: record["checksums"][k] for k in meta_files} == meta_files
    assert set(record["checksums"]) == {"meta.json", "table.parquet", "raw.parquet"}


def test_restore_over_an_existing_id_is_refused(var):
    sc = _scenario()
    record = scenarios.delete_scenario(sc)
    assert _scenario() == sc  # saved again: a scenario's id comes from its inputs and name
    again = _bytes("scenario", sc)
    with pytest.raises(trash.TrashError, match=f"a scenario with the id {sc} exists already"):
        trash.restore(record["entry"])
    assert _bytes("scenario", sc) == again and len(trash.list_trash()) == 1


@pytest.mark.parametrize("kind", ["scenario", "prediction"])
def test_without_renameat2_a_restore_still_never_replaces(var, monkeypatch, kind):
    monkeypatch.setattr(moves, "_renameat2", None)  # another libc: link + unlink, or a plain directory rename
    item_id = MAKE[kind]()
    record = DELETE[kind](item_id)
    assert MAKE[kind]() == item_id
    again = _bytes(kind, item_id)
    with pytest.raises(trash.TrashError, match="exists already"):
        trash.restore(record["entry"])
    assert _bytes(kind, item_id) == again
    DELETE[kind](item_id)
    trash.restore(record["entry"])
    assert _bytes(kind, item_id) == record["checksums"] and len(trash.list_trash()) == 1


def test_a_changed_item_is_not_restored(var):
    ds = _dataset()
    record = datasets.delete_dataset(ds)
    (project_path("trash") / record["entry"] / ds / "table.parquet").write_bytes(b"not the table")
    with pytest.raises(trash.TrashError, match="changed: table.parquet"):
        trash.restore(record["entry"])
    with pytest.raises(files.NotFound):
        datasets.dataset_meta(ds)


def test_expired_items_are_purged_and_emptying_purges_all(var, monkeypatch, caplog):
    old = datasets.delete_dataset(_dataset())
    clock = [old["deleted_at"] + 10 * 86400]
    monkeypatch.setattr(trash.time, "time", lambda: clock[0])
    new = scenarios.delete_scenario(_scenario())
    assert [r["id"] for r in trash.list_trash(now=old["deleted_at"] + 29.5 * 86400)] == [new["id"], old["id"]]
    with caplog.at_level(logging.INFO, logger="perfcast.audit"):
        left = trash.list_trash(now=old["deleted_at"] + 30.5 * 86400)
    assert [r["id"] for r in left] == [new["id"]] and round(left[0]["days_left"], 1) == 9.5
    assert (f"dataset purged from=- dataset={old['id']} entry={old['entry']} reason=expired "
            f"in_project={old['project']}") in caplog.text
    monkeypatch.setattr("dashboard.settings.TRASH_DAYS", 5.0)  # PERFCAST_TRASH_DAYS
    clock[0] += 6 * 86400
    assert trash.purge_expired_everywhere() == 1 and trash.list_trash() == []
    pr = predictions.delete_prediction(_prediction())
    assert trash.purge(everything=True) == 1 and trash.list_trash() == []
    with pytest.raises(files.NotFound):
        trash.restore(pr["entry"])


@pytest.mark.parametrize("forged", [None, 5, "", "../datasets/ds-0123456789abcdef", "dataset-ds-0123456789abcdef",
                                    "dataset-sc-0123456789abcdef.20250101T000000000000Z",
                                    "dataset-ds-0123456789abcdef.20250101T000000000000Z/../../x",
                                    "dataset-ds-0123456789abcdef.20250101T000000000000Z", ["x"], {"a": 1}])
def test_a_forged_entry_id_is_refused(var, forged):
    with pytest.raises(files.NotFound):
        trash.restore(forged)


def test_another_projects_trash_is_not_found_and_roles_are_checked(var):
    from dashboard.access import projects
    from tests import signed_in

    ds = _dataset()
    record = datasets.delete_dataset(ds)
    with projects.scope(signed_in.project_id("elsewhere")):  # owner of another project
        assert trash.list_trash() == []
        with pytest.raises(files.NotFound):
            trash.restore(record["entry"])
        assert trash.purge(everything=True) == 0
    here = projects.current_id()
    with projects.scope(here, role="viewer"):
        with pytest.raises(projects.AccessDenied, match="Viewers cannot restore from the trash"):
            trash.restore(record["entry"])
        with pytest.raises(projects.AccessDenied, match="Viewers cannot delete"):
            datasets.delete_dataset(_dataset_as_owner(here))
    with projects.scope(here, role="editor"):
        with pytest.raises(projects.AccessDenied, match="Editors cannot empty the trash"):
            trash.purge(everything=True)
        assert trash.restore(record["entry"])["id"] == ds
    assert datasets.dataset_meta(ds)["id"] == ds


def _dataset_as_owner(project_id):
    from dashboard.access import projects

    with projects.scope(project_id):
        return _dataset()


def test_a_record_that_names_another_item_is_not_restored(var):
    a, b = _dataset(), _dataset()
    ra = datasets.delete_dataset(a)
    rec_path = project_path("trash") / ra["entry"] / "record.json"
    rec_path.write_text(rec_path.read_text().replace(a, b))
    with pytest.raises(files.NotFound):
        trash.restore(ra["entry"])
    assert datasets.verify_dataset(b)


class Crash(BaseException):
    """The process dies here: nothing after this line runs, no clean-up either."""


def _state(kind, item_id, var):
    live = trash.KINDS[kind].live(item_id).exists()
    listed = [r for r in trash.list_trash(now=time.time() + 3600) if r["id"] == item_id]
    return live, listed


@pytest.mark.parametrize("kind", list(MAKE))
@pytest.mark.parametrize("step", range(4))
def test_a_crash_mid_delete_or_restore_leaves_the_item_or_its_entry(var, monkeypatch, kind, step):
    """Each fsync and each move of a delete and of a restore in turn fails as if the process died there;
    afterwards the item is live or in a listed, restorable entry (one of the two), with its bytes."""
    item_id = MAKE[kind]()
    before = _bytes(kind, item_id)
    calls = {"n": 0}
    real_move, real_fsync = moves.move, trash._fsync_dir

    def counting(real):
        def step_(*a):
            calls["n"] += 1
            if calls["n"] == step + 1:
                raise Crash
            return real(*a)
        return step_
    monkeypatch.setattr(trash.moves, "move", counting(real_move))
    monkeypatch.setattr(trash, "_fsync_dir", counting(real_fsync))
    try:
        trash.move_to_trash(kind, item_id)
        crashed_in = "restore"
        trash.restore(trash.list_trash()[0]["entry"])
    except Crash:
        pass
    else:
        crashed_in = None
    assert calls["n"] == step + 1  # it did crash there
    monkeypatch.setattr(trash.moves, "move", real_move)
    monkeypatch.setattr(trash, "_fsync_dir", real_fsync)
    live, listed = _state(kind, item_id, var)
    assert live != bool(listed), (crashed_in, live, listed)  # one or the other, never neither (nor both)
    if listed:
        trash.restore(listed[0]["entry"])
    assert _bytes(kind, item_id) == before
    assert not [p for p in (project_path("trash")).iterdir()]  # leftovers purged (after the grace period)


def test_patterns_match_the_stores():
    assert trash.KINDS["dataset"].check("ds-0123456789abcdef") and datasets.DATASET_ID.pattern.endswith("{16}$")
    for kind, pattern in (("dataset", datasets.DATASET_ID), ("scenario", scenarios.SCENARIO_ID),
                          ("prediction", predictions.PREDICTION_ID)):
        example = f"{trash.KINDS[kind].prefix}-{'a' * 16}"
        assert pattern.match(example) and trash.KINDS[kind].check(example) == example


@pytest.mark.parametrize("libc", [True, False])
def test_a_move_never_replaces_a_file_or_a_directory(tmp_path, monkeypatch, libc):
    if not libc:
        monkeypatch.setattr(moves, "_renameat2", None)
    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    (tmp_path / "d1").mkdir()
    (tmp_path / "d1" / "meta.json").write_text("1")
    (tmp_path / "d2").mkdir()
    (tmp_path / "d2" / "meta.json").write_text("2")
    with pytest.raises(OSError):
        moves.move(tmp_path / "a", tmp_path / "b")
    with pytest.raises(OSError):
        moves.move(tmp_path / "d1", tmp_path / "d2")
    assert (tmp_path / "a").read_text() == "a" and (tmp_path / "b").read_text() == "b"
    assert (tmp_path / "d2" / "meta.json").read_text() == "2"
    moves.move(tmp_path / "a", tmp_path / "c")
    moves.move(tmp_path / "d1", tmp_path / "d3")
    assert not (tmp_path / "a").exists() and (tmp_path / "c").read_text() == "a"
    assert (tmp_path / "d3" / "meta.json").read_text() == "1"
    with pytest.raises(FileNotFoundError):
        moves.move(tmp_path / "a", tmp_path / "e")
