"""Build ``times.csv`` (this folder) from KernelBench's public baseline timings.

``python benchmarks/data/kernelbench/build.py /path/to/KernelBench``            (a checkout at the commit below)
``python benchmarks/data/kernelbench/build.py /path/to/KernelBench.git --git``  (a bare clone: read at COMMIT)

The source keeps one JSON per measured machine, ``results/timing/<run>/baseline_time_torch.json``:
{level: {problem file: {"mean", "std", "min", "max" (milliseconds), "num_trials", "hardware", ...}}}, PyTorch
2.5 eager, 100 trials after 3 warm-ups. Here: one row per (GPU, level, problem) for the runs in :data:`RUNS`
(the GPUs whose vendor publishes the spec sheet ``devices.csv`` needs), its mean and standard deviation in
milliseconds; a problem a run could not time (null in the source) has no row. Deterministic: sorted rows, fixed columns.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import pandas as pd

#: the last commit holding every run's file (later commits removed most of them)
COMMIT = "b08d959762a3bdf0acab39d891cb19bf08c6d9ca"
#: source run folder -> the GPU's name in ``devices.csv``. Left out: A10G (an AWS-only part with no vendor spec
#: sheet), B200 (no vendor figure for its SMs and clock) and L40S_matx3 (a second L40S, at 300 W).
RUNS = {"T4_modal": "T4", "A100_modal": "A100-40GB", "A100-80GB_modal": "A100-80GB", "L4_modal": "L4",
        "L40S_modal": "L40S", "H100_together": "H100"}
HERE = Path(__file__).resolve().parent
OUT = HERE / "times.csv"


def _read(source: Path, run: str, git: bool) -> dict:
    rel = f"results/timing/{run}/baseline_time_torch.json"
    if git:
        text = subprocess.run(["git", "--git-dir", str(source), "show", f"{COMMIT}:{rel}"], check=True,
                              capture_output=True, text=True).stdout
        return json.loads(text)
    return json.loads((source / rel).read_text())


def build(source: Path, git: bool = False) -> pd.DataFrame:
    rows = []
    for run, gpu in RUNS.items():
        for level, problems in _read(source, run, git).items():
            for problem, t in problems.items():
                if not t or t.get("mean") is None:  # a problem the run could not time
                    continue
                rows.append({"gpu": gpu, "level": level, "problem": problem.removesuffix(".py"),
                             "mean_ms": float(t["mean"]), "std_ms": float(t["std"]), "hardware": t["hardware"]})
    return pd.DataFrame(rows).sort_values(["gpu", "level", "problem"]).reset_index(drop=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="KernelBench checkout, or its git directory with --git")
    ap.add_argument("--git", action="store_true", help="source is a git directory: read the files at COMMIT")
    args = ap.parse_args(argv)
    df = build(args.source, args.git)
    df.to_csv(OUT, index=False, float_format="%.6g")
    print(f"{OUT}: {len(df)} rows, {df['gpu'].nunique()} GPUs, {df['problem'].nunique()} problems")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
