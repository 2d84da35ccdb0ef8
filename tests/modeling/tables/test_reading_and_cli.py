"""User tables (CSV/Parquet) and the command line."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests import cli

from modeling.__main__ import main
from modeling.errors import DataError
from modeling.tables.workload import table_scenario
from modeling.tables.reading import read_csv_bytes, read_table

ROOT = Path(__file__).resolve().parents[3]


def test_bom_semicolon_and_thousands():
    t = read_csv_bytes("\ufeffid;a;b\nw1;1,234;2\nw2;5;N/A\n".encode())
    assert t.delimiter == ";" and list(t.frame.columns) == ["id", "a", "b"]
    assert t.frame["a"].tolist() == [1234.0, 5.0]
    assert "thousands" in t.conversions["a"] and "N/A" in t.conversions["b"]


def test_tab_separated_and_units_text():
    t = read_csv_bytes(b"id\tclock\tx\nw1\t3.2GHz\t1\nw2\t3.0\t2\nw3\t2.9\t3\nw4\t2.8\t4\nw5\t2.7\t5\n")
    assert t.delimiter == "\t"
    assert np.isnan(t.frame["clock"][0]) and "non-numeric" in t.conversions["clock"]


@pytest.mark.parametrize("raw,match", [
    (b"a,b\n1,\x96\n", "not UTF-8: byte 0x96 on line 2"),
    (b"a,a,b\n1,2,3\n", "Duplicate column names: a"),
    (b"a,b\n1,2\n3\n", "Row 3 has 1 fields"),
    (b"", "empty"),
    (b"a,b\n", "no data rows"),
    (b"PK\x03\x04rest", "Excel"),
    (b"\x80\x04\x95pickle", "pickle"),
])
def test_bad_csv_messages(raw, match):
    with pytest.raises(DataError, match=match):
        read_csv_bytes(raw)


def test_parquet_roundtrip_and_refusal(tmp_path):
    p = tmp_path / "t.parquet"
    pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}).to_parquet(p)
    assert read_table(p).frame.shape == (2, 2)
    q = tmp_path / "bad.parquet"
    pd.DataFrame({"a": [[1, 2], [3]]}).to_parquet(q)
    with pytest.raises(DataError, match="only numbers and text"):
        read_table(q)


def test_table_scenario_errors():
    df = pd.DataFrame({"id": ["a", "b", "c"], "x": [1.0, 2, 3], "y": [1.0, np.nan, 3]})
    with pytest.raises(DataError, match="not in the table: zz"):
        table_scenario(df, "zz")
    with pytest.raises(DataError, match="1 infinite"):
        table_scenario(df.assign(y=[1.0, np.inf, 3]), "y", id_col="id")
    with pytest.raises(DataError, match="No row has both a target"):
        table_scenario(df.assign(y=np.nan), "y", id_col="id")


def _csv(tmp_path):
    rng = np.random.default_rng(0)
    n = 40
    host = rng.uniform(1, 100, n)
    df = pd.DataFrame({"wl": [f"w{i}" for i in range(n)], "app": np.repeat(list("abcd"), 10),
                       "host_cpf": host, "f1": rng.uniform(0, 5, n), "f2": rng.uniform(0, 5, n)})
    df["target_cpf"] = 0.6 * host + 3 * df.f1 + rng.normal(0, 0.5, n) + 5
    path = tmp_path / "w.csv"
    df.to_csv(path, index=False)
    return path


def test_cli_csv_json(tmp_path, capsys):
    path = _csv(tmp_path)
    rc = main(["ensemble", "--csv", str(path), "--target", "target_cpf", "--group", "app", "--id", "wl",
               "--host-col", "host_cpf", "--models", "OLS,NNLS,OLS/Forward/BIC", "--cv", "logo", "--json"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    assert d["n_workloads"] == 40 and d["n_features"] == 3 and d["scenario"]["cv"] == "logo"
    assert d["baseline"]["e_out"] > 0 and d["best"]["overall"] in {"OLS", "NNLS", "OLS/Forward/BIC"}
    assert all(set(m["inlier_ratio"]) == {"1", "5", "10", "15", "20", "30", "40", "50"} for m in d["models"])


def test_cli_errors_are_messages_not_tracebacks(tmp_path, capsys):
    path = _csv(tmp_path)
    assert main(["ensemble", "--csv", str(path), "--target", "nope"]) == 2
    assert "not in the table" in capsys.readouterr().err
    assert main(["ensemble", "--host", "GTX-680", "--target", "RTX-9090"]) == 2
    assert "Unknown target GPU" in capsys.readouterr().err


def test_cli_json_on_the_shipped_data():
    out = cli.run_cli("ensemble", "--host", "GTX-680", "--target", "GTX-980", "--models", "OLS,NNLS/Forward/BIC,Lasso",
                      "--folds", "5", "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["scenario"]["host"] == "GTX-680" and d["n_workloads"] == 283
    assert d["baseline"]["e_out"] > 0 and len(d["models"]) == 3


def test_cli_shipped_smoke_subprocess():
    """``python -m modeling ensemble`` as a user starts it: the leaderboard as a table."""
    table = cli.run_subprocess("ensemble", "--host", "GTX-680", "--target", "GTX-980", "--models", "NNLS",
                               "--folds", "5")
    assert table.returncode == 0 and "E_out %" in table.stdout and "Baseline" in table.stdout


def test_table_scenario_keeps_unmeasured_rows_apart():
    """An empty target marks a workload to predict: it is not trained on, and kept with its features;
    a row missing a feature is dropped and counted; an infinite target is refused."""
    df = pd.DataFrame({"id": ["a", "b", "c", "d", "e"], "app": ["p", "p", "q", "q", "r"],
                       "f1": [1.0, 2.0, 3.0, 4.0, np.nan], "f2": [5.0, 6.0, 7.0, 8.0, 9.0],
                       "y": [10.0, np.nan, 30.0, np.nan, np.nan]})
    s = table_scenario(df, "y", "app", "id")
    assert s["workload_ids"] == ["a", "c"] and s["y"].tolist() == [10.0, 30.0]
    u = s["unmeasured"]
    assert u["workload_ids"] == ["b", "d"] and u["groups"].tolist() == ["p", "q"]
    assert u["X"].tolist() == [[2.0, 6.0], [4.0, 8.0]]
    assert s["missing_rows"] == 1 and s["missing_ids"] == ["e"]
    df.loc[0, "y"] = np.inf
    with pytest.raises(DataError, match="infinite"):
        table_scenario(df, "y", "app", "id")


def test_shipped_scenario_unmeasured_workloads():
    from modeling import shipped

    s = shipped.scenario("GTX-680", "GTX-970")
    u = s["unmeasured"]
    assert u["X"].shape == (32, s["X"].shape[1])
    assert all(w.startswith("lud_perimeter:") for w in u["workload_ids"])
    assert not set(u["workload_ids"]) & set(s["workload_ids"])


def test_nul_anywhere_in_a_csv_is_refused():
    body = b"a,b\n" + b"1,2\n" * 40_000 + b"3,\x004\n"  # past the first 64 KiB
    assert len(body) > 65536
    with pytest.raises(DataError, match="NUL bytes"):
        read_csv_bytes(body)


def test_a_row_error_says_nothing_was_imported_once():
    """The /data page appends "Nothing was imported." to every reading error: the error itself does not."""
    with pytest.raises(DataError) as exc:
        read_csv_bytes(b"a,b\n1,2\n3\n")
    assert "Nothing was imported" not in str(exc.value) and "Row 3 has 1 fields" in str(exc.value)


def test_a_parquet_extension_type_not_registered_here_is_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from modeling.tables.reading import read_parquet_bytes

    class Money(pa.ExtensionType):
        def __init__(self):
            super().__init__(pa.int64(), "perfcast.test.money")

        def __arrow_ext_serialize__(self):
            return b""

        @classmethod
        def __arrow_ext_deserialize__(cls, storage_type, serialized):
            return cls()

    arr = pa.ExtensionArray.from_storage(Money(), pa.array([1, 2, 3]))
    pq.write_table(pa.table({"x": [1.0, 2.0, 3.0], "m": arr}), tmp_path / "t.parquet")
    with pytest.raises(DataError, match="extension type 'perfcast.test.money'"):
        read_parquet_bytes((tmp_path / "t.parquet").read_bytes())


_BOMB = """
import io, resource, sys
import pyarrow as pa, pyarrow.parquet as pq
from modeling.errors import DataError
from modeling.tables.reading import read_parquet_bytes
rows, size, dictionary = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "dict"
b = io.BytesIO()
pq.write_table(pa.table({"s": pa.array(["x" * size] * rows) if dictionary else pa.array(["x" * size] * 1).take(
    pa.array([0] * rows)), "v": pa.array(range(rows))}), b, compression="zstd", use_dictionary=dictionary)
raw = b.getvalue()
del b
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_parquet_bytes(raw)
    print("accepted", len(raw))
except DataError as exc:
    print("refused", len(raw), (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024, exc)
"""


@pytest.mark.parametrize("encoding", ["dict", "plain"])
def test_a_parquet_bomb_is_refused_before_it_is_materialized(encoding):
    """60,000 rows of one 10 kB text value (600 MB as text) in a file of a few hundred kB: refused, and the
    reading process grows by far less than the text would take (measured in a fresh process)."""
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", _BOMB, "60000", "10000", encoding], cwd=root, capture_output=True,
                         text=True, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert out.returncode == 0, out.stderr
    word, size, *rest = out.stdout.split(maxsplit=3)
    assert word == "refused", out.stdout
    assert int(size) < 2_000_000  # the file is small
    assert int(rest[0]) < 150, f"the process grew by {rest[0]} MB while refusing"
    assert "decodes to" in rest[1]
