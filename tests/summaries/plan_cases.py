"""The /plan cases of the summary golden tests: the command line's text on the synthetic plan table (a first
round, and a second with a finished batch merged, the last round named and its missing runs retried first), and
/plan's card and report on the uploaded plan table (the second round, with the last round's changes and a run to
retry)."""

from __future__ import annotations

import json
import re

import pandas as pd

from tests.summaries import capture

FIRST = ["--cost-col", "sim_hours", "--budget", "4", "--strategy", "diversity", "--replay-seeds", "1"]


def _args(path, *extra):
    return ["plan", "--csv", str(path), "--target", "target", "--host-col", "host_s", "--id", "workload",
            "--group", "application", *extra]


def cli_texts(tmp_path) -> dict[str, str]:
    """{"first": text, "round": text, "round_json": the second round's JSON} of the command line."""
    from tests.modeling.plan.conftest import synthetic_frame

    table, truth = tmp_path / "table.csv", synthetic_frame(measured=90).set_index("workload")["target"]
    synthetic_frame().to_csv(table, index=False)
    out = {"first": capture.cli(_args(table, *FIRST))}
    said = capture.cli(_args(table, *FIRST, "--json"))
    previous = tmp_path / "previous.json"
    previous.write_text(said.split("\n", 1)[1])
    ids = [b["id"] for b in json.loads(said.split("\n", 1)[1])["batch"]]
    results = tmp_path / "results.csv"
    pd.DataFrame({"workload": ids[:-1], "target": truth[ids[:-1]].to_numpy()}).to_csv(results, index=False)
    second = [*FIRST, "--results", str(results), "--previous", str(previous), "--retry-missing"]
    out["round"] = capture.cli(_args(table, *second))
    out["round_json"] = capture.cli(_args(table, *second, "--json"))
    return out


def pages():
    """(the second round's PlanPage, the first's) of the uploaded plan table (a state directory must be set)."""
    from dashboard.jobs.progress import silent
    from dashboard.plan import work
    from dashboard.plan.kinds import PLAN
    from tests.dashboard.plan.plan_table import plan_frame, save

    uploaded = save(plan_frame())
    params = PLAN.request({"dataset": uploaded["id"], "cost": "sim_hours", "strategy": "diversity",
                           "budget": 6})["params"]
    first = PLAN.run(params, silent)
    truth = plan_frame().set_index("workload")["truth"]
    ids = [b.id for b in first.plan.batch]
    meta = work.merge_upload(params, pd.DataFrame({"workload": ids[:-1], "sim_cycles": truth[ids[:-1]].to_numpy()}),
                             first.plan)
    second = PLAN.run(PLAN.request({**params, "dataset": meta["id"], "retry": ["missing"]})["params"], silent)
    return second, first


def masked(text: str) -> str:
    """Run-to-run values masked: the dataset's id and fingerprint (the state directory's), dates."""
    text = re.sub(r"\b[0-9a-f]{16,64}\b", "<hex>", text)
    text = re.sub(r"ds-[\w-]+", "<ds>", text)
    return capture.masked(text)
