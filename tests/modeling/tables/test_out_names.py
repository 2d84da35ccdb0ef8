"""Every command that writes a table (--out, --merged-out) takes a name ending in .csv or .parquet and refuses
any other when the command line is read, before any work is done; the file written is the format its name
says (a prediction asked for as .xlsx was once written as CSV under that name after the whole run)."""

import pandas as pd
import pytest

from modeling.__main__ import main
from modeling.errors import ConfigError
from modeling.tables.export import write_table

#: one command of each that writes a table, with what it needs besides --out (never read: refused before)
COMMANDS = [
    ["predict", "--host", "GTX-680", "--target", "GTX-980"],
    ["counts", "predict", "--program", "x", "--at", "N=1"],
    ["phases", "predict", "--trace", "t.csv", "--host-freq", "1", "--target-freq", "2"],
    ["plan", "--csv", "t.csv", "--target", "y", "--budget", "2"],
    ["import", "ncu", "a.csv"],
    ["import-sim", "a.log"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("name", ["result.xlsx", "result", "result.csv.txt"])
def test_a_table_asked_for_under_another_name_is_refused_before_any_work(command, name, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--out", str(tmp_path / name)])
    assert exit_.value.code == 2
    assert "must end in .csv or .parquet" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing written


def test_the_plan_refuses_a_merged_table_under_another_name(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["plan", "--csv", "t.csv", "--target", "y", "--budget", "2", "--merged-out", str(tmp_path / "m.xls")])
    assert "must end in .csv or .parquet" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["t.csv", "T.CSV", "t.parquet", "t.PARQUET"])
def test_a_table_is_written_in_the_format_its_name_says(name, tmp_path):
    frame = pd.DataFrame({"id": ["=cmd", "b"], "v": [1.5, -2.0]})
    write_table(frame, tmp_path / name)
    if name.lower().endswith(".parquet"):
        assert pd.read_parquet(tmp_path / name).equals(frame)
    else:
        assert (tmp_path / name).read_text().splitlines() == ["id,v", "'=cmd,1.5", "b,-2.0"]


def test_a_library_caller_gets_the_same_refusal(tmp_path):
    with pytest.raises(ConfigError, match="must end in .csv or .parquet"):
        write_table(pd.DataFrame({"v": [1]}), tmp_path / "t.xlsx")
    assert not list(tmp_path.iterdir())
