"""The documentation matches the repository: every relative link in README.md and docs/ resolves (the file,
and the heading when the link names one), every repository path named in backticks exists, and the layout
drawn in docs/architecture.md names every package of modeling/ and dashboard/ and nothing that is not there."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
PACKAGES = ("modeling", "dashboard")


def _rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _prose(page: Path) -> str:
    """The page without its fenced code blocks."""
    return FENCE.sub("", page.read_text())


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    out = set()
    for line in _prose(page).splitlines():
        m = re.match(r"#+\s+(.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(text.replace(" ", "-"))
    return out


def _top_level() -> set[str]:
    return {p.name for p in ROOT.iterdir() if not p.name.startswith(".") or p.name == ".ci"}


def _repository_path(text: str) -> Path | None:
    """The file or folder a backticked ``text`` names in the repository, or None when it names none (a
    command, a setting, a module's dotted name, a file of the user's). A path is checked when it starts at
    the repository's top level (``modeling/…``, ``run.sh``) or inside one of the packages
    (``jobs/fanout.py`` is ``dashboard/jobs/fanout.py``); ``:line`` suffixes are dropped."""
    text = re.sub(r":\d+(-\d+)?$", "", text.strip()).removeprefix("./")
    if not re.fullmatch(r"[\w.\-/]+", text) or text.startswith(("/", ".venv", "var/")) or "/" not in text and \
            not re.search(r"\.(py|sh|md|ini|txt|toml|conf\.py)$", text):
        return None
    first = text.split("/")[0]
    if first in _top_level():
        return ROOT / text
    for pkg in PACKAGES:
        if (ROOT / pkg / first).exists() and "/" in text:
            return ROOT / pkg / text
    return None


def _links():
    for page in PAGES:
        for target in LINK.findall(_prose(page)):
            if not re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                yield pytest.param(page, target, id=f"{_rel(page)}->{target}")


def _paths():
    for page in PAGES:
        for text in CODE.findall(_prose(page)):
            path = _repository_path(text)
            if path is not None:
                yield pytest.param(page, text, path, id=f"{_rel(page)}:{text}")


@pytest.mark.parametrize("page,target", list(_links()))
def test_every_relative_link_resolves(page, target):
    file, _, anchor = target.partition("#")
    dest = (page.parent / file).resolve() if file else page
    assert dest.exists(), f"{_rel(page)} links to {target}, which does not exist"
    if anchor and dest.suffix == ".md":
        assert anchor in _anchors(dest), f"{_rel(page)} links to {target}: no such heading in {_rel(dest)}"


@pytest.mark.parametrize("page,text,path", list(_paths()))
def test_every_path_named_exists(page, text, path):
    assert path.exists(), f"{_rel(page)} names `{text}`, which is not in the repository"


def _layout_tree() -> list[str]:
    """The paths of docs/architecture.md's layout drawing (the first fenced block after "## Layout"): each
    line's first word, below the folder of the last line less indented that ends in "/"."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = FENCE.search(text, text.index("## Layout")).group(0).splitlines()[1:-1]
    paths, stack = [], []  # stack: (indent, folder)
    for line in block:
        word = line.split()[0] if line.strip() else ""
        if not re.fullmatch(r"[\w.\-]+/?", word) or line[:1] == " " and line.startswith(" " * 25):
            continue  # a continuation line
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = "".join(f for _, f in stack) + word
        paths.append(path)
        if word.endswith("/"):
            stack.append((indent, word))
    return paths


def test_the_layout_drawing_names_only_what_exists():
    missing = [p for p in _layout_tree() if not (ROOT / p).exists()]
    assert not missing, f"docs/architecture.md's layout names {missing}, not in the repository"


def test_the_layout_drawing_names_every_package():
    drawn = set(_layout_tree())
    packages = sorted(p.parent.relative_to(ROOT).as_posix() + "/" for pkg in PACKAGES
                      for p in (ROOT / pkg).rglob("__init__.py"))
    undrawn = [p for p in packages if p not in drawn and p.rstrip("/").count("/") <= 2]
    assert not undrawn, f"packages missing from docs/architecture.md's layout: {undrawn}"


def test_docstrings_cite_the_repository_s_own_docs():
    """A docstring points at docs/ (or the README), never at a design file the repository does not hold."""
    cited = [p.relative_to(ROOT).as_posix() for d in (*PACKAGES, "tests", "benchmarks", "scripts")
             for p in (ROOT / d).rglob("*.py") if "DESIGN.md" in p.read_text() and p != Path(__file__)]
    cited += [f for f in ("app.py", "gunicorn.conf.py") if "DESIGN.md" in (ROOT / f).read_text()]
    assert cited == [], f"these cite DESIGN.md, which is not in the repository: {cited}"


def test_the_count_of_slow_entries_the_docs_state_is_the_count():
    """docs/testing.md says how many entries ``SLOW`` (tests/conftest.py) has; that is how many it has, and
    nothing else in tests/ or the docs states another count of them."""
    import ast

    conftest = (ROOT / "tests" / "conftest.py").read_text()
    slow = next(node.value for node in ast.parse(conftest).body if isinstance(node, ast.Assign)
                and any(getattr(t, "id", None) == "SLOW" for t in node.targets))
    testing = (ROOT / "docs" / "testing.md").read_text()
    stated = re.findall(r"`SLOW` in `tests/conftest.py`, which has (\d+) entries", testing)
    assert stated == [str(len(slow.elts))], f"docs/testing.md states {stated} SLOW entries; SLOW has {len(slow.elts)}"
    others = [f"{_rel(page)}: {m.group(0)!r}" for page in [*PAGES, ROOT / "tests" / "conftest.py"]
              for m in re.finditer(r"\b(\d+) (?:of them|slow tests|`slow` tests|tests cost)\b", page.read_text())]
    assert not others, f"a count of the slow tests stated elsewhere: {others}"


#: a path into a folder beside the repository, which its users do not have (spelled in pieces so that this
#: file does not match itself)
_BESIDE = re.compile(r"\.\./" + "shared\\b" + r"|\b" + "shared/(?:papers|datasets)\\b" + r"|[\"']" + "shared"
                     + r"[\"']\s*/\s*[\"']datasets")


def _tracked_files() -> list[Path]:
    """The repository's files: git's list when this is a clone, else every file outside dot-folders and var/."""
    import subprocess

    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
        return [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        return [p for p in ROOT.rglob("*") if p.is_file() and not any(
            part.startswith(".") or part == "var" for part in p.relative_to(ROOT).parts)]


def test_nothing_in_the_repository_points_outside_it():
    """The repository stands alone: no file names a folder beside it (papers and datasets are cited by title,
    venue and public address; data/README.md says where each source is published)."""
    found = []
    for path in _tracked_files():
        try:
            data = path.read_bytes()
        except OSError:  # a file deleted in the working tree
            continue
        if b"\0" in data[:8192]:
            continue  # binary: a parquet file, an image
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if _BESIDE.search(line):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{n}: {line.strip()[:100]}")
    assert not found, "these point at a folder beside the repository:\n" + "\n".join(found)
