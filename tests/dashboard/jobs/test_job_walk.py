"""A reader follows a page to the job it runs by plain imports and calls: the page calls ``register_job`` with a
job kind it imports by name, the kind names its ``compute`` function, and that function is a module-level
function importable by its module and qualified name (go-to-definition reaches it; no lambda or closure hides
it). And the job layer stays readable: no function in dashboard/jobs is longer than 60 lines."""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import dashboard.jobs
import dashboard.pages
from dashboard.jobs import JobKind

MAX_LINES = 60


def _importable(fn) -> bool:
    """Is ``fn`` the object its module holds under its qualified name (so an import reaches it)?"""
    module = inspect.getmodule(fn)
    if module is None or module is not importlib.import_module(fn.__module__):
        return False
    found = module
    for part in fn.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is fn


def _registered_kinds(module) -> list[tuple[str, object]]:
    """``(name, object)`` of the job kind each ``register_job(prefix, KIND, ...)`` call of ``module`` passes."""
    got = []
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "register_job":
            arg = node.args[1]
            assert isinstance(arg, ast.Name), f"{module.__name__}: a job kind passed by a plain name"
            got.append((arg.id, getattr(module, arg.id)))
    return got


def _page_jobs() -> list[tuple[str, str, object]]:
    import app  # noqa: F401 - registers the pages (a page is imported after the app)

    jobs = []
    for info in pkgutil.iter_modules(dashboard.pages.__path__):
        module = importlib.import_module(f"dashboard.pages.{info.name}")
        jobs += [(info.name, name, kind) for name, kind in _registered_kinds(module)]
    return jobs


def test_the_check_tells_an_importable_function_from_a_lambda_or_a_closure():
    def closure(params, report):
        return None

    assert _importable(_importable)
    assert not _importable(lambda params, report: None)
    assert not _importable(closure)


def test_every_page_that_runs_a_job_leads_to_an_importable_compute_function():
    found = _page_jobs()
    pages = {page for page, _, _ in found}
    assert {"scenario", "phases", "counts", "predict", "plan", "newapp"} <= pages and len(found) >= 15
    for page, name, kind in found:
        assert isinstance(kind, JobKind), (page, name)
        fn = kind.compute
        assert inspect.isfunction(fn) and "<" not in fn.__qualname__, (page, name, fn)
        assert _importable(fn), (page, name, fn)
        # the round trip a reader makes: the module by its name, the function by its name in it
        assert getattr(importlib.import_module(fn.__module__), fn.__qualname__) is fn


def test_the_job_panel_calls_the_kind_and_the_kind_calls_its_compute():
    """The two calls between a page's registered panel and its compute function are plain calls in the code."""
    from dashboard.jobs.keys import JobKind as Kind
    from dashboard.jobs.panel import JobPanel

    assert "self.kind.run(" in inspect.getsource(JobPanel.run)
    assert "self.compute(" in inspect.getsource(Kind.run)


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


@pytest.mark.parametrize("path", sorted(Path(dashboard.jobs.__file__).parent.glob("*.py")), ids=lambda p: p.name)
def test_no_function_in_the_job_layer_is_longer_than_60_lines(path):
    long = [f"{name} (line {line}): {n} lines" for name, line, n in _functions(path) if n > MAX_LINES]
    assert not long, f"{path.name}: {long}"
