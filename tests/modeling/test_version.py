"""The code version in every result key is derived from the code: stable within and across processes,
changed by an edit of a model's source (on a copy of the package, never the real tree) or by another
version of a numerical package."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import modeling
from modeling import version

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def package_copy(tmp_path):
    copy = tmp_path / "modeling"
    shutil.copytree(version.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_stable_within_a_process():
    first = version.code_version()
    assert version.code_version() == first == version.code_digest()
    assert len(first) == 24 and int(first, 16) >= 0
    assert version.provenance() == {"code_version": first, "modeling_version": modeling.__version__,
                                    "packages": version.package_versions()}


def test_stable_across_processes():
    code = "from modeling.version import code_version; print(code_version())"
    outs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}).stdout.strip()
            for _ in range(2)}
    assert outs == {version.code_version()}


def test_copy_digests_like_the_package_and_ignores_caches(package_copy):
    versions = version.package_versions()
    assert version.code_digest(package_copy, versions) == version.code_digest(versions=versions)
    cache = package_copy / "crossgen" / "__pycache__"
    cache.mkdir()
    (cache / "ensemble.cpython-312.pyc").write_bytes(b"\x00compiled")
    (package_copy / "crossgen" / "forest.nbi").write_bytes(b"numba index")
    assert version.code_digest(package_copy, versions) == version.code_digest(versions=versions)


def test_a_model_edit_changes_the_digest_and_the_key(package_copy, monkeypatch):
    from dashboard.jobs import keys

    versions = version.package_versions()
    before = version.code_digest(package_copy, versions)
    forest = package_copy / "crossgen" / "forest_trees.py"
    forest.write_text(forest.read_text() + "\n# a changed model\n")
    after = version.code_digest(package_copy, versions)
    assert after != before
    monkeypatch.setattr(keys, "code_version", lambda: before)
    key_before = keys.result_key("scenario", {"dataset": "rodinia"}, "fp")
    monkeypatch.setattr(keys, "code_version", lambda: after)
    assert keys.result_key("scenario", {"dataset": "rodinia"}, "fp") != key_before
    # a renamed (moved) source changes it too, with the same bytes
    forest.rename(package_copy / "crossgen" / "forest_trees2.py")
    assert version.code_digest(package_copy, versions) not in (before, after)


def test_a_package_version_changes_the_digest():
    versions = version.package_versions()
    assert set(versions) == set(version.NUMERIC_PACKAGES) and versions["numpy"]
    bumped = {**versions, "scikit-learn": "0.0.1"}
    assert version.code_digest(versions=bumped) != version.code_digest(versions=versions)
    assert version.code_digest(versions={**versions, "numba": None}) != version.code_digest(versions=versions)
    assert version.package_versions(["surely-not-installed-perfcast"]) == {"surely-not-installed-perfcast": None}


def test_the_result_key_uses_the_code_version(monkeypatch):
    from dashboard.jobs import keys

    key = keys.result_key("scenario", {"a": 1}, "fp")
    assert keys.result_key("scenario", {"a": 1}, "fp") == key
    monkeypatch.setattr(keys, "code_version", lambda: "0" * 24)
    assert keys.result_key("scenario", {"a": 1}, "fp") != key
