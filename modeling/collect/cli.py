"""Command line of the collectors: ``collect openssl`` measures an offload timing table on this machine;
``collect bbcounts`` measures basic-block counts of a C kernel over a grid of input sizes."""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

from modeling.errors import DataError
from modeling.parallel import add_jobs_argument


def _progress(msg):
    print(msg, file=sys.stderr, flush=True)


def cmd_openssl(args) -> int:
    from modeling.collect.openssl import GRANULARITIES, collect

    sizes = [g for g in GRANULARITIES if args.min_bytes <= g <= args.max_bytes]
    kernels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    frame = collect(kernels, sizes, args.repeats, args.seconds, progress=_progress)
    out = args.out or "openssl_timing.csv"
    frame.to_csv(out, index=False, float_format="%.9g")
    print(f"wrote {len(frame)} rows to {out}")
    return 0


def _points(args, params):
    from modeling.collect.bbcounts import parse_values

    if args.points:
        import pandas as pd

        try:
            pts = pd.read_csv(args.points)
        except (OSError, ValueError) as exc:
            raise DataError(f"cannot read {args.points}: {exc}") from None
        missing = [p for p in params if p not in pts.columns]
        if missing:
            raise DataError(f"{args.points} lacks the column(s) {', '.join(missing)}")
        return [tuple(int(v) for v in row) for row in pts[params].itertuples(index=False)]
    if not args.values:
        raise DataError("give --values or --points")
    return list(itertools.product(parse_values(args.values), repeat=len(params)))


def _write(frame, out: str) -> None:
    if out.endswith(".parquet"):
        frame.attrs = {k: str(v) for k, v in frame.attrs.items()}
        frame.to_parquet(out, index=False)
    else:
        frame.to_csv(out, index=False)


def cmd_bbcounts(args) -> int:
    import pandas as pd

    from modeling.collect import bbcounts

    t0 = time.perf_counter()
    if args.shipped:
        frames, info = [], {}
        for name in bbcounts.KERNELS:
            params, points = bbcounts.shipped_points(name)
            f = bbcounts.collect(bbcounts.KERNEL_DIR / f"{name}.c", list(params), points, args.jobs, name, _progress)
            info[name] = f.attrs["cfg_checksums"]
            _progress(f"{name}: {len(points)} points, {f['block'].nunique()} blocks")
            frames.append(f)
        frame = pd.concat(frames, ignore_index=True)
        frame.attrs.update({"compiler": frames[0].attrs["compiler"], "flags": frames[0].attrs["flags"],
                            "cfg_checksums": info})
    else:
        if not args.kernel or not args.params:
            raise DataError("give --kernel FILE.c and --params P1,P2,... (or --shipped)")
        params = [p.strip() for p in args.params.split(",") if p.strip()]
        frame = bbcounts.collect(Path(args.kernel), params, _points(args, params), args.jobs, args.name, _progress)
    out = args.out or "bbcounts.csv"
    _write(frame, out)
    print(f"wrote {len(frame)} rows ({frame['program'].nunique()} programs) to {out} in "
          f"{time.perf_counter() - t0:.1f} s; {frame.attrs['compiler']}, {frame.attrs['flags']}")
    return 0


def add_parsers(sub) -> None:
    c = sub.add_parser("collect", help="measure on this machine: openssl offload timing or basic-block counts")
    c.add_argument("source", choices=["openssl", "bbcounts"], help="what to measure")
    c.add_argument("--out", default=None, help="file to write (.csv, or .parquet for bbcounts)")
    g = c.add_argument_group("openssl")
    g.add_argument("--kernels", default="aes-128-ctr,sha-256")
    g.add_argument("--repeats", type=int, default=3)
    g.add_argument("--seconds", type=int, default=1, help="seconds per openssl speed run")
    g.add_argument("--min-bytes", type=int, default=16)
    g.add_argument("--max-bytes", type=int, default=32 * 2**20)
    b = c.add_argument_group("bbcounts")
    b.add_argument("--kernel", help="a C file whose main takes the size parameters as arguments, in order")
    b.add_argument("--params", help="size parameter names in the order main takes them, e.g. NI,NJ,NK")
    b.add_argument("--values", help="values every parameter runs over (full factorial), e.g. 16,24,32")
    b.add_argument("--points", help="CSV with one column per parameter: an explicit list of points")
    add_jobs_argument(b, "kernel runs")
    b.add_argument("--name", default=None, help="program name (default: the file's stem)")
    b.add_argument("--shipped", action="store_true", help="all shipped kernels on their grids (data/ table)")
    c.set_defaults(func=lambda a: cmd_bbcounts(a) if a.source == "bbcounts" else cmd_openssl(a))
