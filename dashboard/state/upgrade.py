"""Upgrade of the state directory: what earlier versions kept directly under ``VAR_DIR`` (``datasets/``,
``scenarios/``, ``staging/``, ... and ``trash/default/``) moves into the first project, ``default`` (created
when missing), at the server's start (gunicorn's ``on_starting``, ``python app.py``).

Each item (a dataset's directory, a scenario's file, each file of a table stored with its metadata) moves by
one atomic rename that never replaces anything (:func:`dashboard.state.moves.move`), so a crash leaves every
item either where it was or where it belongs, and the next start finishes the work. Metadata files move
after their tables, so a half-moved table is never listed. An item whose name is taken in the project already
stays where it was (logged) unless it is the same file byte for byte, which is then removed from the old place.
Nothing else is touched: the result cache and the job manager's files (``results/``, ``jobs/``) are not
project data. Old directories are removed once empty; with none left, the upgrade has nothing to do.
"""

from __future__ import annotations

import logging
from pathlib import Path

from dashboard import audit_log, settings
from dashboard.state import moves
from dashboard.state.files import sha256_file

#: the folders of stored things, as earlier versions laid them out directly under VAR_DIR
KINDS = ("datasets", "staging", "scenarios", "predictions", "predict_inputs", "timings", "countdata",
         "phasedata", "phase_traces", "devices")
#: earlier versions' trash of the only project there was
OLD_TRASH = ("trash", "default")

_log = logging.getLogger("perfcast")


def _old_folders(var: Path) -> list[tuple[Path, str]]:
    """(old folder, its kind in the project) that exist."""
    found = [(var / kind, kind) for kind in KINDS if (var / kind).is_dir()]
    if var.joinpath(*OLD_TRASH).is_dir():
        found.append((var.joinpath(*OLD_TRASH), "trash"))
    return found


def needed(var: Path | None = None) -> bool:
    return bool(_old_folders(var or settings.VAR_DIR))


def _order(path: Path) -> tuple:
    """Tables before their metadata (``.json`` last), so a listed item always has its table."""
    return (path.suffix == ".json", path.name)


def _move_folder(old: Path, new: Path) -> tuple[int, list[str]]:
    new.mkdir(parents=True, exist_ok=True)
    moved, kept = 0, []
    for item in sorted(old.iterdir(), key=_order):
        target = new / item.name
        try:
            moves.move(item, target)
            moved += 1
        except FileExistsError:
            if item.is_file() and target.is_file() and sha256_file(item) == sha256_file(target):
                item.unlink()  # the same bytes are in the project already: nothing is lost
                moved += 1
            else:
                kept.append(str(item))
    if not kept:
        try:
            old.rmdir()
        except OSError:  # something arrived meanwhile: the next start moves it
            pass
    return moved, kept


def move_into_first_project(var: Path | None = None) -> dict:
    """Move the old layout's items into project ``default``; returns ``{kind: items moved}`` (and ``kept``:
    the items left in place because their name is taken by different bytes). Safe to run again, and from
    several processes at once (one at a time, under the database's lock)."""
    from dashboard.access import accounts, database, projects

    var = var or settings.VAR_DIR
    if not needed(var):
        return {}
    database.migrate()
    with database.locked():
        with database.session() as db:
            project_id = accounts.ensure_project(db, accounts.DEFAULT_PROJECT).id
        root = projects.project_dir(project_id)
        done: dict = {}
        kept: list[str] = []
        for old, kind in _old_folders(var):
            moved, left = _move_folder(old, root / kind)
            done[kind] = done.get(kind, 0) + moved
            kept += left
        old_trash = var / OLD_TRASH[0]
        if old_trash.is_dir() and not any(old_trash.iterdir()):
            old_trash.rmdir()
    if kept:
        _log.warning("upgrade: %d items stay where they were (their names are taken in project %s by other "
                     "files): %s", len(kept), accounts.DEFAULT_PROJECT, ", ".join(kept[:20]))
        done["kept"] = kept
    with projects.scope(project_id):
        audit_log.record("upgrade: moved into project", **{k: v for k, v in done.items() if k != "kept"},
                         kept=len(kept))
    _log.info("upgrade: state of earlier versions moved into project %s (%s)", accounts.DEFAULT_PROJECT,
              ", ".join(f"{k} {v}" for k, v in done.items() if k != "kept"))
    return done
