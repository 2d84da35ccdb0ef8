"""Upgrade: a state directory in the layout of earlier versions (everything directly under VAR_DIR) moves into
project ``default`` with every byte, once; the items are found by the stores afterwards; a name taken by other
bytes is left in place, never overwritten; a crash mid-way is finished by the next start."""

import hashlib
import json

import pandas as pd
import pytest
from sqlalchemy import select

from dashboard.access import accounts, database, projects
from dashboard.access.models import AuditEvent
from dashboard.state import datasets, files, moves, scenarios, trash, upgrade


def _tree(root) -> dict[str, str]:
    """sha256 of every file under ``root``, by path relative to it."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture()
def old_layout(var):
    """What an earlier version left: a dataset, a scenario, a staged upload, a timing table and a trash entry
    directly under VAR_DIR (written by the stores into a scratch project, then moved to the old places)."""
    scratch = var / "scratch"
    frame = pd.DataFrame({"workload": ["a", "b", "c"], "app": ["x", "x", "y"], "f1": [1.0, 2.0, 3.0],
                          "t": [2.0, 4.0, 7.0]})
    mapping = {"id_col": "workload", "group_col": "app", "targets": ["t"], "features": ["f1"]}
    kept = datasets.save_dataset(frame, "kept", mapping)
    gone = datasets.save_dataset(frame, "deleted", mapping)
    sc = scenarios.save_scenario("scenario", {"dataset": "rodinia", "folds": 5}, {"best": "OLS"}, "old")
    record = datasets.delete_dataset(gone["id"])
    here = projects.project_dir(projects.current_id())
    moves.move(here, scratch)  # the project's folders become the old layout's top-level folders
    for kind in sorted(p.name for p in scratch.iterdir()):
        src = scratch / kind
        dst = var / "trash" / "default" if kind == "trash" else var / kind
        dst.parent.mkdir(parents=True, exist_ok=True)
        moves.move(src, dst)
    (var / "staging").mkdir(exist_ok=True)
    (var / "staging" / "st-0123456789abcdef.parquet").write_bytes(b"PAR1 staged")
    (var / "staging" / "st-0123456789abcdef.json").write_text(json.dumps({"filename": "x.csv"}))
    (var / "timings").mkdir(exist_ok=True)
    (var / "timings" / "tt-0123456789abcdef.parquet").write_bytes(b"PAR1 timing")
    (var / "results").mkdir(exist_ok=True)
    (var / "results" / "cache.db").write_bytes(b"not project data")
    scratch.rmdir()
    return {"kept": kept["id"], "scenario": sc["id"], "trash_entry": record["entry"]}


def test_every_byte_of_the_old_layout_arrives_in_the_default_project(var, old_layout):
    before = _tree(var)
    assert upgrade.needed(var)
    done = upgrade.move_into_first_project(var)
    with database.session() as db:
        default = accounts.ensure_project(db, accounts.DEFAULT_PROJECT).id
    root = projects.project_dir(default)
    after = _tree(var)
    moved = {k: v for k, v in before.items() if not k.startswith("results/")}
    assert moved and done["datasets"] == 1 and done["scenarios"] == 1 and done["trash"] == 1
    for path, digest in moved.items():
        kind, _, rest = path.partition("/")
        new = f"{root.relative_to(var).as_posix()}/{'trash/' + rest.split('/', 1)[1] if kind == 'trash' else path}"
        assert after.pop(new) == digest, path
    assert after == {"results/cache.db": before["results/cache.db"]}  # nothing else, nothing lost
    assert not any((var / k).exists() for k in (*upgrade.KINDS, "trash"))
    with projects.scope(default):  # the stores find them in the project
        assert datasets.dataset_meta(old_layout["kept"])["name"] == "kept"
        assert scenarios.load_scenario(old_layout["scenario"])["name"] == "old"
        assert [r["entry"] for r in trash.list_trash()] == [old_layout["trash_entry"]]
        restored = trash.restore(old_layout["trash_entry"])
        assert trash.list_trash() == [] and datasets.verify_dataset(restored["id"])
        assert datasets.verify_dataset(old_layout["kept"])
    assert upgrade.move_into_first_project(var) == {} and not upgrade.needed(var)  # once
    with database.session() as db:
        assert db.scalar(select(AuditEvent).where(AuditEvent.action == "upgrade: moved into project",
                                                  AuditEvent.project_id == default)) is not None


def test_a_taken_name_is_never_overwritten_and_a_crash_is_finished_later(var, old_layout):
    with database.session() as db:
        default = accounts.ensure_project(db, accounts.DEFAULT_PROJECT).id
    root = projects.project_dir(default)
    (root / "staging").mkdir(parents=True, exist_ok=True)
    (root / "staging" / "st-0123456789abcdef.parquet").write_bytes(b"PAR1 staged")  # the same bytes: a crash
    (root / "timings").mkdir(parents=True, exist_ok=True)
    (root / "timings" / "tt-0123456789abcdef.parquet").write_bytes(b"other bytes")  # a different file
    done = upgrade.move_into_first_project(var)
    assert (root / "staging" / "st-0123456789abcdef.json").exists() and not (var / "staging").exists()
    assert done["kept"] == [str(var / "timings" / "tt-0123456789abcdef.parquet")]
    assert (var / "timings" / "tt-0123456789abcdef.parquet").read_bytes() == b"PAR1 timing"
    assert (root / "timings" / "tt-0123456789abcdef.parquet").read_bytes() == b"other bytes"
    assert files.sha256_file(root / "staging" / "st-0123456789abcdef.parquet") == hashlib.sha256(
        b"PAR1 staged").hexdigest()
