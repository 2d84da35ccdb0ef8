"""Rows and facts the /counts page shows, computed from a result (no Dash, so tests can import them)."""

from __future__ import annotations

from dashboard.counts.figures import NAMES


def leaderboard_rows(res: dict) -> list[dict]:
    rows = []
    for m in res["models"]:
        r = {k: m.get(k) for k in ("model", "mape", "max_ape", "nmse", "pearson", "spearman", "fit_seconds",
                                   "exact_blocks")}
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
    return sorted(rows, key=lambda r: (not r["status"].startswith("irregular"), r["block"]))


def summary_facts(res: dict) -> dict:
    by = {m["model"]: m for m in res["models"]}
    best = min(res["models"], key=lambda m: m["mape"])
    pnn = by.get("pnn-paper")
    text = (f"{res['program']}: {res['n_blocks']} blocks; input sizes {', '.join(res['sizes'])}; {res['split']} "
            f"split, {res['n_train']} training and {res['n_test']} test inputs. Errors are over the test inputs' "
            "non-zero counts.")
    if res["irregular"]:
        text += " Irregular: " + ", ".join(f"{i['block']} ({i['reason']})" for i in res["irregular"][:6])
        text += " …" if len(res["irregular"]) > 6 else "."
    return {"best": f"{NAMES.get(best['model'], best['model'])}: {pct(best['mape'])}",
            "pnn": pct(pnn["mape"]) if pnn else "not run", "text": text}


def pct(v: float) -> str:
    """An error in percent as a person reads it: below 0.001 % the prediction is exact to the count."""
    return "exact (< 0.001 %)" if v < 1e-3 else f"{v:.3g} %"
