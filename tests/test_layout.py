"""The project's layout rules (docs/architecture.md): dependencies point dashboard -> modeling only, no import loops,
one package per method on both sides."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("modeling", "dashboard")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


def _imports(path: Path, module: str, known: dict) -> set[str]:
    """Project modules ``path`` imports, at the top or inside functions (a lazy import is still a dependency)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] not in PACKAGES:
                continue
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                found.add(sub if sub in known else node.module)
    return {m for m in found if m in known and m != module}


def _graph():
    known = _modules()
    return {m: _imports(p, m, known) for m, p in known.items()}


def test_modeling_never_imports_the_dashboard_or_dash():
    for module, deps in _graph().items():
        if module.startswith("modeling"):
            assert not [d for d in deps if d.startswith("dashboard")], module
    for p in (ROOT / "modeling").rglob("*.py"):
        tree = ast.parse(p.read_text())
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert "dash" not in names and "plotly" not in names, p


def test_no_import_loops():
    graph = _graph()
    index, low, stack, on, loops = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                loops.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert loops == []


def test_one_package_per_method_on_both_sides():
    for method in ("crossgen", "accelerators", "newapp", "phases", "counts"):
        assert (ROOT / "modeling" / method / "__init__.py").exists()
        assert (ROOT / "dashboard" / method / "__init__.py").exists()
        assert (ROOT / "tests" / "modeling" / method).is_dir()
    for pkg in PACKAGES:
        top = [p.name for p in (ROOT / pkg).glob("*.py")]
        # shared plumbing only (modeling's includes the result contract, results.py); methods live in their packages
        assert len(top) <= 9, (pkg, top)


#: The floors of dashboard/, lowest first: a package imports only from its own floor or the floors below it.
FLOORS = [
    {"dashboard.settings", "dashboard.audit_log", "dashboard.request_checks"},
    {"dashboard.access", "dashboard.state", "dashboard.security"},
    {"dashboard.ui"},
    {"dashboard.jobs"},
    {"dashboard.accelerators", "dashboard.counts", "dashboard.crossgen", "dashboard.data_import", "dashboard.newapp",
     "dashboard.operators", "dashboard.phases", "dashboard.predict", "dashboard.plan"},
    {"dashboard.pages", "dashboard.callback_errors", "dashboard.admin", "dashboard.warmup"},
]


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_dashboard_imports_run_down_its_floors_only():
    """No arrow back up inside dashboard/: the page furniture (ui) never imports the jobs, the jobs never import a
    method's package, and nothing imports the pages."""
    floor = {pkg: i for i, pkgs in enumerate(FLOORS) for pkg in pkgs}
    up = []
    for module, deps in _graph().items():
        if not module.startswith("dashboard."):
            continue
        here = _package(module)
        assert here in floor, f"{here} has no floor in tests/test_layout.py FLOORS"
        up += [(module, d) for d in deps if d.startswith("dashboard.") and floor[_package(d)] > floor[here]]
    assert up == []


#: The bottom floor of modeling/: what every method may use, importing nothing above it.
MODELING_BOTTOM = {"modeling.errors", "modeling.intervals"}


def test_the_intervals_sit_at_the_bottom_of_modeling_and_every_method_uses_them():
    """One conformal module (modeling/intervals/) for every method's intervals: it imports only the bottom floor,
    and each method with intervals takes them from it."""
    graph = _graph()
    for module, deps in graph.items():
        if _package(module) in MODELING_BOTTOM:
            assert {_package(d) for d in deps} <= MODELING_BOTTOM, module
    for method in ("crossgen", "counts", "phases", "plan", "newapp"):
        users = [m for m, deps in graph.items() if m.startswith(f"modeling.{method}.")
                 and any(_package(d) == "modeling.intervals" for d in deps)]
        assert users, f"modeling.{method} takes no intervals from modeling.intervals"


def test_figures_only_draw():
    """Figure modules turn computed numbers into plotly JSON: they call no model (views compute); from modeling
    they import only a formatter and a labels module."""
    allowed = {"modeling.accelerators.advisor": ["fmt_bytes"], "modeling.counts.names": ["NAMES"],
               "modeling.phases.names": ["NAMES"]}
    for p in (ROOT / "dashboard").rglob("figures.py"):
        tree = ast.parse(p.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("modeling"):
                assert allowed.get(node.module) == [a.name for a in node.names], (p, node.module)
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("modeling") for a in node.names), p


def _imported_modules(path: Path) -> set[str]:
    """The modules ``path`` imports, at any depth (``from testkit import signin`` is ``testkit.signin``)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


@pytest.mark.parametrize("folder,other", [("tests", "benchmarks"), ("benchmarks", "tests"), ("testkit", "tests"),
                                          ("testkit", "benchmarks")])
def test_tests_and_benchmarks_never_import_each_other(folder, other):
    """What the tests and the benchmarks share (servers, the scripted Dash client, sign-in, synthetic tables,
    held-out protocols) lives in testkit/, which both import and which imports neither."""
    found = sorted(f"{p.relative_to(ROOT)} imports {m}" for p in (ROOT / folder).rglob("*.py")
                   for m in _imported_modules(p) if m == other or m.startswith(other + "."))
    assert not found, found


def test_every_csv_for_people_is_written_by_the_one_export():
    """A CSV a person downloads or a command writes (--out) goes through modeling/tables/export.py, which keeps
    a user's text from running as a spreadsheet formula: no other ``.to_csv(`` in dashboard/ or modeling/ (the
    data builders and this machine's collectors write the project's own files)."""
    own = {ROOT / "modeling/tables/export.py"}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            if p in own or p.parts[-2] in ("build", "collect"):
                continue
            for node in ast.walk(ast.parse(p.read_text())):
                if isinstance(node, ast.Attribute) and node.attr == "to_csv":
                    raise AssertionError(f"{p.relative_to(ROOT)}:{node.lineno} writes a CSV of its own")
