"""A GPU never built, on the shipped Rodinia data: the spec roofline's error and its interval's coverage per
host/target pair, each target's pair left out of its own interval's calibration.

    .venv/bin/python -m benchmarks.newapp_splits            # every host -> Tesla-P100, then every pair
    .venv/bin/python -m benchmarks.newapp_splits --newer    # only pairs whose target was released after the host
    .venv/bin/python -m benchmarks.newapp_splits --rule held_out   # the splits calibrated by another rule

For every ordered pair (host, target) of shipped GPUs it runs what ``python -m modeling newapp --host H --gpu T``
runs (:func:`modeling.newapp.hypothetical.shipped_hypothetical`: T's own pair never calibrates T's interval) and
prints T's mean and median APE, the interval's factor and the share of T's measured workloads inside it; then
per split (:mod:`modeling.newapp.splits`) the lowest coverage over the held-out GPUs of every host.
"""

from __future__ import annotations

import argparse

import numpy as np

from modeling import shipped
from modeling.newapp.data import device_spec
from modeling.newapp.hypothetical import shipped_hypothetical
from modeling.newapp.splits import RELEASED, RULE, SPLITS, shipped_validation


def pair_row(host: str, target: str) -> dict:
    tr = shipped_hypothetical(host, device_spec(target)).track
    own = next(p for p in tr.pairs if not p["calibrates"])
    iv = tr.interval
    return {"host": host, "target": target, "mean_ape": own["mean_ape"], "median_ape": own["median_ape"],
            "factor": iv["factor"] if iv else None, "coverage": own["in_interval"],
            "level": iv["level"] if iv else None}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--newer", action="store_true", help="only pairs whose target was released after the host")
    ap.add_argument("--rule", default=RULE, help=f"the splits' conformal rule (default {RULE}, what the page states; "
                    "held_out for comparison)")
    args = ap.parse_args(argv)
    gpus = shipped.gpu_names()
    print("host -> Tesla-P100 (its own pair never in the calibration)")
    print(f"{'host':12s} {'mean APE %':>10s} {'median %':>9s} {'factor':>7s} {'P100 inside %':>14s}")
    for h in gpus:
        if h == "Tesla-P100":
            continue
        r = pair_row(h, "Tesla-P100")
        print(f"{h:12s} {r['mean_ape']:10.1f} {r['median_ape']:9.1f} {r['factor']:7.3g} {r['coverage']:14.1f}")
    rows = [pair_row(h, t) for h in gpus for t in gpus
            if t != h and (not args.newer or RELEASED[t] > RELEASED[h])]
    cov = np.array([r["coverage"] for r in rows], float)
    ape = np.array([r["mean_ape"] for r in rows], float)
    print(f"\n{len(rows)} host -> target pairs{' (target newer than host)' if args.newer else ''}: mean APE "
          f"{ape.mean():.1f} % on average; the 90 % interval covers >= 90 % of the target's workloads on "
          f"{int((cov >= 90).sum())} of them, < 90 % on {int((cov < 90).sum())} (lowest {cov.min():.1f} %, "
          f"median {np.median(cov):.1f} %)")
    print("\nper split, over the held-out GPUs of every host: the lowest coverage (and its host -> GPU), the mean, "
          "how many held-out GPUs had >= 90 % of their workloads inside, and the mean level the calibration supported")
    lows = {s: (101.0, None) for s in SPLITS}
    covs = {s: [] for s in SPLITS}
    levels = {s: [] for s in SPLITS}
    for h in gpus:
        for s in shipped_validation(h, rule=args.rule).splits:
            for g in s.covered:
                covs[s.split].append(g.coverage)
                levels[s.split].append(g.level_supported)
                if g.coverage < lows[s.split][0]:
                    lows[s.split] = (g.coverage, f"{h} -> {g.target}")
    for s, (c, where) in lows.items():
        m = np.asarray(covs[s])
        print(f"{s:16s} {c:6.1f} %  ({where})  mean {m.mean():.1f} %  >= 90 %: {int((m >= 90).sum())} of {len(m)}  "
              f"supported {100 * np.mean(levels[s]):.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
