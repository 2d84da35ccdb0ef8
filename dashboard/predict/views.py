"""What /predict shows and exports, computed from a cached result (no Dash): the table's rows, the facts
above it, the candidates of a recommended model, the export table with its provenance."""

from __future__ import annotations

import io

import pandas as pd

from dashboard.state import datasets
from dashboard.ui.format import number
from modeling.crossgen.versus_baseline import BaselineVerdict

NOT_VALID = "not valid here"
#: the page /new-app, for applications not in the training data
NEWAPP = "/new-app"


def unit(res: dict) -> str:
    """The unit of a result's values: its dataset's (:meth:`~dashboard.state.datasets.DatasetView.unit`), or
    the one the result kept when that dataset is gone; "" when none was given."""
    return datasets.unit_of(res.get("params") or {}, fallback=res.get("unit") or "")


def pct(v, digits=1) -> str:
    return "–" if v is None else f"{v:.{digits}f} %"


def table_rows(res: dict) -> list[dict]:
    """One row per workload, sorted by prediction: the interval and the baseline's beside the point, the
    verdict as ✓/✗ and the reason."""
    rows = []
    for r in sorted(res["predictions"], key=lambda r: r["predicted"]):
        rows.append({"id": r["id"], "application": r["group"] or "", "predicted": r["predicted"],
                     "lower": r["lower"], "upper": r["upper"], "baseline": r["baseline"],
                     "baseline_lower": r["baseline_lower"], "baseline_upper": r["baseline_upper"],
                     "applicable": "✓ yes" if r["applicable"] else "✗ no", "ok": bool(r["applicable"]),
                     "why": r["why"] or ("inside the training data" if r["applicable"] else "")})
    return rows


def interval_sentence(res: dict) -> str:
    """What the interval means, in words, with the way to the other situation."""
    lvl = f"{res['level'] * 100:g} %"
    if res.get("interval_supported") is False:
        return (f"No {lvl} interval is given: too few applications (or workloads) can be held out to support that "
                f"level (see the note above). See {NEWAPP} for estimates of one held-out application with one-run "
                "calibration.")
    if res["situation"] == "new-inputs":
        return (f"What the interval means: {lvl} of workloads like the training ones (applications already "
                "measured, at new inputs) fall within their interval, as cross-validation on the measured workloads "
                f"showed ({pct(res['cv_coverage']['workloads'])} did). For applications not in the training data "
                "choose 'applications not in the training data' above (wider intervals, from holding applications "
                f"out), and see {NEWAPP} for estimates with one-run calibration.")
    return (f"What the interval means: {lvl} of workloads of an application not in the training data fall within "
            "their interval, as holding each application out showed "
            f"({pct(res['cv_coverage']['workloads'])} did). See {NEWAPP} for estimates of one held-out "
            "application with one-run calibration.")


def model_facts(res: dict) -> dict:
    """Which model made the numbers and why: the chosen one, how often it won the outer folds, the
    trade-off note."""
    prov = res.get("provenance") or {}
    label = prov.get("model") or res["model"]
    sel = res.get("selection")
    if not sel:
        return {"model": label, "why": f"chosen by you ({res['requested_model']}, transform "
                                       f"{res['requested_transform']})", "folds": None, "note": None}
    wins = sel.get("chosen_in_folds") or {}
    n = sum(wins.values())
    won = wins.get(sel["chosen"], 0)
    others = ", ".join(f"{k} {v}" for k, v in sorted(wins.items(), key=lambda kv: -kv[1]) if k != sel["chosen"])
    folds = (f"{sel['chosen']} was chosen in {won} of {n} outer folds" + (f" (others: {others})" if others else "")
             if n else None)
    return {"model": label, "why": f"recommended: lowest {sel['criterion']} among {sel['n_candidates']} candidates "
                                   "(models × transforms and the baseline), by nested cross-validation",
            "folds": folds, "note": sel.get("note")}


def candidate_rows(res: dict) -> list[dict]:
    """The candidates of a recommended model, best first (the baseline always among them)."""
    sel = res.get("selection")
    if not sel:
        return []
    return [{"rank": i + 1, "candidate": c.get("label") or c["model"], "male": c.get("male"),
             "mean_ape": c.get("mean_ape"), "median_ape": c.get("median_ape"), "ir10": c.get("ir10"),
             "chosen": "★" if (c.get("label") or c["model"]) == sel["chosen"] else ""}
            for i, c in enumerate(sel["candidates"])]


def verdict(res: dict) -> BaselineVerdict | None:
    """The procedure against the baseline on the outer folds (None without a host metric, or in a result
    saved before it was kept)."""
    return BaselineVerdict.from_dict(res.get("verdict"))


