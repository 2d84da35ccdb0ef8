"""Command line: ``python -m modeling <command> ... [--json]``; each method's package owns its commands.

Commands
--------
ensemble   run a cross-generation scenario and print its leaderboard    (modeling.crossgen.cli)
sweep      Random Forest tree-count sweep (RastSim 4.4)                  (modeling.crossgen.cli)
rank       feature ranking of one model                                  (modeling.crossgen.cli)
devices    list the shipped GPUs                                         (modeling.crossgen.cli)
predict    predict workloads without a measured target, with intervals   (modeling.crossgen.cli)
newapp     estimates for an application never run on the target          (modeling.newapp.cli)
phases     LACross phase-level prediction on held-out programs            (modeling.phases.cli)
counts     basic-block / event counts of large inputs from small (BB-ML)  (modeling.counts.cli)
logca      LogCA presets, model evaluation and calibration               (modeling.accelerators.cli)
collect    measure on this machine (``collect openssl|bbcounts``)        (modeling.collect.cli)
build-data rebuild data/ from the public sources                         (modeling.build.cli)
import     profiler output (ncu, nvprof, rocprof) as a workload table   (modeling.tables.profilers.cli)
plan       which workloads to simulate next, under a budget              (modeling.plan.cli)
import-sim simulator output (GPGPU-Sim, Accel-Sim, gem5) as records     (modeling.tables.simulators.cli)
operators  DL operators and models on a GPU given by its specs           (modeling.operators.cli)
"""

from __future__ import annotations

import argparse
import sys

from modeling.errors import ModelingError


def main(argv=None) -> int:
    from modeling.accelerators import cli as accelerators_cli
    from modeling.build import cli as build_cli
    from modeling.collect import cli as collect_cli
    from modeling.counts import cli as counts_cli
    from modeling.crossgen import cli as crossgen_cli
    from modeling.newapp import cli as newapp_cli
    from modeling.operators import cli as operators_cli
    from modeling.phases import cli as phases_cli
    from modeling.plan import cli as plan_cli
    from modeling.tables.profilers import cli as import_cli
    from modeling.tables.simulators import cli as import_sim_cli

    p = argparse.ArgumentParser(prog="python -m modeling", description="perfcast modeling command line")
    sub = p.add_subparsers(dest="command", required=True)
    for cli in (crossgen_cli, newapp_cli, phases_cli, counts_cli, build_cli, collect_cli, accelerators_cli, import_cli,
                plan_cli, import_sim_cli, operators_cli):
        cli.add_parsers(sub)
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except ModelingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
