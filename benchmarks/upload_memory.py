"""How much an upload grows a server process, against the stated bound, printed as JSON (never a test).

Each case runs in a fresh Python process that has imported the server's upload code and holds the upload as
the browser sends it (a ``data:`` URL, as ``dcc.Upload`` delivers it to the callback); from there it does
what the /data page's upload callback does with it: decode the data URL, then, holding the one-large-read
lock when the read is expected to be large (as the page does), read the table
(:func:`dashboard.state.uploads.parse_upload`), write the staged Parquet (in memory), describe the
columns, the missing-value preview, the mapping guess and the 10-row preview. Reported per case: the file's
size, the reading's expected memory (:func:`modeling.tables.decoded_size.read_cost`, what decides the
one-large-read lock), accepted or refused (with the message), ``peak_growth_mb`` (the process's peak
resident size, ``VmHWM``, minus its size before the callback's work) and ``held_after_mb`` (resident size
after the results are dropped), and ``within_bound`` against
:data:`~modeling.tables.decoded_size.UPLOAD_BOUND_BYTES`.

Cases: the dictionary bomb of the abuse report (1,000,000 rows of two 500-byte values, 60 kB on disk), the
same without statistics, the largest honest tables the limits accept (text near the decoded bound; 5,000,000
numbers as Parquet and as a 47 MB CSV; a 48 MB CSV of text), and ``--threads`` uploads of one case at once in
one process (a server process has 4 threads: the lock lets one large read run at a time).

    .venv/bin/python benchmarks/upload_memory.py [--threads 4] [--cases bomb,honest-text,...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _dictionary(rows: int, values: list, with_values: dict | None = None) -> pa.Table:
    column = pa.DictionaryArray.from_arrays(pa.array(np.arange(rows) % len(values), pa.int32()), pa.array(values))
    return pa.table({"s": column, **(with_values or {})})


def _write(table: pa.Table, path: Path, **kw) -> None:
    pq.write_table(table, path, compression="zstd", **kw)


def make_cases(d: Path) -> dict:
    """The case files under ``d``: name -> path."""
    rng = np.random.default_rng(0)
    out = {}
    out["bomb"] = d / "bomb.parquet"
    _write(_dictionary(1_000_000, ["a" * 500, "b" * 500]), out["bomb"])
    out["bomb-no-statistics"] = d / "bomb-nostats.parquet"
    _write(_dictionary(1_000_000, ["a" * 500, "b" * 500]), out["bomb-no-statistics"], write_statistics=False)
    # an honest table near the decoded bound: 1,000,000 workloads named by 1,000 distinct 20-byte names, 4 numbers
    # (20 + 8 bytes a name, 32 bytes of numbers a row: 60 MB)
    names = [f"app{i:04d}-" + "k" * 12 for i in range(1000)]
    nums = {f"x{i}": rng.random(1_000_000) for i in range(4)}
    out["honest-text"] = d / "honest-text.parquet"
    _write(pa.table({"workload": pa.array(names).take(pa.array(np.arange(1_000_000) % 1000)), **nums}),
           out["honest-text"])
    frame = pd.DataFrame({f"c{i}": rng.random(1_000_000).round(6) for i in range(5)})
    out["numbers-parquet"] = d / "numbers.parquet"
    frame.to_parquet(out["numbers-parquet"], index=False)
    out["numbers-csv"] = d / "numbers.csv"
    frame.to_csv(out["numbers-csv"], index=False)
    text = pd.DataFrame({"workload": [f"kernel_{i:07d}_" + "t" * 70 for i in range(500_000)],
                         "t": rng.random(500_000).round(6)})
    out["text-csv"] = d / "text.csv"
    text.to_csv(out["text-csv"], index=False)
    return out


_CHILD = r"""
import base64, gc, json, sys, threading
import numpy as np
from dashboard.state import uploads
from dashboard.state.files import _parquet_bytes
from modeling.errors import DataError
from modeling.tables.decoded_size import read_cost

def status():
    d = {}
    for line in open("/proc/self/status"):
        if line.startswith(("VmRSS", "VmHWM")):
            d[line[:5]] = int(line.split()[1]) / 1024
    return d

path, threads = sys.argv[1], int(sys.argv[2])
raw = open(path, "rb").read()
contents = "data:application/octet-stream;base64," + base64.b64encode(raw).decode()
cost = read_cost(raw)
del raw
gc.collect()
open("/proc/self/clear_refs", "w").write("5")  # the peak from here
before = status()["VmRSS"]
results = []

def upload():
    try:
        raw = uploads.decode_upload(contents)
        cost = read_cost(raw)
        if cost >= uploads.LARGE_PARSE_BYTES:  # as the /data page: wait holding the request's text only
            del raw
        with uploads.one_large_read(cost):  # as the /data page: reading, staging and preview in turn
            if cost >= uploads.LARGE_PARSE_BYTES:
                raw = uploads.decode_upload(contents)
            table = uploads.parse_upload(raw, path)
            df = table.frame
            _parquet_bytes(df)
            uploads.describe_columns(table)
            guess = uploads.guess_mapping(table)
            uploads.missing_text(uploads.missing_preview(table, guess["id_col"]), len(df))
            df.head(10).astype(object).where(df.head(10).notna(), None).to_dict("records")
            results.append(("accepted", f"{df.shape[0]} x {df.shape[1]}"))
            del table, df, raw
    except DataError as exc:
        results.append(("refused", str(exc)))

ts = [threading.Thread(target=upload) for _ in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
gc.collect()
after = status()
print(json.dumps({"read_cost_mb": round(cost / 2**20, 1), "outcomes": sorted(set(results)),
                  "peak_growth_mb": round(after["VmHWM"] - before, 1),
                  "held_after_mb": round(after["VmRSS"] - before, 1)}))
"""


def run_case(path: Path, threads: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(threads)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    from modeling.tables.decoded_size import MAX_DECODED_BYTES, UPLOAD_BOUND_BYTES
    from dashboard.state.uploads import LARGE_PARSE_BYTES

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=4, help="uploads at once in one process (a server's threads)")
    p.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    args = p.parse_args(argv)
    bound = UPLOAD_BOUND_BYTES / 2**20
    report = {"bound_per_upload_mb": bound, "max_decoded_mb": MAX_DECODED_BYTES / 2**20,
              "lock_from_read_cost_mb": LARGE_PARSE_BYTES / 2**20, "python": sys.version.split()[0],
              "pyarrow": pa.__version__, "pandas": pd.__version__, "cases": {}}
    with tempfile.TemporaryDirectory() as d:
        cases = make_cases(Path(d))
        chosen = [c for c in args.cases.split(",") if c] or list(cases)
        for name in chosen:
            one = run_case(cases[name], 1)
            one["file_mb"] = round(cases[name].stat().st_size / 2**20, 2)
            one["within_bound"] = one["peak_growth_mb"] <= bound
            if args.threads > 1:
                many = run_case(cases[name], args.threads)
                one[f"{args.threads}_at_once"] = many
                # the lock holds large reads to one at a time; small ones (below the lock) add at most their own
                many["within_bound"] = many["peak_growth_mb"] <= bound + (args.threads - 1) * LARGE_PARSE_BYTES / 2**20
            report["cases"][name] = one
            print(name, json.dumps(one), file=sys.stderr)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
