"""Rows and facts the /counts page shows, computed from a result (no Dash, so tests can import them)."""

from __future__ import annotations

from dashboard.counts.figures import NAMES


#: fewer test inputs than this and the summary says the errors rest on few points
FEW_TEST_INPUTS = 8


def leaderboard_rows(res: dict) -> list[dict]:
    """The models, then the size-scaling baseline on the same test inputs; ``vs_baseline``: each one's mean APE
    as a multiple of the baseline's."""
    rows = []
    for m in [*res["models"], *([res["baseline"]] if res.get("baseline") else [])]:
        r = {k: m.get(k) for k in ("model", "mape", "max_ape", "nmse", "pearson", "spearman", "fit_seconds",
                                   "exact_blocks", "vs_baseline")}
        r["name"] = NAMES.get(m["model"], m["model"])
        if "mape_range" in m:
            lo, hi = m["mape_range"]
            r["seed_range"] = f"{lo:.2f} – {hi:.2f}"
        rows.append(r)
    return rows


def block_rows(res: dict) -> list[dict]:
    irregular = {i["block"]: i for i in res["irregular"]}
    rows = []
    for b in res["blocks"]:
        if b["block"] in irregular:
            status = f"irregular: {irregular[b['block']]['reason']}"
        elif b["exact"]:
            status = "exact polynomial"
        else:
            status = "regular"
        rows.append({"block": b["block"], "status": status, "chosen": NAMES.get(b["chosen"], b["chosen"]),
                     "inner_error": b["inner_error"], "test_ape": b["test_ape"]})
    return sorted(rows, key=lambda r: (not r["status"].startswith("irregular"), natural(r["block"])))


def natural(name: str) -> tuple:
    """A sort key that orders the numbers inside a name by value: "f:2" before "f:10"."""
    import re

    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name) if t)


def summary_facts(res: dict) -> dict:
    by = {m["model"]: m for m in res["models"]}
    best = by[res["best_model"]]  # chosen by the result (modeling/counts/results.py)
    pnn = by.get("pnn-paper")
    text = (f"{res['program']}: {res['n_blocks']} blocks; input sizes {', '.join(res['sizes'])}; {res['split']} "
            f"split, {res['n_train']} training and {res['n_test']} test inputs. Errors are over the test inputs' "
            "non-zero counts.")
    if res["n_test"] < FEW_TEST_INPUTS:
        text += (f" Only {res['n_test']} test input{'s' if res['n_test'] != 1 else ''}: every error here rests on "
                 "that few points; read them as indications, not rates.")
    b = res.get("baseline")
    if b:
        verdict = ("beats it" if best["mape"] < b["mape"] else
                   "does not beat it: prefer the baseline for these inputs")
        text += (f" The baseline a careful user would use (each block's count at the nearest training input scaled "
                 f"by the sizes it depends on) is at {pct(b['mape'])}; the best model, "
                 f"{NAMES.get(best['model'], best['model'])}, {verdict}.")
    if res["irregular"]:
        text += " Irregular: " + ", ".join(f"{i['block']} ({i['reason']})" for i in res["irregular"][:6])
        text += " …" if len(res["irregular"]) > 6 else "."
    return {"best": f"{NAMES.get(best['model'], best['model'])}: {pct(best['mape'])}",
            "pnn": pct(pnn["mape"]) if pnn else "not run", "text": text, "few": res["n_test"] < FEW_TEST_INPUTS,
            "baseline": pct(b["mape"]) if b else "–", "beats_baseline": bool(b) and best["mape"] < b["mape"]}


def pct(v: float) -> str:
    """An error in percent as a person reads it: below 0.001 % the prediction is exact to the count."""
    return "exact (< 0.001 %)" if v < 1e-3 else f"{v:.3g} %"


# ------------------------------------------------------------------ predict at new inputs

def inputs_text(inputs) -> str:
    return inputs if isinstance(inputs, str) else ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v:g}"
                                                            for k, v in inputs.items())


def prediction_rows(res: dict) -> list[dict]:
    """The table of predicted counts: one row per (input, block), then the totals."""
    rows = []
    for r in res["predictions"]:
        how = "exact polynomial" if r["how"] == "exact" else NAMES.get(r["how"], r["how"])
        rows.append({"inputs": inputs_text(r["inputs"]), "block": r["block"], "how": how,
                     "predicted": r["predicted"], "lower": r["lower"], "upper": r["upper"],
                     "level": level_text(r["level"], r["how"], r["lower"]),
                     "error": None if r["how"] == "exact" else r["error"], "beyond": r["beyond"],
                     "baseline": r.get("baseline"), "baseline_error": r.get("baseline_error"),
                     "baseline_scales": r.get("baseline_scales") or "", "irregular": r["irregular"] or ""})
    for t in res["totals"]:
        rows.append({"inputs": inputs_text(t["inputs"]), "block": f"total: {t['block']}", "how": "sum",
                     "predicted": t["predicted"], "lower": t["lower"], "upper": t["upper"],
                     "level": "sum of the ranges", "error": None, "beyond": None, "baseline": t.get("baseline"),
                     "baseline_error": None, "baseline_scales": "", "irregular": ""})
    return rows


