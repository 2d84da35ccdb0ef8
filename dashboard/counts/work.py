"""The work behind /counts: validated params -> JSON results (no Dash)."""

from __future__ import annotations

from dashboard.counts import sources
from dashboard.jobs.progress import silent
from modeling.counts import data
from modeling.counts.evaluate import evaluate_program
from modeling.errors import ModelingError


def network_settings(params: dict) -> dict:
    """The custom network's settings (used by the model ``pnn``)."""
    return {"hidden": params["hidden"], "activation": params["activation"], "epochs": params["epochs"],
            "batch_size": params["batch"], "learning_rate": params["lr"]}


def counts_result(params: dict, report=silent) -> dict:
    """Every chosen model on one program: leaderboard, test predictions, blocks, curve and totals."""
    prog = data.program(sources.frame(params["source"]), params["program"])
    res = evaluate_program(prog, params["split"], tuple(params["models"]), params["seed"], network_settings(params),
                           progress=report)
    return {**res.to_dict(), "params": dict(params)}


def table_fingerprint(source: str) -> str:
    """The fingerprint of a count table: an upload's id names its content; the shipped tables' files."""
    from dashboard.state.files import shipped_fingerprint

    if source not in sources.SHIPPED:
        return source
    return shipped_fingerprint(*(file for file, _ in data.SHIPPED.values()))


def split_specs(text: str) -> list[str]:
    """The specs of the page's inputs field: one per ';' or line."""
    return [s.strip() for s in text.replace("\n", ";").split(";") if s.strip()]


def predict_result(params: dict, report=silent) -> dict:
    """Every block's count at the inputs of ``params["at"]`` (validated by
    :data:`dashboard.counts.kinds.PREDICT`), the measured counts beside them for the chart, and the
    provenance (table and its fingerprint, code version, date)."""
    from datetime import UTC, datetime

    from modeling.counts.predict import parse_inputs, predict_counts
    from modeling.version import code_version

    prog = data.program(sources.frame(params["source"]), params["program"])
    X = parse_inputs(split_specs(params["at"]), prog.params)
    res = predict_counts(prog, X, params["pmodel"], params["seed"], progress=report).to_dict()
    res.update(params=dict(params), measured={"X": prog.X.tolist(), "Y": prog.Y.tolist()},
               provenance={"table": params["source"], "table_name": sources.meta(params["source"])["name"],
                           "table_fingerprint": table_fingerprint(params["source"]),
                           "code_version": code_version(), "date": datetime.now(UTC).isoformat(timespec="seconds")})
    return res


def programs_result(params: dict, report=silent) -> dict:
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
            skipped.append({"program": name, "reason": str(exc)})
            continue
        for m in [*r.models, *([r.baseline] if r.baseline else [])]:
            rows.append({"program": name, "n_blocks": r.n_blocks, "n_train": r.n_train, "n_test": r.n_test,
                         "irregular": len(r.irregular), **{k: v for k, v in m.to_dict().items() if k != "seeds"},
                         "vs_baseline": r.vs_baseline(m.model)})
    return {"rows": rows, "skipped": skipped, "params": dict(params)}
