"""Command line of the data builders: ``build-data`` (the shipped GPU tables from gpuperfpredict)."""

from __future__ import annotations


def _build_rodinia(args) -> int:
    from modeling.build.rodinia import main

    return main([args.source] + (["--out", args.out] if args.out else []))


def add_parsers(sub) -> None:
    b = sub.add_parser("build-data", help="rebuild data/ from the gpuperfpredict folder")
    b.add_argument("source")
    b.add_argument("--out", default=None)
    b.set_defaults(func=_build_rodinia)
