"""The trash: a deleted dataset, saved scenario or saved prediction is kept for ``TRASH_DAYS`` (30) days.

On disk, one directory per deleted item in its project's directory (``VAR_DIR/projects/<project id>``, beside
the project's live items, so every move is a rename on one filesystem)::

    trash/<kind>-<id>.<deleted at, UTC>/record.json    kind, id, name, project, when, by whom, checksums
    trash/<kind>-<id>.<deleted at, UTC>/<id>[.json]    the item itself, moved here unchanged

The record sits beside the item rather than inside it, so the item's directory (or a scenario's one file) is
moved in and out byte for byte. Every step is one atomic rename on one filesystem, followed by an fsync of
the directories involved:

* delete: the entry directory and its record are written first, then the item is renamed into it. A crash
  between the two leaves the item where it was and an entry with a record but no item, which is never
  listed and is removed by a later purge. After the rename the item is in the trash and nowhere else.
* restore: the item's bytes are checked against the record's checksums, then it is renamed back under its
  id by a move that refuses an existing item (:mod:`dashboard.state.moves`), then the record goes. A crash
  between the two leaves the item restored and a record without an item (removed as above).
* purge: the entry is renamed to a hidden ``.purge-…`` name, then removed; a crash mid-way leaves only the
  hidden directory, removed by the next purge.

So at every instant the item is either live or in a complete trash entry, never neither. Expired entries are
purged when the trash is listed and when a server worker starts (``gunicorn.conf.py``).

The checksums are the item's own where its metadata records them (a dataset's ``files``: the original
bytes of its table and raw runs), and sha256 computed at deletion for every other file.

Everything here works in the current project (:mod:`dashboard.access.projects`): an entry of another project
is "not found". Deleting and restoring need an editor, emptying the trash an owner; expired items are purged
whoever lists the trash (and at every worker's start, in every project).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from dashboard import audit_log, settings
from dashboard.access import projects
from dashboard.access.projects import project_path, require
from dashboard.state import moves
from dashboard.state.files import NotFound, StorageError, _fsync_dir, atomic_write_bytes, sha256_file, storage_error

ENTRY_ID = re.compile(r"^(dataset|scenario|prediction)-((?:ds|sc|pr)-[0-9a-f]{16})\.(\d{8}T\d{12}Z)$")
RECORD = "record.json"
#: an entry with a record and no item younger than this may be a delete or restore under way: left alone
INCOMPLETE_GRACE_SECONDS = 600


class TrashError(ValueError):
    """A restore that cannot be done, with a message a user can act on."""


@dataclass(frozen=True)
class Kind:
    name: str  # "dataset"
    prefix: str  # "ds"
    folder: str  # in the project's directory
    suffix: str  # "" for an item that is a directory, ".json" for one file

    def check(self, item_id) -> str:
        if not isinstance(item_id, str) or not re.fullmatch(rf"{self.prefix}-[0-9a-f]{{16}}", item_id):
            raise NotFound(f"{self.name} {str(item_id)[:40]!r} not found")
        return item_id

    def live(self, item_id: str) -> Path:
        return project_path(self.folder) / f"{self.check(item_id)}{self.suffix}"


KINDS = {k.name: k for k in (Kind("dataset", "ds", "datasets", ""), Kind("scenario", "sc", "scenarios", ".json"),
                             Kind("prediction", "pr", "predictions", ""))}


def _days() -> float:
    return settings.TRASH_DAYS


def _root() -> Path:
    """The current project's trash."""
    return project_path("trash")


def _files(item: Path) -> dict[str, str]:
    """sha256 of every file of an item (a directory, or one file named by its own name)."""
    if item.is_dir():
        return {p.relative_to(item).as_posix(): sha256_file(p) for p in sorted(item.rglob("*")) if p.is_file()}
    return {item.name: sha256_file(item)}


def _meta(item: Path) -> dict:
    try:
        return json.loads((item / "meta.json" if item.is_dir() else item).read_text())
    except (OSError, ValueError):
        return {}


def _stamp(t: float) -> str:
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(t)) + f"{int(t * 1e6) % 1_000_000:06d}Z"


