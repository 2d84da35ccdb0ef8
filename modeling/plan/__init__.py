"""What to simulate next: a simulation-budget planner over the cross-generation prediction.

Modules: :mod:`~modeling.plan.inputs` (table, cost, budget, merging a batch's results),
:mod:`~modeling.plan.assess` (the model's view now), :mod:`~modeling.plan.strategies` (random, stratified,
diversity, uncertainty, cost-aware), :mod:`~modeling.plan.calibration` (intervals that survive active
selection), :mod:`~modeling.plan.batch`, :mod:`~modeling.plan.replay`, :mod:`~modeling.plan.auto`,
:mod:`~modeling.plan.planner` (:func:`plan`), :mod:`~modeling.plan.results` (typed results),
:mod:`~modeling.plan.cli` (``python -m modeling plan``).
"""

from modeling.plan.inputs import Budget, PlanInputError, PlanTable, merge_results, parse_budget, read_plan_table
from modeling.plan.planner import STRATEGY_CHOICES, plan
from modeling.plan.results import BatchItem, Expected, Plan, ReplayCurve

__all__ = ["BatchItem", "Budget", "Expected", "Plan", "PlanInputError", "PlanTable", "ReplayCurve",
           "STRATEGY_CHOICES", "merge_results", "parse_budget", "plan", "read_plan_table"]
