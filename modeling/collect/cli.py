"""Command line of the collectors: ``collect openssl`` measures an offload timing table on this machine."""

from __future__ import annotations

import sys


def cmd_collect(args) -> int:
    from modeling.collect.openssl import GRANULARITIES, collect

    sizes = [g for g in GRANULARITIES if args.min_bytes <= g <= args.max_bytes]
    kernels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    frame = collect(kernels, sizes, args.repeats, args.seconds,
                    progress=lambda msg: print(msg, file=sys.stderr, flush=True))
    frame.to_csv(args.out, index=False, float_format="%.9g")
    print(f"wrote {len(frame)} rows to {args.out}")
    return 0


def add_parsers(sub) -> None:
    c = sub.add_parser("collect", help="measure an offload timing table on this machine")
    c.add_argument("source", choices=["openssl"], help="what to measure")
    c.add_argument("--out", default="openssl_timing.csv", help="CSV file to write")
    c.add_argument("--kernels", default="aes-128-ctr,sha-256")
    c.add_argument("--repeats", type=int, default=3)
    c.add_argument("--seconds", type=int, default=1, help="seconds per openssl speed run")
    c.add_argument("--min-bytes", type=int, default=16)
    c.add_argument("--max-bytes", type=int, default=32 * 2**20)
    c.set_defaults(func=cmd_collect)
