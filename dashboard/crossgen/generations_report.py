"""A /generations result as a design-review report (dashboard/ui/report.py): the best model per target beside
the baseline, the measured and predicted speedups per workload, the note when the targets were scored on
different workload sets, the simulator comparison when the data has one, the inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.crossgen.figures import simulator_speedups, speedups
from dashboard.crossgen.generations import workload_sets_text
from dashboard.crossgen.results import GenerationsRun
from dashboard.ui.report import Report, Section, Table

SUMMARY = [("target", "target"), ("best_model", "best model"), ("e_out", "E_out %"), ("ir10", "IR@10 %"),
           ("ir20", "IR@20 %"), ("best_nnls", "best NNLS"), ("nnls_e_out", "NNLS E_out %"),
           ("baseline_e_out", "baseline E_out %"), ("n_workloads", "workloads"), ("n_excluded", "left out"),
           ("sim_speedup_mean", "× vs simulator (mean)")]


def build(run: GenerationsRun, params: dict, link: str, dataset: str, fingerprint: str, order_by: str | None
          ) -> Report:
    from modeling.version import code_version

    best = run.lowest
    beaten = run.baseline_as_good
    sections = [Section("Best model per target", [
        "E_out is the mean absolute percentage error of out-of-fold predictions of each target's time from the "
        "host's counters; the baseline scales the host's own time by the median target/host ratio.",
        (f"The baseline is as good as the best model on: {', '.join(beaten)}." if beaten else ""),
        workload_sets_text(run) or ""], tables=[Table(SUMMARY, run.table)])]
    if run.speedup:
        sections.append(Section("Speedup over the host per workload, measured and predicted",
                                figures=[speedups(run, order_by)]))
    if run.sim_speedup:
        sections.append(Section("Model against simulator", figures=[simulator_speedups(run)]))
    return Report(
        title=f"Generations from {run.host}: {', '.join(run.targets)}",
        facts=[("host", run.host), ("targets", str(len(run.targets))),
               ("lowest E_out", f"{best.target}: {best.best_model} {best.e_out:.2f} %")],
        sections=sections, inputs=dict(params),
        provenance=(f"dataset {dataset} (fingerprint {fingerprint[:16]}); code version {code_version()}; each "
                    "target's scenario as on /scenario"),
        link=link, generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
