"""Which code computed a result: a digest of the modeling sources and the numerical packages.

``modeling.__version__`` is a label for people and changes only when someone edits it; a result cache
keyed by it would serve numbers of an older model after the model changed. :func:`code_version` is
derived from the code itself instead: a SHA-256 over every Python source of the ``modeling`` package
(sorted relative paths and their bytes; ``__pycache__`` and compiled files skipped) and the installed
versions of the packages whose releases can change numbers (:data:`NUMERIC_PACKAGES`, read from the
installed distributions' metadata with :mod:`importlib.metadata`, without importing them).

It is computed once per process, on first use (about 64 files: a few milliseconds). Web servers and job
workers that run the same checkout with the same packages get the same digest, so they share results;
any edit of a model's source, or an upgrade of numpy, scikit-learn…, gives new result keys.

What is not in it: the C kernels under ``modeling/collect`` (they are measured by ``collect``, they do
not compute dashboard results), the data (every result key carries its dataset's own fingerprint) and
the Python interpreter's version.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
from pathlib import Path

import modeling

#: Distributions whose installed version is part of the digest: a new release of any of them may change
#: the numbers a model computes (solvers, random streams, defaults).
NUMERIC_PACKAGES = ("numpy", "scipy", "scikit-learn", "pandas", "statsmodels", "numba", "pyarrow")

#: The folder of the ``modeling`` package whose sources are digested.
PACKAGE_DIR = Path(modeling.__file__).resolve().parent

_SKIP_DIRS = {"__pycache__"}


def package_versions(names=NUMERIC_PACKAGES) -> dict[str, str | None]:
    """Installed version of each distribution in ``names`` (None when it is not installed).

    Parameters
    ----------
    names : iterable of str
        Distribution names as pip knows them (``"scikit-learn"``, not ``"sklearn"``).

    Returns
    -------
    dict
        ``{name: version or None}``, read from package metadata; nothing is imported.
    """
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def source_files(root: Path = PACKAGE_DIR) -> list[Path]:
    """The Python sources below ``root``, sorted by their path relative to ``root`` (POSIX form).

    ``__pycache__`` folders and compiled files (``.pyc``, ``.pyo``, numba's ``.nbi``/``.nbc``) are
    not sources and are skipped: only files ending in ``.py`` count."""
    root = Path(root)
    files = [p for p in root.rglob("*.py")
             if p.is_file() and not _SKIP_DIRS.intersection(p.relative_to(root).parts)]
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def code_digest(root: Path = PACKAGE_DIR, versions: dict | None = None) -> str:
    """Digest of the sources below ``root`` and of the package ``versions``.

    Parameters
    ----------
    root : Path
        The package folder (the installed ``modeling`` by default; tests pass a copy).
    versions : dict, optional
        ``{distribution: version}``; :func:`package_versions` when None.

    Returns
    -------
    str
        24 hexadecimal digits of a SHA-256 over each source's relative path, length and bytes, in
        sorted order, followed by the sorted versions. Equal trees and versions give equal digests in
        every process (no time stamps, no absolute paths).
    """
    root = Path(root)
    h = hashlib.sha256(b"perfcast-code-v1\0")
    for path in source_files(root):
        data = path.read_bytes()
        rel = path.relative_to(root).as_posix().encode()
        h.update(b"%d:%s\0%d:" % (len(rel), rel, len(data)))
        h.update(data)
    versions = package_versions() if versions is None else versions
    for name in sorted(versions):
        h.update(f"\0{name}={versions[name]}".encode())
    return h.hexdigest()[:24]


@functools.cache
def code_version() -> str:
    """The digest of this process's ``modeling`` sources and numerical packages (computed once).

    Used in every result key, and as a result's provenance beside the dataset fingerprint."""
    return code_digest()


def provenance() -> dict:
    """What computed a result, as plain JSON: the code digest, the display version and the packages."""
    return {"code_version": code_version(), "modeling_version": modeling.__version__,
            "packages": package_versions()}
