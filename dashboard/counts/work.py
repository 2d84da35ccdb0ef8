"""The work behind /counts: validated params -> typed results (:mod:`dashboard.counts.results`; no Dash)."""

from __future__ import annotations

from dashboard.counts import sources
from dashboard.counts.results import (CountsPredictionRun, CountsProgramRow, CountsProgramsRun, CountsRun,
                                      CountsSkippedProgram)
from dashboard.jobs.progress import silent
from modeling.counts import data
from modeling.counts.evaluate import evaluate_program
from modeling.errors import ModelingError


def network_settings(params: dict) -> dict:
    """The custom network's settings (used by the model ``pnn``)."""
    return {"hidden": params["hidden"], "activation": params["activation"], "epochs": params["epochs"],
            "batch_size": params["batch"], "learning_rate": params["lr"]}


def counts_result(params: dict, report=silent) -> CountsRun:
    """Every chosen model on one program: leaderboard, test predictions, blocks, curve and totals."""
    prog = data.program(sources.frame(params["source"]), params["program"])
    res = evaluate_program(prog, params["split"], tuple(params["models"]), params["seed"], network_settings(params),
                           progress=report)
    return CountsRun(dict(params), res)


def table_of(params: dict) -> tuple[str, str]:
    """(id, name) of the count table ``params`` name: the provenance's data."""
    return params["source"], sources.meta(params["source"])["name"]


def table_fingerprint(source: str) -> str:
    """The fingerprint of a count table: an upload's id names its content; the shipped tables' files."""
    from dashboard.state.files import shipped_fingerprint

    if source not in sources.SHIPPED:
        return source
    return shipped_fingerprint(*(file for file, _ in data.SHIPPED.values()))


def split_specs(text: str) -> list[str]:
    """The specs of the page's inputs field: one per ';' or line."""
    return [s.strip() for s in text.replace("\n", ";").split(";") if s.strip()]


def predict_result(params: dict, report=silent) -> CountsPredictionRun:
    """Every block's count at the inputs of ``params["at"]`` (validated by
    :data:`dashboard.counts.kinds.PREDICT`) and the measured counts beside them for the chart (the provenance:
    table and its fingerprint, code version, date, is stamped by the job runner)."""
    from modeling.counts.predict import parse_inputs, predict_counts

    prog = data.program(sources.frame(params["source"]), params["program"])
    X = parse_inputs(split_specs(params["at"]), prog.params)
    res = predict_counts(prog, X, params["pmodel"], params["seed"], progress=report)
    return CountsPredictionRun(dict(params), res, prog.X.astype(float), prog.Y.astype(float))


def programs_result(params: dict, report=silent) -> CountsProgramsRun:
    """The leaderboard of every program of the table on the same split (no curve)."""
    table = sources.frame(params["source"])
    names = data.programs(table)
    rows, skipped = [], []
    for i, name in enumerate(names):
        report(i / len(names), f"{name} ({i + 1} of {len(names)})")
        try:
            r = evaluate_program(data.program(table, name), params["split"], tuple(params["models"]),
                                 params["seed"], network_settings(params), curve=False,
                                 progress=lambda f, label, i=i: report((i + f) / len(names), label))
        except ModelingError as exc:  # a program the split cannot serve is reported, not fatal (a defect is)
            skipped.append(CountsSkippedProgram(name, str(exc)))
            continue
        for m in r.scored:
            rows.append(CountsProgramRow(name, r.n_blocks, r.n_train, r.n_test, len(r.irregular), m,
                                         r.vs_baseline(m.model)))
    return CountsProgramsRun(dict(params), rows, skipped)
