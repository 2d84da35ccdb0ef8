"""A GPU never built, on kernels the project was not built on: the four splits of /new-app on apps-2016.

    .venv/bin/python -m benchmarks.apps2016_splits                   # every host, then the lowest coverage
    .venv/bin/python -m benchmarks.apps2016_splits --rule held_out   # the splits calibrated by another rule

apps-2016 (gpuperfpredict, Amaris et al., CC BY 4.0; ``benchmarks/data/apps2016/``): nine simple CUDA
applications (dot product, four matrix products, two matrix sums, vector add, maximum subsequence) at about
40 input sizes each, profiled on the eight Kepler and Maxwell GPUs of the shipped device table. Unlike
KernelBench's timings these carry the host's counters, so the estimate is the page's own three-class spec
roofline and the whole path is the page's (``testkit/apps2016_splits.py``: ``frame_table``, then
``modeling.newapp.splits.validate``). Per split, over the held-out GPUs of every host: the lowest coverage, the
mean, how many reached 90 % and the mean level the calibration supported.
"""

from __future__ import annotations

import argparse

import numpy as np

from modeling.newapp.splits import RULE, SPLITS
from testkit.apps2016_splits import load, validation


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rule", default=RULE, help=f"the splits' conformal rule (default {RULE}, what the page states; "
                    "held_out for comparison)")
    args = ap.parse_args(argv)
    data = load()
    lows = {s: (101.0, None) for s in SPLITS}
    covs, levels, apes = {s: [] for s in SPLITS}, {s: [] for s in SPLITS}, []
    for h in sorted(data["gpu"].unique()):
        v = validation(h, data, rule=args.rule)
        apes += [g.mean_ape for g in v.splits[0].gpus]
        for s in v.splits:
            for g in s.covered:
                covs[s.split].append(g.coverage)
                levels[s.split].append(g.level_supported)
                if g.coverage < lows[s.split][0]:
                    lows[s.split] = (g.coverage, f"{h} -> {g.target}")
    print(f"mean APE of a held-out GPU {np.mean(apes):.1f} % on average over {len(apes)} host -> GPU pairs "
          f"(median of the pairs' means {np.median(apes):.1f} %)")
    print(f"{'split':16s} {'lowest %':>9s} {'where':24s} {'mean %':>7s} {'>= 90 %':>12s} {'supported':>9s}")
    for s, (c, where) in lows.items():
        m = np.asarray(covs[s])
        share = f"{int((m >= 90).sum())} of {len(m)}" if len(m) else "-"
        low = f"{c:.1f}" if where else "-"
        mean = f"{m.mean():.1f}" if len(m) else "-"
        sup = f"{100 * np.mean(levels[s]):.1f}" if levels[s] else "-"
        print(f"{s:16s} {low:>9s} {where or '-':24s} {mean:>7s} {share:>12s} {sup:>9s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