def level_text(level, how: str, lower) -> str:
    """The level printed beside a range: "90 %", "exact", or "none" (no held-out input)."""
    if how == "exact":
        return "exact"
    if level is None or lower is None:
        return "none"
    return f"{level * 100:.0f} %"


def prediction_facts(res: dict) -> dict:
    n_model = res["n_blocks"] - res["n_exact"]
    levels = [b["level"] for b in res["blocks"] if b["how"] != "exact" and b["level"] is not None]
    far = max(res["beyond"]) if res["beyond"] else 1.0
    mx = ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v:g}" for k, v in res["measured_max"].items())
    text = (f"{res['program']}: {res['model_name']} fitted on all {res['n_measured']} measured inputs (largest "
            f"sizes {mx}); {res['n_inputs']} input(s) predicted, up to {far:,.3g}× beyond the measured ones (the "
            f"smallest growth of the sizes from a measured input). Errors, the choice per block and ranges come "
            f"from {held_out_text(res)}.")
    if levels:
        text += (f" Ranges are at the {levels[0] * 100:.0f} % level" + ("." if res.get("level_supported") else
                 ": the held-out inputs cannot support 90 %."))
    base = [b["baseline_error"] for b in res["blocks"]
            if b["how"] != "exact" and b.get("baseline_error") is not None]
    model = [b["error"] for b in res["blocks"] if b["how"] != "exact" and b["error"] is not None]
    if base:
        import statistics

        n_base = sum(b["how"] == "baseline" for b in res["blocks"])
        text += (f" Beside each count, the baseline ({res.get('baseline_rule', 'size scaling')}): on the "
                 f"held-out inputs its median error over the blocks not exact is {statistics.median(base):.3g} %, "
                 f"the chosen predictions' {statistics.median(model):.3g} %"
                 + (f"; {n_base} block(s) take the baseline itself, no model beat it." if n_base else "."))
    if res["n_irregular"]:
        odd = [f"{b['block']} ({b['irregular']})" for b in res["blocks"] if b["irregular"]]
        text += " Irregular (no model within 5 % on high-low): " + ", ".join(odd[:6]) + (" …" if len(odd) > 6 else ".")
    return {"exact": f"{res['n_exact']} of {res['n_blocks']}", "model": f"{n_model} of {res['n_blocks']}",
            "irregular": f"{res['n_irregular']}",
            "level": (f"{levels[0] * 100:.0f} %" + ("" if res.get("level_supported") else " (90 % not supported)"))
            if levels else "–",
            "text": text, "notes": res.get("notes") or []}


def held_out_text(res: dict) -> str:
    n, k = res["n_hl_test"], res["n_hl_train"]
    if res.get("scheme") == "leave-one-input-out":
        return (f"leave-one-input-out: {n} measured inputs each predicted from the inputs not at least as large in "
                f"every size (median {k} training inputs)")
    return f"the high-low split of the measured inputs ({k} training, {n} held-out inputs)"


def provenance_text(res: dict) -> str:
    p = res.get("provenance") or {}
    return (f"Range rule: {res['rule']}. Provenance: table {p.get('table_name')} ({p.get('table')}, fingerprint "
            f"{str(p.get('table_fingerprint'))[:16]}); code version {p.get('code_version')}; computed {p.get('date')} "
            f"in {res.get('seconds', 0):.1f} s.")


def export_bytes(res: dict, fmt: str) -> tuple[bytes, str]:
    """(bytes, file name) of the prediction table (:func:`modeling.counts.predict.frame_of`) with its
    provenance, as CSV or Parquet."""
    import io

    from modeling.counts.predict import frame_of

    prov = res.get("provenance") or {}
    df = frame_of(res, {k: prov.get(k) for k in ("table", "table_fingerprint", "code_version", "date")})
    stem = f"counts_{res['program']}_{res['model']}".replace("/", "-").replace(" ", "_")
    if fmt == "parquet":
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        return buf.getvalue(), f"{stem}.parquet"
    return df.to_csv(index=False).encode(), f"{stem}.csv"


def block_choices(res: dict) -> list[str]:
    return (["all blocks"] if res["kind"] == "blocks" else []) + [b["block"] for b in res["blocks"]]


def saved_summary(res: dict) -> dict:
    """What the list of saved predictions shows of counts predicted at new inputs."""
    pv = res.get("provenance") or {}
    first = inputs_text(res["inputs"][0]) if res["inputs"] else ""
    more = f" and {res['n_inputs'] - 1} more" if res["n_inputs"] > 1 else ""
    return {"text": (f"{res['program']} at {first}{more}: {res['n_exact']} of {res['n_blocks']} blocks exact, "
                     f"{res['n_irregular']} irregular ({res['model_name']}); table {pv.get('table_name')} "
                     f"({str(pv.get('table_fingerprint'))[:16]}), code {pv.get('code_version')}, {pv.get('date')}"),
            "model": res["model"], "n_inputs": res["n_inputs"]}
