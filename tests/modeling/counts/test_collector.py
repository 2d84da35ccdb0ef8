"""The basic-block collector against GCC coverage: exact loop counts, no accumulation, clear failures."""

import shutil

import numpy as np
import pandas as pd
import pytest

from modeling import DATA_DIR
from modeling.collect import bbcounts
from modeling.errors import DataError


def test_the_tools_are_installed():
    """./test.sh installs gcc (gcov, gcov-dump): the collector's tests run, never skip."""
    assert all(shutil.which(t) for t in ("gcc", "gcov", "gcov-dump"))

GEMM = bbcounts.KERNEL_DIR / "gemm.c"
POINTS = [(5, 6, 7), (8, 9, 10), (16, 3, 11), (1, 1, 1)]


def _inner(frame):
    """gemm's innermost loop body: the one kernel block counting NI*NJ*NK at the first point (the other
    points then check it)."""
    first = frame[(frame[["NI", "NJ", "NK"]] == frame[["NI", "NJ", "NK"]].iloc[0]).all(axis=1)]
    hit = first[first["block"].str.startswith("kernel_gemm:")
                & (first["count"] == first["NI"] * first["NJ"] * first["NK"])]
    assert len(hit) == 1, hit
    return hit["block"].iloc[0]


def test_gemm_innermost_block_counts_ni_nj_nk_at_every_point():
    f = bbcounts.collect(GEMM, ["NI", "NJ", "NK"], POINTS, jobs=2)
    inner = _inner(f)
    assert inner.startswith("kernel_gemm:")
    rows = f[f["block"] == inner]
    assert len(rows) == len(POINTS)
    assert (rows["count"] == rows["NI"] * rows["NJ"] * rows["NK"]).all()
    assert f.attrs["compiler"].startswith("gcc ") and f.attrs["flags"] == "-O2 --coverage"
    assert "kernel_gemm" in f.attrs["cfg_checksums"]


def test_each_run_has_its_own_counts_so_running_twice_gives_the_same_table():
    once = bbcounts.collect(GEMM, ["NI", "NJ", "NK"], [(5, 6, 7)] * 3, jobs=2)
    per_run = once.groupby("block")["count"].agg(["min", "max"])
    assert (per_run["min"] == per_run["max"]).all()  # a shared .gcda would have added the runs up
    again = bbcounts.collect(GEMM, ["NI", "NJ", "NK"], [(5, 6, 7)], jobs=1)
    first = once.drop_duplicates("block").set_index("block")["count"]
    assert again.set_index("block")["count"].equals(first)


def test_a_kernel_that_does_not_compile_gives_the_compiler_message(tmp_path):
    bad = tmp_path / "broken.c"
    bad.write_text("int main(int argc, char **argv) { return undefined_name; }\n")
    with pytest.raises(DataError, match=r"does not compile:[\s\S]*undefined_name"):
        bbcounts.collect(bad, ["N"], [(1,)])


def test_a_kernel_that_fails_gives_its_exit_message(tmp_path):
    bad = tmp_path / "fails.c"
    bad.write_text('#include <stdio.h>\nint main(void) { fprintf(stderr, "no memory\\n"); return 3; }\n')
    with pytest.raises(DataError, match="exited with 3: no memory"):
        bbcounts.collect(bad, ["N"], [(1,)])


def test_the_cli_writes_the_count_table(tmp_path, capsys):
    from modeling.__main__ import main

    out = tmp_path / "gemm.csv"
    assert main(["collect", "bbcounts", "--kernel", str(GEMM), "--params", "NI,NJ,NK", "--values", "4,6",
                 "--out", str(out)]) == 0
    f = pd.read_csv(out)
    assert list(f.columns) == ["program", "NI", "NJ", "NK", "block", "count"]
    assert f["program"].unique().tolist() == ["gemm"] and len(f.groupby(["NI", "NJ", "NK"])) == 8
    assert main(["collect", "bbcounts", "--kernel", str(tmp_path / "none.c"), "--params", "N", "--values", "1"]) == 2
    assert "no such kernel file" in capsys.readouterr().err


def test_the_shipped_cpu_table_covers_the_sixteen_kernels_and_gemm_is_exact():
    f = pd.read_parquet(DATA_DIR / "bbcounts_cpu.parquet")
    assert sorted(f["program"].unique()) == sorted(bbcounts.KERNELS)
    g = f[f["program"] == "gemm"].dropna(axis=1)
    inner = _inner(g)
    rows = g[g["block"] == inner]
    assert len(rows) == len(bbcounts.shipped_points("gemm")[1])
    np.testing.assert_array_equal(rows["count"], rows["NI"] * rows["NJ"] * rows["NK"])
