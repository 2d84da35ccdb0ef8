"""Basic-block execution counts of a C kernel over a grid of input sizes, measured with GCC coverage.

The kernel is built once with ``gcc -O2 --coverage`` (its kernel functions marked ``noinline`` so their
blocks stay their own). Every grid point runs with its own ``GCOV_PREFIX`` directory, so ``.gcda`` counts
never accumulate across runs and runs can go in parallel; ``gcov -D`` then prints, on stderr, the count
gcov solved for every control-flow block of every function (``function_info: F`` followed by
``block_info id=B, count=C``; block 0 is the entry, 1 the exit). Line counts are not used: a loop header's
line also counts the exit test.

Result: the count table (``program``, one column per size parameter, ``block`` = ``function:id``,
``count``) with the compiler version, flags and each function's CFG checksum in ``frame.attrs``: block ids
are only comparable between tables built the same way.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from modeling.errors import DataError

FLAGS = ("-O2", "--coverage")
KERNEL_DIR = Path(__file__).parent / "kernels"
RUN_TIMEOUT_S = 120

#: the shipped kernels (BB-ML Table 1 kinds) and the grid each is measured on: size parameters in the order
#: ``main`` takes them, and the values each runs over (full factorial)
KERNELS: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {
    "2mm": (("NI", "NJ", "NK", "NL"), (8, 24, 40, 56, 72)),
    "atax": (("M", "N"), tuple(range(16, 257, 16))),
    "bicg": (("M", "N"), tuple(range(16, 257, 16))),
    "covariance": (("M", "N"), tuple(range(8, 97, 8))),
    "correlation": (("M", "N"), tuple(range(8, 97, 8))),
    "doitgen": (("NQ", "NR", "NP"), (8, 16, 24, 32, 40, 48)),
    "gemm": (("NI", "NJ", "NK"), tuple(range(8, 121, 16))),
    "gesummv": (("N",), tuple(range(8, 513, 8))),
    "lu": (("N",), tuple(range(8, 257, 8))),
    "gramschmidt": (("N",), tuple(range(8, 257, 8))),
    "syrk": (("N", "M"), tuple(range(8, 97, 8))),
    "mvt": (("N",), tuple(range(8, 513, 8))),
    "gaussian": (("N",), tuple(range(8, 257, 8))),
    "lud": (("N",), tuple(range(8, 385, 8))),
    "nw": (("N",), tuple(range(16, 1025, 16))),
    "pathfinder": (("ROWS", "COLS", "PYRAMID"), None),
}
#: pathfinder's pyramid height runs over its own values
PATHFINDER_GRID = {"ROWS": tuple(range(32, 257, 32)), "COLS": tuple(range(32, 257, 32)), "PYRAMID": (1, 2, 4, 8, 16)}

_FUNC = re.compile(r"^\s*function_info:\s*(\S+)")
_BLOCK = re.compile(r"^\s*block_info id=(\d+), count=(\d+)")
_CHECKSUM = re.compile(r"FUNCTION ident=\d+, lineno_checksum=(0x[0-9a-f]+), cfg_checksum=(0x[0-9a-f]+), `([^']+)'")


@dataclass(frozen=True)
class Build:
    exe: Path
    gcno: Path
    strip: int  # leading path components GCOV_PREFIX_STRIP removes, so the .gcda lands in the run directory
    info: dict


def shipped_points(name: str) -> tuple[tuple[str, ...], list[tuple[int, ...]]]:
    """The grid a shipped kernel is measured on."""
    params, values = KERNELS[name]
    if values is None:
        return params, list(itertools.product(*(PATHFINDER_GRID[p] for p in params)))
    return params, list(itertools.product(values, repeat=len(params)))


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise DataError(f"{name} is not installed (the collector needs gcc, gcov and gcov-dump)")
    return path


def build(kernel: Path, workdir: Path) -> Build:
    """Compile ``kernel`` with coverage into ``workdir``; a compile error raises with the compiler's message."""
    kernel = Path(kernel)
    if not kernel.is_file():
        raise DataError(f"no such kernel file: {kernel}")
    workdir = Path(workdir).resolve()
    stem = re.sub(r"[^A-Za-z0-9_]", "_", kernel.stem) or "kernel"
    src = workdir / f"{stem}.c"
    shutil.copyfile(kernel, src)
    exe = workdir / stem
    gcc = _tool("gcc")
    res = subprocess.run([gcc, *FLAGS, "-o", str(exe), str(src), "-lm"], cwd=workdir, capture_output=True,
                         text=True, timeout=RUN_TIMEOUT_S)
    if res.returncode != 0:
        msg = res.stderr.strip().replace(str(workdir) + "/", "")
        raise DataError(f"{kernel.name} does not compile:\n{msg[-2000:]}")
    gcno = workdir / f"{stem}.gcno"
    if not gcno.is_file():  # gcc 12 names it after the output when compiling and linking in one step
        found = sorted(workdir.glob("*.gcno"))
        if not found:
            raise DataError(f"gcc wrote no coverage notes for {kernel.name}")
        gcno = found[0]
    version = subprocess.run([gcc, "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    dump = subprocess.run([_tool("gcov-dump"), str(gcno)], capture_output=True, text=True).stdout
    checksums = {m.group(3): m.group(2) for m in map(_CHECKSUM.search, dump.splitlines()) if m}
    info = {"compiler": f"gcc {version}", "flags": " ".join(FLAGS), "cfg_checksums": checksums}
    return Build(exe, gcno, len(workdir.parts) - 1, info)


def parse_blocks(text: str) -> dict[str, int]:
    """``function:block`` -> count from ``gcov -D`` output (one source file)."""
    out: dict[str, int] = {}
    func = None
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m:
            func = m.group(1)
            continue
        m = _BLOCK.match(line)
        if m and func is not None:
            out[f"{func}:{m.group(1)}"] = int(m.group(2))
    return out


def run_point(b: Build, values: tuple[int, ...], rundir: Path) -> dict[str, int]:
    """Run the kernel once at ``values`` with its own GCOV_PREFIX and read every block's count."""
    rundir.mkdir(parents=True)
    env = {**os.environ, "GCOV_PREFIX": str(rundir), "GCOV_PREFIX_STRIP": str(b.strip)}
    args = [str(b.exe), *map(str, values)]
    try:
        res = subprocess.run(args, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise DataError(f"{b.exe.name} {' '.join(args[1:])} ran longer than {RUN_TIMEOUT_S} s") from None
    if res.returncode != 0:
        raise DataError(f"{b.exe.name} {' '.join(args[1:])} exited with {res.returncode}: "
                        f"{(res.stderr or res.stdout).strip()[-500:]}")
    gcda = rundir / (b.gcno.stem + ".gcda")
    if not gcda.is_file():
        raise DataError(f"{b.exe.name} wrote no coverage counts (does main return normally?)")
    (rundir / b.gcno.name).symlink_to(b.gcno)
    res = subprocess.run([_tool("gcov"), "-D", "-n", "-o", str(rundir), str(rundir / b.gcno.name)], cwd=rundir,
                         capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    counts = parse_blocks(res.stderr) or parse_blocks(res.stdout)
    if not counts:
        raise DataError(f"gcov read no block counts for {b.exe.name}: {res.stderr.strip()[-300:]}")
    shutil.rmtree(rundir, ignore_errors=True)
    return counts


def parse_values(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise DataError(f"values must be whole numbers separated by commas, not {text[:60]!r}") from None
    if not values or min(values) < 0:
        raise DataError("give at least one value, none negative")
    return values


def collect(kernel: Path, params: list[str], points: list[tuple[int, ...]], jobs: int = 2,
            name: str | None = None, progress=None) -> pd.DataFrame:
    """The count table of ``kernel`` at every point (a tuple of sizes in the order of ``params``)."""
    if not params or any(len(p) != len(params) for p in points):
        raise DataError(f"every point needs {len(params)} values ({', '.join(params)})")
    if not points:
        raise DataError("no grid points")
    name = name or Path(kernel).stem
    with tempfile.TemporaryDirectory(prefix="perfcast-bb-") as tmp:
        tmp = Path(tmp)
        (tmp / "build").mkdir()
        b = build(kernel, tmp / "build")

        def one(i_point):
            i, point = i_point
            return point, run_point(b, point, tmp / f"run{i}")

        rows = []
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for k, (point, counts) in enumerate(pool.map(one, enumerate(points))):
                rows.extend((name, *point, blk, c) for blk, c in counts.items())
                if progress and (k + 1) % 50 == 0:
                    progress(f"{name}: {k + 1} of {len(points)} points")
    frame = pd.DataFrame(rows, columns=["program", *params, "block", "count"])
    frame.attrs.update(b.info)
    return frame
