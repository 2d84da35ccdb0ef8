"""A /compare result as a design-review report (dashboard/ui/report.py): the two scenarios' inputs with the ones
that differ, both leaderboards merged by model (the baseline included), each run's ★ and the per-workload
errors of the two ★ entries, with the two saved scenarios' names and the share link."""

from __future__ import annotations

import time

from dashboard.crossgen.figures import ape_pair
from dashboard.crossgen.results import CompareRun
from dashboard.ui.report import Report, Section, Table

INPUTS = [("input", "input"), ("a", "A"), ("b", "B"), ("differs", "differs")]
MODELS = [("model", "model"), ("e_out_a", "E_out % in A"), ("e_out_b", "E_out % in B"),
          ("delta", "B − A (points)"), ("rank_a", "rank in A"), ("rank_b", "rank in B"), ("changed", "moved")]
WORKLOADS = [("workload", "workload"), ("ape_a", "APE % in A"), ("ape_b", "APE % in B"),
             ("gap", "apart (points)")]


def build(run: CompareRun, link: str, fingerprint: str) -> Report:
    from modeling.version import code_version

    c, w = run.comparison, run.comparison.workloads
    (sa, ea), (sb, eb) = c.star_a, c.star_b
    sides = f"A is {run.a.label}; B is {run.b.label}."
    crowned = ("Both runs crown the same entry." if c.same_star else
               f"The two runs crown different entries ({sa} in A, {sb} in B): a model chosen on one run is not the "
               "best on the other.")
    sections = [
        Section("Inputs", [sides], tables=[Table(INPUTS, [r.row for r in run.inputs])]),
        Section("Leaderboards side by side", [
            "E_out is the mean absolute percentage error of out-of-fold predictions (RastSim eq. 3) in each run; "
            "B − A in percentage points, negative where B predicts better. A row is marked as moved only when "
            "the two differ by at least 1 point and 10 % of the smaller.", crowned],
            tables=[Table(MODELS, run.model_rows)]),
        Section("Per-workload errors of the two ★ entries", [
            f"Of the {w.n_shared} workloads both runs scored, B ({sb}) is closer on {w.b_better}, A ({sa}) "
            f"on {w.a_better}; scored in one run only: {w.only_a} in A, {w.only_b} in B."],
            figures=[ape_pair(w.rows, sa, sb, f"APE per workload: {sa} in A against {sb} in B")],
            tables=[Table(WORKLOADS, [r.summary() for r in w.most_apart(30)],
                          title="The 30 workloads the two predict most differently")]),
    ]
    return Report(
        title=f"Compared: {run.a.name} (A) and {run.b.name} (B)",
        facts=[("★ in A", f"{sa} {ea:.2f} %"), ("★ in B", f"{sb} {eb:.2f} %"),
               ("E_out that moved", f"{c.n_changed} of {len(c.models)}")],
        sections=sections, inputs={"A": run.a.name, "B": run.b.name},
        provenance=(f"two saved scenarios, each computed as on /scenario (comparison fingerprint "
                    f"{fingerprint[:16]}); code version {code_version()}"),
        link=link, generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
