"""Command line: ``operators`` -- the table's models and operators on a GPU given by its spec sheet.

``python -m modeling operators --gpu H100 --edit bandwidth=1.5x``: a listed GPU, edited;
``python -m modeling operators --spec sms=160 clock_mhz=2000 memory_bandwidth_gbs=4000 l2_mb=64
fp32_gflops=80000 --name "Next GPU"``: a GPU that exists only as a spec sheet. Prints every traced model of
the table (the sum of its operators, with the interval of the sum) and, with ``--operators FILE``, writes
every distinct operator of the table with its estimate, interval and flag. ``--layer B,S,H,HEADS`` adds
one transformer layer at batch B, sequence S, hidden size H.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pandas as pd

from modeling.errors import ConfigError

from modeling.operators.model import DEFAULT_TRAIN, HELD_OUT_RECORD, table_models  # noqa: F401 (re-exported)


def _spec(args, devices):
    from modeling.operators.specs import edit_spec, validate_spec

    if args.spec:
        values = {}
        for item in args.spec:
            key, sep, val = item.partition("=")
            if not sep:
                raise ConfigError(f"Cannot read --spec {item!r}: write FIELD=VALUE.")
            values[key.strip()] = val.strip()
        spec = validate_spec(args.name or "GPU from specs", **values)
    else:
        if args.gpu not in devices:
            raise ConfigError(f"Unknown GPU {args.gpu!r}; listed: {', '.join(devices)} (or give --spec).")
        spec = devices[args.gpu]
    return edit_spec(spec, args.edit) if args.edit else spec


def _layer(text):
    if not text:
        return None
    try:
        b, s, h, heads = (int(x) for x in text.split(","))
    except ValueError:
        raise ConfigError(f"Cannot read --layer {text!r}: write BATCH,SEQ,HIDDEN,HEADS.") from None
    from modeling.operators.model import check_layer

    return check_layer(b, s, h, heads)


def _run(args) -> int:
    from modeling.operators.model import (OperatorModel, load_operators, model_latencies, operators_on_gpu,
                                          sample_training, transformer_layer)
    from modeling.operators.specs import load_devices
    from modeling.tables.export import write_csv

    devices = load_devices()
    spec = _spec(args, devices)
    table = load_operators()
    train = tuple(args.train or DEFAULT_TRAIN)
    layer = _layer(args.layer)
    if args.method == "utilisation":
        # the one function /operators calls too: the page and the command line agree to the digit
        res = operators_on_gpu(spec, train, args.sample, args.level, layer, table, devices)
        sums, notes, identical, fit_s, supported = (res.models, res.notes, res.identical_to, res.fit_seconds,
                                                    res.level_supported)
        frame = res.operator_frame()
    else:
        t0 = time.perf_counter()
        model = OperatorModel.fit(sample_training(table, train, args.sample), train, devices, level=args.level)
        fit_s, supported = time.perf_counter() - t0, model.level_supported
        models = table_models(table)
        if layer:
            b, s, h, heads = layer
            models = pd.concat([models, transformer_layer(b, s, h, heads).drop(columns="dtype")
                                .assign(model=f"layer b{b} s{s} h{h} heads{heads}")], ignore_index=True)
        pred = model.predict(models.drop(columns="model"), spec, method=args.method)
        sums, notes, identical = model_latencies(pred, models["model"].to_numpy()), pred.notes, pred.identical_to
        from modeling.operators.model import table_operators

        frame = model.predict(table_operators(table), spec, method=args.method).frame().drop(columns="dtype")
    out = {"gpu": spec.name, "spec": spec.values(), "method": args.method, "train": list(train), "level": args.level,
           "level_supported": supported, "notes": notes, "identical_to": identical,
           "fit_seconds": fit_s, "models": [{k: v for k, v in m.__dict__.items()} for m in sums],
           "record": HELD_OUT_RECORD}
    if args.operators:
        write_csv(frame, args.operators)
        out["operators_file"], out["operators"] = args.operators, len(frame)
    if args.json:
        print(json.dumps(out, indent=2, default=lambda v: None if isinstance(v, float) and math.isnan(v) else v))
        return 0
    print(f"{spec.name}: {args.method} model trained on {', '.join(train)} ({fit_s:.1f} s)")
    for note in notes:
        print(f"  note: {note}")
    print(f"{'model':32s} {'ms':>10s} {f'{100 * args.level:g} % interval':>24s} {'roofline':>9s} {'ops':>4s} outside")
    for m in sums:
        interval = "-" if not np.isfinite(m.lower_ms) else f"{m.lower_ms:.3f} - {m.upper_ms:.3f}"
        est = "-" if not np.isfinite(m.latency_ms) else f"{m.latency_ms:.3f}"
        print(f"{m.name:32s} {est:>10s} {interval:>24s} {m.roofline_ms:9.3f} {m.n_operators:4d} {m.n_outside}")
    short = [f"{f} {v:.2f}" for f, v in supported.items() if v < args.level]
    if short:
        print(f"  the training GPUs support a level of {', '.join(short)} only (too few GPUs to hold out for "
              f"{100 * args.level:g} %); the interval is the widest the held-out GPUs calibrate")
    print(f"  which is closer: {HELD_OUT_RECORD}")
    if args.operators:
        print(f"wrote {out['operators']} operators to {args.operators}")
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("operators", help="deep-learning operators and models on a GPU given by its specs")
    g = p.add_argument_group("the GPU")
    g.add_argument("--gpu", default="H100", help="a listed GPU (default H100); see data/neusight_devices.csv")
    g.add_argument("--spec", nargs="*", default=None,
                   help="a GPU by its specs: sms=.. clock_mhz=.. memory_bandwidth_gbs=.. l2_mb=.. fp32_gflops=.. "
                        "[fp32_matrix_gflops=..]")
    g.add_argument("--name", default=None, help="the name of a --spec GPU")
    g.add_argument("--edit", nargs="*", default=None, help="edits such as bandwidth=1.5x sms=144")
    p.add_argument("--train", nargs="*", default=None, help=f"training GPUs (default {' '.join(DEFAULT_TRAIN)})")
    p.add_argument("--method", choices=("utilisation", "roofline"), default="utilisation")
    p.add_argument("--level", type=float, default=0.9)
    p.add_argument("--layer", default=None, help="also one transformer layer: BATCH,SEQ,HIDDEN,HEADS")
    p.add_argument("--operators", default=None, help="write every distinct operator of the table to this CSV")
    p.add_argument("--sample", type=int, default=None,
                   help="fit on at most this many operators per training GPU and kind (a quick look)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
