"""Values that have a name are used by it: the situations, the interval level bounds, and no reaching into a
library's private attributes (argparse's ``_actions``)."""

import argparse
import io
import re
import tokenize
from pathlib import Path

import pytest

from modeling.crossgen import cli as crossgen_cli
from modeling.crossgen.situations import NEW_APPLICATIONS, NEW_INPUTS, SITUATIONS

ROOT = Path(__file__).resolve().parent.parent
CODE = [p for pkg in ("modeling", "dashboard") for p in (ROOT / pkg).rglob("*.py")]


def _tokens(path: Path):
    return list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))


def test_the_situations_are_written_once():
    """Only modeling/crossgen/situations.py spells a situation out in code (docstrings may name them)."""
    spelled = {f'"{NEW_INPUTS}"', f'"{NEW_APPLICATIONS}"', f"'{NEW_INPUTS}'", f"'{NEW_APPLICATIONS}'"}
    found = [f"{p.relative_to(ROOT)}:{t.start[0]}" for p in CODE if p.name != "situations.py"
             for t in _tokens(p) if t.type == tokenize.STRING and t.string in spelled]
    assert found == []
    assert list(SITUATIONS) == [NEW_INPUTS, NEW_APPLICATIONS]


def test_the_interval_level_bounds_are_written_once():
    """The pages' level bounds come from modeling.intervals.conformal (LEVEL_MIN, LEVEL_MAX), not a second 0.99."""
    found = [f"{p.relative_to(ROOT)}:{t.start[0]}" for p in (ROOT / "dashboard").rglob("*.py")
             for t in _tokens(p) if t.type == tokenize.NUMBER and t.string == "0.99"]
    assert found == []


def test_no_code_edits_argparse_private_actions():
    found = [str(p.relative_to(ROOT)) for p in CODE if re.search(r"\._actions\b", p.read_text())]
    assert found == []


def _parser():
    p = argparse.ArgumentParser()
    crossgen_cli.add_parsers(p.add_subparsers(dest="command"))
    return p


def test_predict_offers_auto_transform_and_the_situations_and_the_others_do_not():
    p = _parser()
    a = p.parse_args(["predict"])
    assert (a.transform, a.situation) == ("auto", NEW_INPUTS)
    assert p.parse_args(["predict", "--situation", NEW_APPLICATIONS]).situation == NEW_APPLICATIONS
    assert p.parse_args(["ensemble"]).transform == "none"
    assert p.parse_args(["ensemble", "--transform", "log"]).transform == "log"
    with pytest.raises(SystemExit):
        p.parse_args(["ensemble", "--transform", "auto"])
    with pytest.raises(SystemExit):
        p.parse_args(["predict", "--situation", "new-gpus"])