def move_to_trash(kind: str, item_id: str) -> dict:
    """Move a live item of the current project into its trash; returns its record. ``NotFound`` when there is
    no such item; ``AccessDenied`` below an editor."""
    cur = require("editor", "delete")
    k = KINDS[kind]
    live, root = k.live(item_id), _root()
    if not live.exists():
        raise NotFound(f"{kind} {item_id} not found (it may have been deleted)")
    meta = _meta(live)
    checksums = {**_files(live), **((meta.get("files") or {}) if k.suffix == "" else {})}
    while True:
        now = time.time()
        entry = root / f"{kind}-{item_id}.{_stamp(now)}"
        try:
            entry.mkdir()
            break
        except FileExistsError:  # the same item deleted twice in one microsecond: take the next one
            time.sleep(1e-6)
        except OSError as exc:
            raise _not_deleted(exc) from exc
    record = {"kind": kind, "id": item_id, "name": meta.get("name") or item_id, "project": cur.id,
              "entry": entry.name, "deleted_at": now, "deleted_by": audit_log.actor(), "checksums": checksums}
    try:
        atomic_write_bytes(entry / RECORD, json.dumps(record, indent=1).encode())
        _fsync_dir(root)
        moves.move(live, entry / live.name)
    except FileNotFoundError:  # deleted at the same moment by another request: theirs stands
        shutil.rmtree(entry, ignore_errors=True)
        raise NotFound(f"{kind} {item_id} not found (it may have been deleted)") from None
    except (OSError, StorageError) as exc:  # a full disk: the item stays live, no entry is left behind
        if live.exists() or not (entry / live.name).exists():
            shutil.rmtree(entry, ignore_errors=True)
            raise _not_deleted(exc) from exc
        # moved (only a directory's fsync failed after the rename): the item is in the trash, as asked
    audit_log.record(f"{kind} deleted", **{kind: item_id}, to="trash", entry=entry.name)
    return record


def _not_deleted(exc: BaseException) -> StorageError:
    return storage_error(exc, "Not deleted", "It is where it was")


def _parse(name) -> tuple[Kind, str] | None:
    """(kind, item id) named by an entry's directory name, or None when the name is not an entry's."""
    m = ENTRY_ID.match(name) if isinstance(name, str) else None
    if not m or KINDS[m.group(1)].prefix != m.group(2)[:2]:
        return None
    return KINDS[m.group(1)], m.group(2)


def _read(entry: Path, kind: Kind, item_id: str) -> dict | None:
    """An entry's record, when it is readable and names what the entry's directory name says."""
    try:
        record = json.loads((entry / RECORD).read_text())
    except (OSError, ValueError):
        return None
    ok = isinstance(record, dict) and record.get("kind") == kind.name and record.get("id") == item_id
    return record if ok and isinstance(record.get("checksums"), dict) else None


def _entry(entry_id) -> tuple[Path, dict, Path]:
    """(entry directory, record, the item inside it) of a complete entry; ``NotFound`` otherwise."""
    parsed = _parse(entry_id)
    if not parsed:
        raise NotFound(f"trash item {str(entry_id)[:60]!r} not found")
    kind, item_id = parsed
    entry = _root() / entry_id
    record, item = _read(entry, kind, item_id), entry / f"{item_id}{kind.suffix}"
    if not record or not item.exists():
        raise NotFound(f"trash item {entry_id} not found (restored or purged meanwhile)")
    return entry, record, item


