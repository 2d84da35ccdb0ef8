"""Which simulator printed a file, and reading files, folders and zips of them: :func:`read_paths`.

A file's format is told from its first 64 kB (:func:`detect`), not its name: gem5's dump markers, GPGPU-Sim's
banner or a ``kernel_name =`` block, a get_stats.py rule of dashes followed by a pattern and an ``APPS`` or
``CFG`` header, a CSV header with workload, configuration, metric and value. A file named ``stats.txt`` is
read as gem5's whatever it holds (so that one without dumps is refused as such).

Where a record's application, arguments and configuration come from (:func:`path_identity`):

* Accel-Sim's run folders, ``<run>/<app>/<args>/<config>/<app>-<args>.o<job>``: the three folders;
* a gem5 ``stats.txt``: the folder that holds it (its parent when that is ``m5out``) is the application,
  the configuration a short hash of the ``config.ini`` beside it (``default`` when there is none);
* any other GPGPU-Sim log: the application and arguments of Accel-Sim's ``-trace`` option when the log
  prints it (``.../<app>/<args>/traces/kernelslist.g``), else the file's name without its extension and
  ``NO_ARGS``; the configuration a short hash of the configuration options the log prints.

Refused, each with its reason, the rest of the import going on: a file that is binary or that no reader
recognises (in a folder or zip only when its name says it is a log: ``.log``, ``.out``, ``.txt``, ``.csv``,
``.o<N>``; other files there are skipped and counted), a file whose records claim a workload and
configuration an earlier file already gave (named), a zip member whose path climbs out of the zip or is
absolute, a zip that declares more than :data:`MAX_ZIP_RATIO` times its size or more than
:data:`MAX_TOTAL_BYTES`, or whose members decompress past what they declared. Past
:data:`MAX_FILES` files the import is refused before anything is read.
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from pathlib import Path, PurePosixPath

from modeling.errors import DataError
from modeling.tables.simulators import gem5, getstats, gpgpusim, longtable
from modeling.tables.simulators.records import SimFile, SimImport, argument_folder

HEAD_BYTES = 64 * 1024
#: a GPGPU-Sim log or gem5 stats.txt is read in pieces of this many bytes (cut at a line's end)
CHUNK_BYTES = 1 << 18
#: largest file read (a GPGPU-Sim log is read a line at a time, so this bounds time, not memory)
MAX_FILE_BYTES = 8 * 2**30
#: most bytes an import decompresses from zips, in all
MAX_TOTAL_BYTES = 16 * 2**30
#: a zip that declares more than this many times its own size is refused (a "zip bomb")
MAX_ZIP_RATIO = 200
#: most files one import reads
MAX_FILES = 100_000
#: the largest long table (it is read whole, as a CSV)
MAX_TABLE_BYTES = 64 * 2**20
FORMATS = {
    "gpgpusim-log": "GPGPU-Sim / Accel-Sim standard output (one record per kernel launch)",
    "accelsim-getstats": "Accel-Sim get_stats.py block output",
    "gem5-stats": "gem5 stats.txt (one record per dump)",
    "long-table": "long table CSV (workload, configuration, metric, value[, unit])",
}
_LOG_NAME = re.compile(r"(\.(log|out|txt|csv)|\.o\d+)$", re.IGNORECASE)
_JOB_OUTPUT = re.compile(r"\.o\d+$")


#: every byte but the control bytes is_binary counts (0-8, 14-31)
_NOT_CONTROL = bytes(b for b in range(256) if not (b < 9 or 13 < b < 32))


def is_binary(head: bytes) -> bool:
    """Whether the start of a file is not text: a NUL byte, or more than 10% control bytes."""
    if not head:
        return False
    if b"\x00" in head:
        return True
    control = len(head.translate(None, _NOT_CONTROL))
    return control > len(head) // 10


def detect(head: bytes, name: str = "") -> str | None:
    """The format of a file from its first bytes (see the module's text), or None."""
    text = head.decode("utf-8", "replace")
    if gem5.BEGIN in text or PurePosixPath(name).name == "stats.txt":
        return "gem5-stats"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if lines and getstats.RULE.match(lines[0]) and len(lines) >= 3 and re.match(r"^(APPS|CFG),", lines[2]):
        return "accelsim-getstats"
    if re.search(r"GPGPU-Sim|Accel-Sim|^kernel_name\s*=|^gpu_sim_cycle\s*=", text, re.MULTILINE):
        return "gpgpusim-log"
    if lines:
        header = re.split(r"[,;\t]", lines[0])
        if longtable.columns([h.strip().strip('"') for h in header]) is not None:
            return "long-table"
    return None


def _short_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:10]


