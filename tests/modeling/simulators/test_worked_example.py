"""The worked example of docs/guide/simulators.md: its commands, run as written, in a fresh folder."""

import json
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from modeling.__main__ import main

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "guide" / "simulators.md"
PREFIX = ".venv/bin/python -m modeling "


def example_commands() -> list[str]:
    text = GUIDE.read_text()
    section = text[text.index("## A worked example"):]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    return [ln for ln in block.splitlines() if ln.strip()]


@pytest.mark.slow
def test_the_worked_example_runs_as_written(tmp_path, monkeypatch, capsys):
    for name in ("tests", "docs"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    commands = example_commands()
    assert len(commands) == 4 and all(c.startswith(PREFIX) for c in commands)
    outputs = []
    for cmd in commands:
        argv = shlex.split(cmd[len(PREFIX):])
        target = None
        if ">" in argv:
            target = argv[argv.index(">") + 1]
            argv = argv[:argv.index(">")]
        assert main(argv) == 0, cmd
        out = capsys.readouterr().out
        if target:
            Path(target).write_text(out)
        outputs.append(out)
    # what the guide says each step gives
    assert "joined by workload key: 4 matched" in outputs[0]
    round1 = pd.read_csv("round1.csv")
    assert len(round1) == 10 and round1["gpu_sim_cycle"].notna().sum() == 4
    plan1 = json.loads(Path("plan1.json").read_text())
    assert len(plan1["batch"]) == 3
    second = outputs[2]
    assert "join: 4 matched, 0 simulated records not in the table" in second
    assert "2 already simulated (kept)" in second
    missing = re.findall(r"missing from the batch: (\S+): no simulator output for it", second)
    assert len(missing) == 2 and all(m.startswith("srad/") for m in missing)
    assert "What the last round's simulations changed:" in second and "Simulated workloads 4 → 6." in second
    assert pd.read_csv("round2.csv")["gpu_sim_cycle"].notna().sum() == 6
    assert "4 predicted from the dataset's workloads without a measured target" in outputs[3]
