"""Moving a stored item (a file or a directory) in one atomic step that never replaces what is there.

``rename(2)`` replaces an existing file (and an empty directory) at the destination; a restore from the trash
must instead refuse when an item with the same id was saved meanwhile (scenario and prediction ids come from
their content, so saving the same one again gives the same id). Linux's ``renameat2(RENAME_NOREPLACE)`` does
the check and the move as one step. Where it is missing (another libc, a filesystem without it), a file is
linked to its new name (which fails if the name exists) and then unlinked from the old one, and a directory is
renamed, which fails on a non-empty directory: every stored directory holds its metadata.
"""

from __future__ import annotations

import ctypes
import errno
import os
from pathlib import Path

from dashboard.state.files import _fsync_dir

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1

try:
    _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
except (AttributeError, OSError):  # not glibc >= 2.28
    _renameat2 = None


def _rename_noreplace(src: Path, dst: Path) -> None:
    if _renameat2 is not None:
        if _renameat2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS):  # EINVAL/ENOSYS: this filesystem cannot; fall back
            raise OSError(err, os.strerror(err), str(src), None, str(dst))
    if src.is_dir():
        if dst.exists():
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dst))
        os.rename(src, dst)  # fails on a non-empty directory
    else:
        os.link(src, dst)  # fails when dst exists
        os.unlink(src)


def move(src: Path, dst: Path) -> None:
    """Move ``src`` to ``dst`` (same filesystem) atomically, ``FileExistsError`` when ``dst`` exists,
    ``FileNotFoundError`` when ``src`` does not; both parent directories are fsynced afterwards, so the move
    survives a power cut."""
    _rename_noreplace(src, dst)
    _fsync_dir(dst.parent)
    if src.parent != dst.parent:
        _fsync_dir(src.parent)