def path_identity(path: PurePosixPath, fmt: str, sibling=None) -> tuple[str, str, str | None]:
    """(application, arguments, configuration or None) of a file at ``path`` (see the module's text);
    ``sibling(name)`` returns the bytes of a file beside it, or None."""
    parts = path.parts
    if fmt == "gem5-stats":
        folder = path.parent
        if folder.name == "m5out" and folder.parent.name:
            folder = folder.parent
        ini = sibling("config.ini") if sibling else None
        return folder.name or "stats", "NO_ARGS", ("gem5-" + _short_hash(ini)) if ini else "default"
    if _JOB_OUTPUT.search(path.name) and len(parts) >= 4:
        return parts[-4], parts[-3], parts[-2]
    stem = re.sub(r"(\.o\d+|\.(log|out|txt))$", "", path.name, flags=re.IGNORECASE)
    return stem or path.name, "NO_ARGS", None


class _Counted:
    """Lines of a binary stream, refused past ``limit`` bytes."""

    def __init__(self, stream, limit: int, what: str):
        self.stream, self.limit, self.what, self.read = stream, limit, what, 0

    def __iter__(self):
        for line in self.stream:
            self.read += len(line)
            if self.read > self.limit:
                raise DataError(f"{self.what}: more than {self.limit:,} bytes once decompressed (more than it "
                                "declared, or past the import's limit). Nothing was imported from it.")
            yield line


class _Chunks(_Counted):
    """The same bytes in pieces of about :data:`CHUNK_BYTES` that end at a line's end (the last one where the
    stream ends), refused past ``limit`` bytes: a reader splits a piece into lines faster than a file
    object does, and holds no more than one piece."""

    def __iter__(self):
        tail = b""
        while True:
            piece = self.stream.read(CHUNK_BYTES)
            if not piece:
                break
            self.read += len(piece)
            if self.read > self.limit:
                raise DataError(f"{self.what}: more than {self.limit:,} bytes once decompressed (more than it "
                                "declared, or past the import's limit). Nothing was imported from it.")
            end = piece.rfind(b"\n")
            if end < 0:
                tail += piece
                continue
            yield tail + piece[: end + 1]
            tail = piece[end + 1:]
        if tail:
            yield tail


def read_one(opener, source: str, path: PurePosixPath, size: int, sibling=None, limit: int | None = None
             ) -> SimFile:
    """One file: ``opener()`` gives a fresh binary stream of it."""
    with opener() as f:
        head = f.read(HEAD_BYTES)
    if not head:
        raise DataError(f"{source}: the file is empty.")
    if is_binary(head):
        raise DataError(f"{source}: binary data, not a simulator's text output. Nothing was imported from it.")
    fmt = detect(head, path.name)
    if fmt is None:
        raise DataError(f"{source}: not a simulator output this reader knows (GPGPU-Sim / Accel-Sim log, "
                        "get_stats.py output, gem5 stats.txt or a long table of workload, configuration, "
                        "metric, value).")
    limit = limit if limit is not None else MAX_FILE_BYTES
    if size > limit:
        raise DataError(f"{source}: {size:,} bytes, more than the {limit:,} an import reads from one file.")
    if fmt == "long-table":
        if size > MAX_TABLE_BYTES:
            raise DataError(f"{source}: a long table of {size:,} bytes; at most {MAX_TABLE_BYTES:,} are read.")
        with opener() as f:
            raw = b"".join(_Counted(f, MAX_TABLE_BYTES, source))
        return longtable.read_long(raw, source)
    with opener() as f:
        if fmt == "accelsim-getstats":
            return getstats.read_blocks(_Counted(f, limit, source), source)
        app, args, config = path_identity(path, fmt, sibling)
        if fmt == "gem5-stats":
            return gem5.read_stats(_Chunks(f, limit, source), source, app,
                                   argument_folder(args) if args != "NO_ARGS" else args, config or "default")
        return gpgpusim.read_log(_Chunks(f, limit, source), source, app, args, config,
                                 identity_from_log=config is None)