def restore(entry_id: str) -> dict:
    """Move an item back under its id, after checking it has the bytes it had when it was deleted. Returns its
    record. ``TrashError`` when an item with that id exists or a checksum differs; ``NotFound`` when the entry
    is not in the current project's trash; ``AccessDenied`` below an editor."""
    require("editor", "restore from the trash")
    entry, record, item = _entry(entry_id)
    kind, item_id = record["kind"], record["id"]  # as the entry's name says (checked by _read)
    live = KINDS[kind].live(item_id)
    what = f"{kind} '{record['name']}' ({item_id})"
    if live.exists():
        raise TrashError(f"Not restored: a {kind} with the id {item_id} exists already (saved again after the "
                         f"delete). Delete that one first to restore this one.")
    now = _files(item)
    bad = sorted(set(now) ^ set(record["checksums"]) | {f for f in now if now[f] != record["checksums"].get(f)})
    if bad:
        raise TrashError(f"Not restored: the {what} is not the one that was deleted (changed: "
                         f"{', '.join(bad[:5])}). It stays in the trash.")
    try:
        moves.move(item, live)
    except FileNotFoundError:
        raise NotFound(f"trash item {entry_id} not found (restored or purged meanwhile)") from None
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise TrashError(f"Not restored: a {kind} with the id {item_id} exists already.") from None
        raise storage_error(exc, "Not restored", "It is still in the trash") from exc
    try:
        _remove(entry)
    except OSError:  # the item is restored; its empty entry is removed by a later purge (no item: not listed)
        pass
    audit_log.record(f"{kind} restored", **{kind: item_id}, entry=entry.name)
    return record


def _remove(entry: Path) -> bool:
    """Remove an entry: renamed away first (atomic), then deleted. False when it was gone already."""
    gone = entry.with_name(f".purge-{entry.name}.{secrets.token_hex(4)}")
    try:
        os.rename(entry, gone)
    except FileNotFoundError:
        return False
    _fsync_dir(entry.parent)
    shutil.rmtree(gone, ignore_errors=True)
    return True


def _scan() -> list[tuple[Path, dict | None, bool]]:
    """Every entry directory: (path, record or None, whether it holds its item). An item that is also live
    as the same file (a restore by link and unlink, interrupted between the two) counts as restored."""
    out = []
    for p in _root().iterdir():
        parsed = _parse(p.name)
        if not parsed or not p.is_dir():
            continue
        kind, item_id = parsed
        item = p / f"{item_id}{kind.suffix}"
        has_item = item.exists()
        if has_item and not item.is_dir() and kind.live(item_id).exists():
            has_item = not os.path.samefile(item, kind.live(item_id))
        out.append((p, _read(p, kind, item_id), has_item))
    return out


def purge(everything: bool = False, now: float | None = None) -> int:
    """Remove the current project's expired entries (or ``everything``: an owner's right, ``AccessDenied``
    below), the leftovers of interrupted moves and purges; returns how many items were purged."""
    if everything:
        require("owner", "empty the trash")
    now = time.time() if now is None else now
    root, n = _root(), 0
    for p in root.glob(".purge-*"):
        shutil.rmtree(p, ignore_errors=True)
    for entry, record, has_item in _scan():
        if not has_item:  # a delete that did not happen or a restore that did: the item is live
            if now - (record or {}).get("deleted_at", entry.stat().st_mtime) > INCOMPLETE_GRACE_SECONDS:
                _remove(entry)
            continue
        if record is None:  # an item whose record cannot be read: never removed without one
            continue
        if everything or now - record["deleted_at"] > _days() * 86400:
            if _remove(entry):
                n += 1
                audit_log.record(f"{record['kind']} purged", **{record["kind"]: record["id"]}, entry=entry.name,
                                 reason="emptied" if everything else "expired")
    return n


def purge_expired_everywhere() -> int:
    """At server start: the expired entries of every project that has a trash."""
    n, top = 0, settings.VAR_DIR / "projects"
    for p in sorted(top.iterdir()) if top.is_dir() else []:
        if not (p.name.isdigit() and (p / "trash").is_dir()):
            continue
        try:
            with projects.scope(int(p.name)):
                n += purge()
        except LookupError:  # a project removed from the database: its files are left for an administrator
            continue
    return n


def list_trash(now: float | None = None) -> list[dict]:
    """The current project's items in the trash, newest first (expired ones purged first), each its record
    with ``days_left``."""
    now = time.time() if now is None else now
    try:
        purge(now=now)
    except OSError:  # (a full disk, say) the list is still shown; expired entries go at the next listing
        logging.getLogger("perfcast").exception("trash: expired entries not purged")
    out = []
    for _entry_dir, record, has_item in _scan():
        if record and has_item:
            out.append({**record, "days_left": max(0.0, (record["deleted_at"] + _days() * 86400 - now) / 86400)})
    return sorted(out, key=lambda r: -r["deleted_at"])
