"""The granularity field of /phases and the command line's default are one rule's, to the digit, on the shipped
traces and on a trace whose samples are too large for 2e9 (the public PARSEC traces)."""

import json
from pathlib import Path

from modeling.__main__ import main

PARSEC = Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "parsec_xu3" / "parsec_xu3.data.gz"


def _find(component, id_):
    if getattr(component, "id", None) == id_:
        return component
    children = getattr(component, "children", None)
    for c in children if isinstance(children, (list, tuple)) else [children]:
        if c is not None and not isinstance(c, (str, int, float)):
            found = _find(c, id_)
            if found is not None:
                return found
    return None


def _cli_default(args, capsys) -> float:
    assert main(["phases", *args, "--eps", "100", "--T", "1", "--folds", "2", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["granularity"]


def test_the_page_field_and_the_command_line_share_one_default(var, tmp_path, capsys):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import phases as page
    from dashboard.phases import sources
    from dashboard.phases.kinds import PHASES

    cases = [(sources.SHIPPED, ["--host-freq", "1000", "--target-freq", "2000"], 1000, 2000)]
    src = sources.save_upload(PARSEC.read_bytes(), "parsec_xu3.data.gz")
    assert main(["build-data", "armpm", "--source", str(PARSEC), "--out", str(tmp_path / "out")]) == 0
    built = json.loads(capsys.readouterr().out)
    cases.append((src["id"], ["--phases", str(tmp_path / "out"), "--host-freq", "1000", "--target-freq", "1800"],
                  1000, 1800))
    seen = []
    for source, args, host, target in cases:
        cli = _cli_default(args, capsys)
        params = PHASES.request({"source": source, "host_freq": str(host), "target_freq": str(target)})["params"]
        assert params["granularity"] == cli  # the page's default is the command line's
        form = page._form(params)
        field, hint = _find(form, "phases-granularity"), _find(form, "phases-granularity-hint")
        assert field.value == cli and f"default {cli:.3g}" in hint.children
        assert field.min <= cli and f"at least {field.min:.3g}" in hint.children
        # choosing the data again: the field follows it (a value the data cannot support is raised)
        mn, text, value = page._granularity_rule(source, host, target, 1e9)
        assert (mn, text, value) == (field.min, hint.children, cli)
        seen.append(cli)
    assert seen == [2e9, 3e9] and built["granularity"] == 3e9  # build-data on the same trace: its pairs' largest


def test_a_runs_edges_are_in_its_total_but_not_drawn_as_phases():
    from dashboard.phases.results import PhaseTrace

    t = PhaseTrace(["a", "a", "a", "a", "b"], [1e8, 2e9, 2e9, 3e8, 2e9], [1.0, 2.0, 2.0, 1.0, 2.0],
                   [True, False, False, True, False])
    assert t.indices("a") == [1, 2] and t.indices("b") == [4]
    assert PhaseTrace(["a", "a"], [2e9, 2e9], [1.0, 1.0]).indices("a") == [0, 1]  # stored before edges