def _units(paths: list):
    """(source, PurePosixPath, opener, size, sibling, zip-limited) for every file under ``paths``; refusals
    as (source, reason)."""
    for p in paths:
        path = Path(p)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    full = Path(root, name)
                    rel = PurePosixPath(path.name, *full.relative_to(path).parts)
                    yield from _file_or_zip(full, rel, in_folder=True)
        elif path.is_file():
            yield from _file_or_zip(path, PurePosixPath(*path.resolve().parts[-4:]), in_folder=False)
        else:
            yield ("refused", str(p), "no such file or folder")


def _file_or_zip(full: Path, rel: PurePosixPath, in_folder: bool):
    if zipfile.is_zipfile(full):
        yield from _zip_members(full)
        return
    size = full.stat().st_size

    def sibling(name, folder=full.parent):
        f = folder / name
        return f.read_bytes()[:1_000_000] if f.is_file() else None

    yield ("file", str(full), rel, (lambda: open(full, "rb")), size, sibling, in_folder)


def check_zip(zf: zipfile.ZipFile, zip_size: int, source: str) -> list:
    """The members of a zip to read, after the path and expansion checks (see the module's text)."""
    members = [i for i in zf.infolist() if not i.is_dir()]
    for i in members:
        name = i.filename.replace("\\", "/")
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or ".." in PurePosixPath(name).parts:
            raise DataError(f"{source}: member {i.filename[:200]!r} has a path that climbs out of the zip's folder "
                            "or is absolute. Nothing was imported from this zip.")
    declared = sum(i.file_size for i in members)
    if declared > MAX_TOTAL_BYTES:
        raise DataError(f"{source}: declares {declared:,} bytes once decompressed, more than the "
                        f"{MAX_TOTAL_BYTES:,} an import reads. Nothing was imported from this zip.")
    if zip_size and declared > MAX_ZIP_RATIO * zip_size and declared > 10 * 2**20:
        raise DataError(f"{source}: expands {declared / zip_size:,.0f}-fold ({zip_size:,} bytes to {declared:,}); "
                        f"more than {MAX_ZIP_RATIO}-fold is refused as a zip bomb. Nothing was imported from "
                        "this zip.")
    return members


def _zip_members(full: Path):
    source = str(full)
    try:
        zf = zipfile.ZipFile(full)
        members = check_zip(zf, full.stat().st_size, source)
    except (zipfile.BadZipFile, DataError, OSError) as exc:
        yield ("refused", source, str(exc) if isinstance(exc, DataError) else f"{source}: not a readable zip "
               f"({exc}).")
        return
    names = {i.filename for i in members}
    for info in sorted(members, key=lambda i: i.filename):
        rel = PurePosixPath(full.stem, info.filename)

        def sibling(name, info=info):
            other = str(PurePosixPath(info.filename).parent / name).lstrip("./") if "/" in info.filename else name
            return zf.read(other)[:1_000_000] if other in names else None

        yield ("member", f"{source}!{info.filename}", rel, (lambda info=info: zf.open(info)), info.file_size,
               sibling, True)


def _read_unit(unit) -> tuple:
    """("ok", SimFile) or ("refused", reason) for one unit of :func:`_units`."""
    _, source, rel, opener, size, sibling, _ = unit
    try:
        return "ok", read_one(opener, source, rel, size, sibling)
    except DataError as exc:
        msg = str(exc)
        return "refused", msg if msg.startswith(source) else f"{source}: {msg}"
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        return "refused", f"{source}: could not be read ({exc})."


#: fewest files read in parallel processes (fewer are read in this one: starting the workers costs more)
MIN_PARALLEL_FILES = 16


