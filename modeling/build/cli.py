"""Command line of the data builders: ``build-data``.

``build-data SOURCE_DIR`` (or ``build-data rodinia --source DIR``): the shipped GPU tables from
gpuperfpredict; ``build-data armpm --source TRACE [--out DIR] [--granularity G]``: the cBench phase-level
samples and phases from the armpm trace; ``build-data events --source DIR``: the GPU event count tables
(count prediction) from gpuperfpredict's rodinia-2018 folder; ``build-data neusight --source DIR``: the
deep-learning operator latencies and device specs of twelve GPUs from NeuSight's ``scripts/asplos`` folder.
"""

from __future__ import annotations

import json


def _build(args) -> int:
    if args.what == "armpm":
        from modeling import DATA_DIR
        from modeling.build.armpm import build
        from modeling.errors import ModelingError
        from modeling.phases.granularity import rule

        if not args.source:
            raise ModelingError("build-data armpm needs --source TRACE (the .data or .data.gz file).")
        info = build(args.source, args.out or DATA_DIR, args.granularity, rule=rule)
        print(json.dumps(info, indent=2, default=str))
        return 0
    if args.what == "events":
        from modeling import DATA_DIR
        from modeling.build.events import build
        from modeling.errors import ModelingError

        if not args.source:
            raise ModelingError("build-data events needs --source DIR (gpuperfpredict's rodinia-2018 folder).")
        frame = build(args.source)
        out = args.out or str(DATA_DIR / "gpu_events.parquet")
        frame.to_parquet(out, index=False)
        print(f"wrote {len(frame)} rows ({frame['program'].nunique()} kernels) to {out}")
        return 0
    if args.what == "neusight":
        from modeling import DATA_DIR
        from modeling.build.neusight import build
        from modeling.errors import ModelingError

        if not args.source:
            raise ModelingError("build-data neusight needs --source DIR (a checkout of sitar-lab/NeuSight, or its "
                                "scripts/asplos folder).")
        print(json.dumps(build(args.source, args.out or DATA_DIR), indent=2))
        return 0
    from modeling.build.rodinia import main

    source = args.source if args.what == "rodinia" else args.what
    return main([source] + (["--out", args.out] if args.out else []))


def add_parsers(sub) -> None:
    b = sub.add_parser("build-data", help="rebuild data/ from the public sources (rodinia, armpm, events, neusight)")
    b.add_argument("what", help="'armpm', 'events', 'neusight', 'rodinia', or the gpuperfpredict folder (rodinia)")
    b.add_argument("--source", default=None, help="the source file or folder")
    b.add_argument("--out", default=None)
    b.add_argument("--granularity", type=float, default=None,
                   help="armpm: retired instructions per phase (default: 2e9, or about one sample of the trace's "
                        "densest run when its samples are larger; modeling.phases.granularity)")
    b.set_defaults(func=_build)
