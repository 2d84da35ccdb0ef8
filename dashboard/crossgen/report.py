"""A /scenario result as a design-review report (dashboard/ui/report.py): the headline numbers, which
question the E_out answers, what was left out, the leaderboard with its notes beside the baseline, observed
against predicted for the winning model, the inlier-ratio curves, the inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.crossgen.figures import inlier_curves, per_workload
from dashboard.crossgen.leaderboard import leaderboard_rows
from dashboard.crossgen.results import ScenarioRun
from dashboard.ui.report import Report, Section, Table

SITUATIONS = {
    "kfold": ("Random folds keep other input sizes of the same kernels in training: this E_out is the error for a "
              "kernel already profiled, at a new input size. For an application never run on the target it is far "
              "too optimistic (see /new-app)."),
    "logo": ("Whole applications are held out: this E_out is the error for an application never run on the "
             "target."),
}


def build(run: ScenarioRun, link: str, unit: str, text: str, models_shown: list[str], fingerprint: str) -> Report:
    """``text``: the page's sentence of what the result is and what was left out (dashboard/pages/scenario.py);
    ``fingerprint``: the data's, as the result's key used it."""
    from modeling.version import code_version

    res = run.ensemble
    s = res.scenario
    star, e_star = res.star
    best, e_best = run.best.model, run.best.e_out
    base = None if res.baseline is None else res.baseline.e_out
    paragraphs = [SITUATIONS.get(s.get("cv"), SITUATIONS["logo"]), text]
    if res.baseline_wins:
        paragraphs.insert(0, f"No model beats the baseline: the host's own time × the median target/host ratio has "
                             f"E_out {base:.2f} %; the best model, {best}, {e_best:.2f} %.")
    board = Table([("mark", ""), ("model", "model"), ("e_out", "E_out %"), ("e_out_fold_mean", "fold mean %"),
                   ("e_in", "E_in %"), ("ir10", "IR@10 %"), ("ir20", "IR@20 %"), ("features", "features"),
                   ("fit_seconds", "fit s (summed over folds)"), ("note", "note")], leaderboard_rows(res))
    present = [m for m in models_shown if any(x.model == m for x in res.models)]
    return Report(
        title=f"Scenario: {run.dataset_name}, {run.host} → {s.get('target')}",
        facts=[("workloads", str(res.n_workloads)), ("features", str(res.n_features)),
               ("lowest E_out (★)", f"{star}: {e_star:.2f} %"), ("best model", f"{best}: {e_best:.2f} %"),
               ("baseline E_out", "–" if base is None else f"{base:.2f} %")],
        sections=[
            Section("What the E_out describes", paragraphs),
            Section("Leaderboard", ["E_out: mean APE of out-of-fold predictions (RastSim eq. 3). IR@T: share of "
                                    "workloads with APE ≤ T %. ★ lowest E_out (the baseline when no model beats it), "
                                    "◆ best non-negative model."], tables=[board]),
            Section(f"Observed against predicted: {best}", figures=[per_workload(res, best, unit)]),
            Section("Inlier ratios", figures=[inlier_curves(res, present or [best])]),
        ],
        inputs=dict(run.params or s),
        provenance=(f"Dataset {run.dataset_name} ({s.get('dataset')}, fingerprint {fingerprint}); code version "
                    f"{code_version()} (part of the result's key, so these numbers are this code's); computed in "
                    f"{res.seconds:.1f} s."),
        link=link, generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