def _read_parallel(units: list, wanted: list, jobs: int) -> dict:
    """index -> what :func:`_read_unit` returned, for the units at ``wanted`` (plain files, not zip members:
    a zip's open file would be shared by the workers), read in ``jobs`` forked processes, a run of
    neighbouring files per task. The files of one format and statistics share their tables of names as
    they arrive (each worker's copy would otherwise be kept)."""
    from modeling.parallel import map_unordered

    per = max(1, min(64, len(wanted) // (jobs * 8)))
    batches = [wanted[i: i + per] for i in range(0, len(wanted), per)]

    def share(tables: dict, value) -> None:
        key = (value.format, tuple(value.names), tuple(value.units.items()), tuple(value.original.items()))
        first = tables.setdefault(key, value)
        if first is not value:
            value.names, value._index = first.names, first._index
            value.units, value.original = first.units, first.original

    def work(batch):
        # the files of a task share their tables here too, so that each table travels back once per task
        out, tables = [], {}
        for i in batch:
            status, value = _read_unit(units[i])
            if status == "ok":
                share(tables, value)
            out.append((i, (status, value)))
        return out

    got: dict = {}
    tables: dict = {}
    for part in map_unordered(work, batches, jobs):
        for i, (status, value) in part:
            if status == "ok":
                share(tables, value)
            got[i] = (status, value)
    return got


def read_paths(paths: list, max_files: int = MAX_FILES, jobs: int = 1) -> SimImport:
    """Every simulator output under ``paths`` (files, folders, zips) as one :class:`SimImport`; a file that
    cannot be read is refused with its reason and the others are read. ``jobs`` > 1: the files (not zip
    members) are read in that many forked processes when there are at least :data:`MIN_PARALLEL_FILES`;
    the import is the same, in the same order, whatever ``jobs`` is."""
    result = SimImport()
    units = list(_units(paths))
    files = [u for u in units if u[0] != "refused"]
    if len(files) > max_files:
        raise DataError(f"{len(files):,} files to read; an import reads at most {max_files:,}. Import the "
                        "folders a few at a time.")
    claimed: dict = {}
    skipped = 0
    # files of one simulator and configuration print the same statistics: their tables of names, units and
    # original names are shared (10,000 gem5 files of one study would otherwise hold 10,000 copies)
    schemas: dict = {}

    def wanted(unit) -> bool:
        rel, in_folder = unit[2], unit[6]
        return not (in_folder and (rel.name == "config.ini" or (not _LOG_NAME.search(rel.name)
                                                                and rel.name != "stats.txt")))

    plain = [i for i, u in enumerate(units) if u[0] == "file" and wanted(u)]
    read = _read_parallel(units, plain, jobs) if jobs > 1 and len(plain) >= MIN_PARALLEL_FILES else {}
    for i, unit in enumerate(units):
        if unit[0] == "refused":
            result.refused.append((unit[1], unit[2]))
            continue
        source = unit[1]
        if not wanted(unit):
            skipped += 1
            continue
        status, simfile = read.pop(i) if i in read else _read_unit(unit)
        if status == "refused":
            result.refused.append((source, simfile))
            continue
        clash = next(((r, claimed[(r.key.text, r.configuration)]) for r in simfile.records
                      if (r.key.text, r.configuration) in claimed), None)
        if clash:
            r, first = clash
            result.refused.append((source, f"{source}: workload {r.key.text!r} on configuration "
                                           f"{r.configuration!r} is already given by {first}; the two files claim "
                                           "the same run. Nothing was imported from this file."))
            continue
        for r in simfile.records:
            claimed[(r.key.text, r.configuration)] = source
        key = (simfile.format, tuple(simfile.names), tuple(simfile.units.items()), tuple(simfile.original.items()))
        shared = schemas.setdefault(key, simfile)
        if shared is not simfile:
            simfile.names, simfile._index = shared.names, shared._index
            simfile.units, simfile.original = shared.units, shared.original
        result.files.append(simfile)
    if skipped:
        result.notes.append(f"{skipped} file(s) whose names say they are no simulator output were skipped.")
    if not result.files and not result.refused:
        raise DataError("No simulator output found under the paths given.")
    return result
