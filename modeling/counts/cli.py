"""Command line: ``python -m modeling counts`` - count models per program on one split (BB-ML 4.3);
``python -m modeling counts predict`` - every block's count at inputs never run (:mod:`modeling.counts.predict`)."""

from __future__ import annotations

import json
import sys

from modeling.tables.export import write_csv
from modeling.counts import data
from modeling.counts.evaluate import MODELS, NAMES, evaluate_program
from modeling.errors import ConfigError


def _table(args):
    if not args.csv:
        import pandas as pd

        return pd.concat([data.shipped(n) for n in data.SHIPPED], ignore_index=True)
    from modeling.counts.table import validate_counts
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
        r = evaluate_program(data.program(table, name), args.split, models, args.seed, curve=False).summary()
        out.append({"program": r["program"], "n_blocks": r["n_blocks"], "n_train": r["n_train"],
                    "n_test": r["n_test"],
                    "models": [{k: m.get(k) for k in ("model", "mape", "max_ape", "nmse", "pearson", "spearman",
                                                     "fit_seconds", "mape_range", "exact_blocks", "vs_baseline")
                                if k in m}
                               for m in [*r["models"], *([r["baseline"]] if "baseline" in r else [])]],
                    "irregular": [i["block"] for i in r["irregular"]],
                    "irregular_reasons": {i["block"]: i["reason"] for i in r["irregular"]}})
        if not args.json:
            print(f"\n{name}: {r['n_blocks']} blocks, {r['n_train']} training / {r['n_test']} test inputs "
                  f"({args.split})", flush=True)
            print(f"  {'model':28s} {'mean APE %':>10s} {'max APE %':>10s} {'nMSE':>10s} {'Pearson':>8s} "
                  f"{'Spearman':>8s} {'fit s':>7s} {'x baseline':>10s}")
            for m in out[-1]["models"]:
                rng = f"  (seeds {m['mape_range'][0]:.2f}-{m['mape_range'][1]:.2f})" if "mape_range" in m else ""
                print(f"  {NAMES[m['model']]:28s} {_fmt(m['mape']):>10s} {_fmt(m['max_ape'], 1):>10s} "
                      f"{_fmt(m['nmse'], 5):>10s} {_fmt(m['pearson'], 4):>8s} {_fmt(m['spearman'], 4):>8s} "
                      f"{m['fit_seconds']:7.2f} {_fmt(m.get('vs_baseline')):>10s}{rng}")
            for i in r["irregular"]:
                print(f"  irregular: {i['block']} ({i['reason']}; best inner error {i['inner_error']:.1f} %)")
    if args.json:
        json.dump({"split": args.split, "programs": out}, sys.stdout, indent=1)
        print()
    return 0


def _provenance(args) -> dict:
    import hashlib
    from datetime import UTC, datetime
    from pathlib import Path

    from modeling import DATA_DIR
    from modeling.version import code_version

    files = [Path(args.csv)] if args.csv else [DATA_DIR / f for f, _ in data.SHIPPED.values()]
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes())
    return {"table": args.csv or "shipped: " + ", ".join(data.SHIPPED), "table_fingerprint": h.hexdigest()[:16],
            "code_version": code_version(), "date": datetime.now(UTC).isoformat(timespec="seconds")}


def cmd_predict(args) -> int:
    from modeling.counts.predict import parse_inputs, predict_counts

    if not args.program:
        raise ConfigError("counts predict needs --program (one program of the table).")
    if not (args.at or args.grid):
        raise ConfigError("counts predict needs the inputs: --at \"N=4096,M=2048\" or --grid \"N=1024,2048 x M=512\".")
    prog = data.program(_table(args), args.program)
    X = parse_inputs([*(args.at or []), *(args.grid or [])], prog.params)
    model = {"pnn": "pnn-paper"}.get(args.model, args.model)
    res = predict_counts(prog, X, model, args.seed)
    if args.out:
        df = res.to_frame(_provenance(args))
        if args.out.endswith(".parquet"):
            df.to_parquet(args.out, index=False)
        elif args.out.endswith(".csv"):
            write_csv(df, args.out)
        else:
            raise ConfigError(f"--out {args.out!r}: the file name must end with .csv or .parquet.")
    if args.json:
        json.dump(res.summary(), sys.stdout, indent=1)
        print()
        return 0
    d = res.summary()
    print(f"{d['program']}: {d['model_name']} fitted on {d['n_measured']} measured inputs (largest "
          + ", ".join(f"{k}={v}" for k, v in d["measured_max"].items()) + f"); {d['n_exact']} of {d['n_blocks']} "
          f"blocks exact; {d['n_irregular']} irregular")
    for n in d["notes"]:
        print(f"  note: {n}")
    for r in d["predictions"]:
        ins = ",".join(f"{k}={v}" for k, v in r["inputs"].items())
        rng = ("" if r["how"] == "exact" or r["lower"] is None else
               f"  [{r['lower']:.6g}, {r['upper']:.6g}] at {r['level']:.0%}")
        err = "" if r["how"] == "exact" or r["error"] is None else f" (held-out {r['error']:.2g} %)"
        base = "" if r.get("baseline") is None else f"  baseline {r['baseline']:,.0f} ({r['baseline_scales']})"
        odd = f"  irregular: {r['irregular']}" if r["irregular"] else ""
        print(f"  {ins:30s} {r['block']:28s} {r['predicted']:>18,.0f}  {r['how']}{err}{rng}{base}{odd}")
    for t in d["totals"]:
        if t["block"] == "all blocks":
            ins = t["inputs"] if isinstance(t["inputs"], str) else ",".join(f"{k}={v}" for k, v in t["inputs"].items())
            rng = f"  [{t['lower']:.6g}, {t['upper']:.6g}]" if t["lower"] is not None else ""
            print(f"  total {ins:24s} {'all blocks':28s} {t['predicted']:>18,.0f}{rng}")
    if args.out:
        print(f"wrote {args.out}")
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
    csub = c.add_subparsers(dest="counts_command")
    p = csub.add_parser("predict", help="every block's count at inputs never run, with how and a range")
    p.add_argument("--csv", help="a count table; default: the shipped ones")
    p.add_argument("--program", help="the program (required)")
    p.add_argument("--at", action="append", help='one input, e.g. "N=4096,M=2048" (repeatable)')
    p.add_argument("--grid", action="append", help='a grid, e.g. "N=1024,2048,4096 x M=512" (repeatable)')
    p.add_argument("--model", default="best", choices=["best", "glm", "poly", "pnn-tuned", "pnn-paper", "pnn"],
                   help="best (per block, on the high-low split) or one model (pnn = pnn-paper)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", help="write the prediction table with provenance (.csv or .parquet)")
    p.set_defaults(func=cmd_predict)
