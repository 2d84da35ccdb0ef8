"""The /plan job: the parameters that make its key and the checks that say, before any job starts, what is
wrong with the inputs (no candidates, a budget below one workload's cost, a cost column with zeros, gaps or
text): the planner's own :class:`~modeling.errors.ModelingError` messages."""

from __future__ import annotations

from dashboard import jobs
from dashboard.crossgen.params import dataset_of, pair_params
from dashboard.plan import work
from dashboard.ui.url_state import Param, Refused
from modeling.crossgen.situations import NEW_APPLICATIONS, NEW_INPUTS, SITUATIONS
from modeling.errors import ModelingError
from modeling.plan.inputs import check_budget
from modeling.plan.planner import STRATEGY_CHOICES

#: the shipped data's target with workloads the host ran and the target did not (candidates to simulate)
PREFERRED_TARGET = "GTX-970"
#: a cycle-level GPU simulator runs about this many times slower than the GPU (benchmarks/plan.py)
DEFAULT_SLOWDOWN = 1e5
BUDGET_KINDS = ("workloads", "hours")



_ds = dataset_of


def cost_choices(v) -> list[str]:
    try:
        return work.cost_choices(_ds(v), v["host"], v["target"], v["metric"])
    except (ValueError, LookupError, TypeError):  # a forged host or target (the form's callbacks ask too)
        return [work.SLOWDOWN]


def _cost_default(v):
    opts = cost_choices(v)
    return opts[0] if opts else work.SLOWDOWN


#: the value of the /plan option that puts the last round's missing runs first (``plan --retry-missing``)
RETRY = "missing"


def _check(params):
    prior = (_ds(params).notes or {}).get("plan_round") if params["retry"] else None
    if params["retry"] and not (isinstance(prior, dict) and isinstance(prior.get("missing"), list)):
        raise Refused("retry", "This dataset version has no last batch whose missing runs are known: upload the "
                               "batch's results below while its plan is shown (the new version of the dataset "
                               "then remembers what did not come back), or untick 'run again first'.")
    if params["budget_kind"] == "workloads" and params["budget"] != int(params["budget"]):
        raise Refused("budget", f"A budget in workloads is a whole number, got {params['budget']:g}.")
    try:
        table = work.table_of(params)
        if params["situation"] == NEW_APPLICATIONS and table.groups is None:
            raise Refused("situation", "Planning for applications not simulated yet needs each workload's "
                                       "application: this dataset has no application column (map one when "
                                       "uploading it), or choose 'known applications at new inputs'.")
        check_budget(table, work.budget_of(params))
    except ModelingError as exc:
        raise Refused("dataset", str(exc)) from None


PLAN = jobs.JobKind("plan", (
    *pair_params(PREFERRED_TARGET),
    Param("cost", "choice", _cost_default, cost_choices),
    Param("slowdown", "float", DEFAULT_SLOWDOWN, None, 1.0, 1e12),
    Param("budget_kind", "choice", "workloads", list(BUDGET_KINDS)),
    Param("budget", "float", 10.0, None, 1e-6, 1e9),
    Param("situation", "choice", NEW_INPUTS, list(SITUATIONS)),
    Param("strategy", "choice", "auto", list(STRATEGY_CHOICES)),
    Param("seed", "int", 0, None, 0, 2**31 - 1),
    Param("retry", "multi", [], [RETRY]),
), work.plan_result, lambda p: _ds(p).fingerprint, _check, work.dataset_of)
