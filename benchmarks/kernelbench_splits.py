"""A GPU never built, on data the project was not built on: the four splits of /new-app on KernelBench's timings.

    .venv/bin/python -m benchmarks.kernelbench_splits                 # every host, then the lowest coverage
    .venv/bin/python -m benchmarks.kernelbench_splits --host T4       # one host's held-out GPUs in full
    .venv/bin/python -m benchmarks.kernelbench_splits --rule held_out # the splits calibrated by another rule

KernelBench (Stanford Scaling Intelligence Lab, MIT; ``benchmarks/data/kernelbench/``) timed 250 PyTorch
programs (level 1: single operators; level 2: fused operator chains; level 3: whole networks) on six GPUs of
four architectures (Turing T4; Ampere A100-40GB, A100-80GB; Hopper H100; Ada L4, L40S). The estimate of a
target GPU from a host's time is the spec roofline's: host time x (host bandwidth / target bandwidth) for a
memory-bound program, x (host cores x clock) / (target cores x clock) for a compute-bound one
(:func:`modeling.newapp.estimators.roofline`'s ratios). The timings come with no profiler counters, so the
class cannot be read from DRAM throughput and issue-slot use as on the shipped data: here it is the program's
kind, compute-bound when it is a matrix product, a convolution or a network (``kind_of``), memory-bound
otherwise (activations, norms, reductions, pooling, losses, matrix-vector), and there is no latency class.

What is the library's own: every pair is scored by :func:`modeling.newapp.splits.pair_errors` and the four
splits, the intervals and their per-held-out-GPU coverage by :func:`modeling.newapp.splits.validate_pairs`,
the code /new-app and ``python -m modeling newapp --splits`` run (the protocol: ``testkit/kernelbench_splits.py``).
The application held out in the ``gpu+application`` split is the KernelBench level (operators, fused chains, networks).
"""

from __future__ import annotations

import argparse

import numpy as np

from modeling.newapp.splits import RULE, SPLITS
from testkit.kernelbench_splits import load, pairs_from, validation


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", help="print this host's held-out GPUs in full")
    ap.add_argument("--rule", default=RULE, help=f"the splits' conformal rule (default {RULE}, what the page states; "
                    "held_out for comparison)")
    args = ap.parse_args(argv)
    times, devices = load()
    hosts = [args.host] if args.host else sorted(times["gpu"].unique())
    lows = {s: (101.0, None) for s in SPLITS}
    means = {s: [] for s in SPLITS}
    levels = {s: [] for s in SPLITS}
    apes = []
    for h in hosts:
        v = validation(h, times, devices, rule=args.rule)
        apes += [g.mean_ape for g in v.splits[0].gpus]
        print(f"\nhost {h}: mean APE over the held-out GPUs {v.splits[0].mean_ape:.1f} %")
        print(f"{'split':16s} {'lowest %':>9s} {'where':>10s} {'mean %':>7s} {'with interval':>14s}")
        for s in v.splits:
            low = min(s.covered, key=lambda g: g.coverage, default=None)
            print(f"{s.split:16s} {_f(s.min_coverage):>9s} {low.target if low else '-':>10s} "
                  f"{_f(s.mean_coverage):>7s} {len(s.covered):>6d} of {len(s.gpus)}")
            means[s.split] += [g.coverage for g in s.covered]
            levels[s.split] += [g.level_supported for g in s.covered]
            if low and low.coverage < lows[s.split][0]:
                lows[s.split] = (low.coverage, f"{h} -> {low.target}")
        if args.host:
            print(f"\n{'split':16s} {'target':10s} {'arch':7s} {'mean APE':>8s} {'median':>7s} {'factor':>7s} "
                  f"{'level':>6s} {'inside %':>8s}  calibrated on")
            for s in v.splits:
                for g in s.gpus:
                    print(f"{s.split:16s} {g.target:10s} {g.architecture:7s} {g.mean_ape:8.1f} {g.median_ape:7.1f} "
                          f"{_f(g.factor, '.3g'):>7s} {_f(g.level_supported, '.2f'):>6s} {_f(g.coverage):>8s}  "
                          f"{', '.join(g.training) or g.note}")
            print("\nper level (the application held out in gpu+application), mean APE % of each held-out GPU")
            for pr in pairs_from(args.host, times, devices):
                cells = ", ".join(f"{lv} {pr['ape'][pr['app'] == lv].mean():.1f}" for lv in np.unique(pr["app"]))
                print(f"  {pr['target']:10s} {cells}")
    print(f"\nover {len(hosts)} host(s): mean APE of a held-out GPU {np.mean(apes):.1f} % on average")
    print("per split, over the held-out GPUs of every host: the lowest coverage, the mean, how many held-out GPUs "
          "had >= 90 % of their programs inside, and the mean level the calibration supported")
    print(f"{'split':16s} {'lowest %':>9s} {'where':22s} {'mean %':>7s} {'>= 90 %':>12s} {'supported':>9s}")
    for s, (c, where) in lows.items():
        m, lv = np.asarray(means[s]), levels[s]
        share = f"{int((m >= 90).sum())} of {len(m)}" if len(m) else "-"
        print(f"{s:16s} {_f(c if where else None):>9s} {where or '-':22s} {_f(m.mean() if len(m) else None):>7s} "
              f"{share:>12s} {_f(100 * np.mean(lv) if lv else None):>9s}")
    return 0


def _f(x, fmt: str = ".1f") -> str:
    return "-" if x is None else format(x, fmt)


if __name__ == "__main__":
    raise SystemExit(main())
