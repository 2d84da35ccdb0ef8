"""The command line's ``--jobs``: every core by default, and the same numbers as one process to the digit."""

import json

import pandas as pd
import pytest

from modeling.__main__ import main
from modeling.parallel import cores
from testkit.timings import without_timings



@pytest.fixture()
def small_table(tmp_path):
    from testkit.halwpe_shaped import make

    X, y, _ = make(n=120, p=90)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    frame["cpf"] = y
    path = tmp_path / "small.csv"
    frame.to_csv(path, index=False)
    return path


def _run(capsys, argv):
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_jobs_defaults_to_every_core():
    import argparse

    from modeling.collect import cli as collect_cli
    from modeling.crossgen import cli as crossgen_cli
    from modeling.newapp import cli as newapp_cli

    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command")
    for c in (crossgen_cli, newapp_cli, collect_cli):
        c.add_parsers(sub)
    for argv in (["ensemble"], ["sweep"], ["predict"], ["newapp"], ["collect", "bbcounts"]):
        assert p.parse_args(argv).jobs == cores(), argv
    assert p.parse_args(["ensemble", "--jobs", "1"]).jobs == 1


@pytest.mark.parametrize("bad", ["0", "-2", "two"])
def test_jobs_refuses_less_than_one_process(bad, capsys):
    with pytest.raises(SystemExit):
        main(["ensemble", "--jobs", bad])
    assert "--jobs" in capsys.readouterr().err


def test_ensemble_default_jobs_equals_one_process(small_table, capsys, monkeypatch):
    # the default is two processes even on a one-core machine, so that the fork pool is what runs
    monkeypatch.setattr("modeling.parallel.cores", lambda: 2)
    base = ["ensemble", "--csv", str(small_table), "--target", "cpf", "--models", "rastsim", "--folds", "4",
            "--json"]
    one = _run(capsys, [*base, "--jobs", "1"])
    two = _run(capsys, base)  # the default: every core (two here)
    assert without_timings(two) == without_timings(one)
    assert json.dumps(without_timings(two)) == json.dumps(without_timings(one))


def test_sweep_jobs_equals_one_process(small_table, capsys):
    base = ["sweep", "--csv", str(small_table), "--target", "cpf", "--folds", "3", "--json"]
    assert _run(capsys, [*base, "--jobs", "2"]) == _run(capsys, [*base, "--jobs", "1"])