def width_text(cov: dict) -> str:
    """The median held-out interval's width factor (upper / lower), "" in a result saved without it."""
    w = cov.get("median_width")
    return "" if w is None else f"×{number(w)}"


def facts(res: dict) -> dict:
    """The numbers above the table, as text."""
    cov, err, base = res["cv_coverage"], res["cv_error"], res.get("baseline_cv")
    supported = res.get("interval_supported") is not False
    width = width_text(cov)
    v = verdict(res)
    lines = {
        "level": f"{res['level'] * 100:g} %",
        "coverage": pct(cov["workloads"]) if supported else "not supported",
        "width": width if supported else "",
        "coverage_detail": (f"held-out coverage: {pct(cov['workloads'])} of the training workloads, "
                            f"{pct(cov['folds'])} on average over {cov['n_folds']} folds"
                            + (f", median width {width} (upper / lower)" if width else "")
                            + (f"; {cov['folds_below_level']} fold(s) below the level" if cov.get("folds_below_level")
                               else "")
                            + ("" if supported else "; no interval is given for the predictions (too few held-out "
                               "units for the level)")),
        "versus_baseline": v.text if v else "",
        "baseline_used": bool(v and v.baseline_used),
        "error": f"{err['mean_ape']:.1f} % mean, {err['median_ape']:.1f} % median APE",
        "error_detail": (f"cross-validated error of the whole procedure ({res['cv_scheme']}): mean APE "
                         f"{err['mean_ape']:.2f} %, median {err['median_ape']:.2f} %, within 10 %: "
                         f"{err['ir10']:.0f} % of workloads, worst {number(err['max_ape'])} %"),
        "baseline_error": "–" if not base else f"{base['mean_ape']:.1f} % mean, {base['median_ape']:.1f} % median APE",
        "baseline_detail": "" if not base else (
            f"baseline (host × median target/host ratio) through the same folds: mean APE {base['mean_ape']:.2f} %, "
            f"median {base['median_ape']:.2f} %, within 10 %: {base['ir10']:.0f} %, its interval covered "
            f"{pct(base['coverage']['workloads'])}"),
        "counts": f"{res['n_train']} / {res['n_new']} / {res['n_applicable']}",
        "supported": (None if res["level_supported"] >= res["level"] or not supported else
                      f"The data supports at most a {res['level_supported'] * 100:.0f} % interval here "
                      f"(asked: {res['level'] * 100:g} %)."),
        "ignored": (", ".join(res["ignored_columns"]) if res.get("ignored_columns") else None),
        "skipped": (", ".join(map(str, res["skipped"][:20])) + (" …" if len(res["skipped"]) > 20 else "")
                    if res.get("skipped") else None),
        "interval": interval_sentence(res),
    }
    return lines


def provenance_text(res: dict) -> str:
    p = res.get("provenance") or {}
    return (f"Provenance: model {p.get('model')}; dataset {p.get('dataset')} (fingerprint "
            f"{p.get('dataset_fingerprint')}); workloads: {res.get('source_name')} (fingerprint "
            f"{p.get('inputs_fingerprint')}); code version {p.get('code_version')}; computed {p.get('date')} "
            f"in {res.get('seconds', 0):.1f} s.")


def export_frame(res: dict) -> pd.DataFrame:
    """The prediction table (docs/architecture.md): one row per workload, then the provenance as constant columns
    (the columns of :meth:`modeling.crossgen.predict.Prediction.to_frame`)."""
    from modeling.crossgen.predict import frame_of

    prov = res.get("provenance") or {}
    keep = ("dataset", "dataset_fingerprint", "inputs", "inputs_fingerprint", "code_version", "date")
    return frame_of({**res, "unit": unit(res)}, {k: prov.get(k) for k in keep})


def export_bytes(res: dict, fmt: str) -> tuple[bytes, str]:
    """(bytes, file name) of the export in ``fmt`` (csv or parquet)."""
    df = export_frame(res)
    p = res["params"]
    stem = f"predictions_{p['host']}_to_{p['target']}".replace("/", "-").replace(" ", "_")
    if fmt == "parquet":
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        return buf.getvalue(), f"{stem}.parquet"
    return df.to_csv(index=False).encode(), f"{stem}.csv"


def summary_of(res: dict) -> dict:
    """What the list of saved predictions shows of one."""
    return {"model": (res.get("provenance") or {}).get("model") or res["model"], "level": res["level"],
            "coverage": res["cv_coverage"]["workloads"], "mean_ape": res["cv_error"]["mean_ape"],
            "n_new": res["n_new"], "n_applicable": res["n_applicable"], "source": res.get("source_name")}
