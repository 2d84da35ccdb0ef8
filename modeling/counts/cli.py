"""Command line: ``python -m modeling counts`` - count models per program on one split (BB-ML 4.3);
``python -m modeling counts predict`` - every block's count at inputs never run (:mod:`modeling.counts.predict`).
The text is the result's summary (:mod:`modeling.counts.summary`), the one /counts' cards and its report show;
``--json`` prints the result's ``cli_json()``."""

from __future__ import annotations

import json
import sys

from modeling.tables.export import table_out, write_table
from modeling.counts import data
from modeling.counts.evaluate import MODELS, evaluate_program
from modeling.errors import ConfigError


def _table(args):
    if not args.csv:
        import pandas as pd

        return pd.concat([data.shipped(n) for n in data.SHIPPED], ignore_index=True)
    from modeling.counts.table import validate_counts
    from modeling.tables.reading import read_table

    return validate_counts(read_table(args.csv).frame)


def _data(args) -> tuple[str, str, str]:
    """The table's id (the file given, or the shipped tables), its name and its fingerprint (16 hex digits of the
    sha256 of its file or files)."""
    import hashlib
    from pathlib import Path

    from modeling import DATA_DIR

    files = [Path(args.csv)] if args.csv else [DATA_DIR / f for f, _ in data.SHIPPED.values()]
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes())
    if args.csv:
        return str(args.csv), Path(args.csv).name, h.hexdigest()[:16]
    return "shipped: " + ", ".join(data.SHIPPED), "; ".join(label for _, label in data.SHIPPED.values()), \
        h.hexdigest()[:16]


def _provenance(args, kind: str, seconds: float | None = None):
    """What computed a result of the command line (:class:`modeling.results.Provenance`): the command, its
    arguments, the table and the code version."""
    from modeling.results import Provenance

    dataset, name, fingerprint = _data(args)
    params = {k: v for k, v in vars(args).items()
              if k not in ("func", "json", "counts_command") and v is not None and v is not False and v != []}
    return Provenance.now(kind, params, dataset, name, fingerprint, seconds=seconds)


def cmd_counts(args) -> int:
    import time

    table = _table(args)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    models = [{"pnn": "pnn-paper"}.get(m, m) for m in models]
    bad = [m for m in models if m not in MODELS]
    if bad:
        raise ConfigError(f"unknown model(s) {', '.join(bad)} (choose {', '.join(MODELS)}; pnn = pnn-paper)")
    names = [args.program] if args.program else data.programs(table)
    out = []
    for name in names:
        began = time.perf_counter()
        ev = evaluate_program(data.program(table, name), args.split, models, args.seed, curve=False)
        if not args.json:
            print("\n" + ev.summary(_provenance(args, "counts", time.perf_counter() - began)).as_text(), flush=True)
            continue
        r = ev.cli_json()
        out.append({"program": r["program"], "n_blocks": r["n_blocks"], "n_train": r["n_train"],
                    "n_test": r["n_test"],
                    "models": [{k: m.get(k) for k in ("model", "mape", "max_ape", "nmse", "pearson", "spearman",
                                                     "fit_seconds", "mape_range", "exact_blocks", "vs_baseline")
                                if k in m}
                               for m in [*r["models"], *([r["baseline"]] if "baseline" in r else [])]],
                    "irregular": [i["block"] for i in r["irregular"]],
                    "irregular_reasons": {i["block"]: i["reason"] for i in r["irregular"]}})
    if args.json:
        json.dump({"split": args.split, "programs": out}, sys.stdout, indent=1)
        print()
    return 0


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
    provenance = _provenance(args, "countspredict", res.seconds)
    if args.out:
        write_table(res.to_frame(provenance.columns("table")), args.out)
    if args.json:
        json.dump(res.cli_json(), sys.stdout, indent=1)
        print()
        return 0
    print(res.summary(provenance).as_text())
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
    p.add_argument("--out", type=table_out, help="write the prediction table with provenance (.csv or .parquet)")
    p.set_defaults(func=cmd_predict)
