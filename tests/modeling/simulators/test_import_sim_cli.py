"""``python -m modeling import-sim``: files, folders and zips, its JSON and its table."""

import json
import zipfile
from pathlib import Path

import pandas as pd

from modeling.__main__ import main
from tests.modeling.simulators import simlogs

DATA = Path(__file__).resolve().parents[2] / "data" / "simulators"


def test_import_sim_json_every_record(tmp_path, capsys):
    log = tmp_path / "bfs.log"
    log.write_text(simlogs.log(3))
    z = tmp_path / "gem5.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("sp7/stats.txt", simlogs.GEM5_V21)
    out = tmp_path / "sim.csv"
    real = DATA / "gem5-hello-simple-atomic"
    assert main(["import-sim", str(log), str(z), str(real), "--json", "--out", str(out)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(d["records"]) == 3 + 2 + 1
    first = d["records"][0]
    assert first["key"]["text"] == "bfs/NO_ARGS--vecAdd--0" and first["dump"] == 0
    assert first["values"]["gpu_sim_cycle"] == 1000
    gem = [r for r in d["records"] if r["key"]["application"] == "sp7"]
    assert [r["dump"] for r in gem] == [0, 1]
    assert any("dump 2" in n for f in d["files"] for n in f["notes"])
    table = pd.read_csv(out)
    assert len(table) == 6 and "workload" in table.columns and "simSeconds" in table.columns


def test_import_sim_summary_and_refusals(tmp_path, capsys):
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"\x00" * 100)
    assert main(["import-sim", str(junk)]) == 2
    captured = capsys.readouterr()
    assert "binary data" in captured.out and "Nothing was imported" in captured.err
