"""Count tables as per-program matrices: input sizes X (points x parameters) and counts Y (points x blocks)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from modeling import DATA_DIR
from modeling.counts.table import program_params, validate_counts
from modeling.errors import DataError

#: the shipped count tables: name -> (file, label)
SHIPPED = {
    "cpu": ("bbcounts_cpu.parquet", "CPU kernels: basic-block counts (gcc coverage, measured here)"),
    "gpu": ("gpu_events.parquet", "GPU kernels: nvprof event counts (Rodinia on GTX-980)"),
}


@dataclass(frozen=True)
class Program:
    name: str
    params: tuple[str, ...]
    X: np.ndarray          # points x params, float
    blocks: tuple[str, ...]
    Y: np.ndarray          # points x blocks, float (whole numbers)


@lru_cache(maxsize=4)
def shipped(name: str) -> pd.DataFrame:
    if name not in SHIPPED:
        raise DataError(f"unknown shipped count table {name!r} (choose {', '.join(SHIPPED)})")
    return validate_counts(pd.read_parquet(DATA_DIR / SHIPPED[name][0]))


def _block_order(blocks) -> list[str]:
    def key(b):
        f, _, i = b.rpartition(":")
        return (f, int(i)) if i.isdigit() else (b, -1)
    return sorted(blocks, key=key)


def program(frame: pd.DataFrame, name: str) -> Program:
    """One program of a validated count table as matrices (rows sorted by sizes, blocks in id order)."""
    g = frame[frame["program"] == name]
    if g.empty:
        raise DataError(f"no program {name!r} in the count table")
    params = program_params(g)
    wide = g.pivot_table(index=params, columns="block", values="count", aggfunc="first")
    if wide.isna().any().any():
        holes = wide.isna().sum()
        b = holes.idxmax()
        raise DataError(f"Program {name!r}: block {b!r} has no count at {int(holes[b])} of {len(wide)} input "
                        "sizes; every block needs a count at every size (0 if it did not run).")
    wide = wide[_block_order(wide.columns)]
    X = np.array([list(i) if isinstance(i, tuple) else [i] for i in wide.index], dtype=float)
    return Program(name, tuple(params), X, tuple(wide.columns), wide.to_numpy(dtype=float))


def programs(frame: pd.DataFrame) -> list[str]:
    return sorted(frame["program"].unique().tolist())
