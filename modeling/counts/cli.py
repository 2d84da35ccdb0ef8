"""Command line: ``python -m modeling counts`` - count models per program on one split (BB-ML 4.3)."""

from __future__ import annotations

import json
import sys

from modeling.counts import data
from modeling.counts.evaluate import MODELS, NAMES, evaluate_program
from modeling.errors import ConfigError


def _table(args):
    if not args.csv:
        import pandas as pd

        return pd.concat([data.shipped(n) for n in data.SHIPPED], ignore_index=True)
    from modeling.tables.counts import validate_counts
    from modeling.tables.reading import read_table

    return validate_counts(read_table(args.csv).frame)


def _fmt(v, nd=2):
    return "-" if v is None else f"{v:.{nd}f}"


def cmd_counts(args) -> int:
    table = _table(args)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    models = [{"pnn": "pnn-paper"}.get(m, m) for m in models]
    bad = [m for m in models if m not in MODELS]
    if bad:
        raise ConfigError(f"unknown model(s) {', '.join(bad)} (choose {', '.join(MODELS)}; pnn = pnn-paper)")
    names = [args.program] if args.program else data.programs(table)
    out = []
    for name in names:
        r = evaluate_program(data.program(table, name), args.split, models, args.seed, curve=False)
        out.append({"program": r["program"], "n_blocks": r["n_blocks"], "n_train": r["n_train"],
                    "n_test": r["n_test"],
                    "models": [{k: m.get(k) for k in ("model", "mape", "max_ape", "nmse", "pearson", "spearman",
                                                     "fit_seconds", "mape_range", "exact_blocks") if k in m}
                               for m in r["models"]],
                    "irregular": [i["block"] for i in r["irregular"]],
                    "irregular_reasons": {i["block"]: i["reason"] for i in r["irregular"]}})
        if not args.json:
            print(f"\n{name}: {r['n_blocks']} blocks, {r['n_train']} training / {r['n_test']} test inputs "
                  f"({args.split})", flush=True)
            print(f"  {'model':28s} {'mean APE %':>10s} {'max APE %':>10s} {'nMSE':>10s} {'Pearson':>8s} "
                  f"{'Spearman':>8s} {'fit s':>7s}")
            for m in r["models"]:
                rng = f"  (seeds {m['mape_range'][0]:.2f}-{m['mape_range'][1]:.2f})" if "mape_range" in m else ""
                print(f"  {NAMES[m['model']]:28s} {_fmt(m['mape']):>10s} {_fmt(m['max_ape'], 1):>10s} "
                      f"{_fmt(m['nmse'], 5):>10s} {_fmt(m['pearson'], 4):>8s} {_fmt(m['spearman'], 4):>8s} "
                      f"{m['fit_seconds']:7.2f}{rng}")
            for i in r["irregular"]:
                print(f"  irregular: {i['block']} ({i['reason']}; best inner error {i['inner_error']:.1f} %)")
    if args.json:
        json.dump({"split": args.split, "programs": out}, sys.stdout, indent=1)
        print()
    return 0


def add_parsers(sub) -> None:
    c = sub.add_parser("counts", help="predict basic-block / event counts of large inputs from small ones (BB-ML)")
    c.add_argument("--csv", help="a count table (program, size columns, block, count); default: the shipped ones")
    c.add_argument("--program", help="one program (default: every program)")
    c.add_argument("--split", default="high-low", choices=["high-low", "mixed", "random"])
    c.add_argument("--models", default="pnn-paper,pnn-tuned,glm,poly,best",
                   help=f"comma-separated: {', '.join(MODELS)} (pnn = pnn-paper)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_counts)
