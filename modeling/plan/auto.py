"""``auto``: choose the strategy by replaying each on the workloads already simulated.

The simulated workloads are the only ones whose answer is known, so they are where strategies can be
compared: a random :data:`START_SHARE` of them is "known", each strategy plans :data:`ROUNDS` rounds of
:data:`ROUND_SHARE` of them (of their count, or of their simulator hours when the budget is in hours),
and the strategy whose predictions of the rest have the lowest mean |log error|, averaged over the rounds,
wins. With fewer than :data:`MIN_REPLAY` simulated workloads there is too little to replay on: the
default of the budget's kind is used (:data:`DEFAULT`, the strategy that did best in ``benchmarks/plan.py``)
and the reason says so. Above :data:`MAX_REPLAY_ROWS` simulated workloads the replay runs on a random subset
of that many.
"""

from modeling.plan.replay import (CANDIDATES, DEFAULT, MAX_REPLAY_ROWS, MIN_REPLAY, ROUND_SHARE, ROUNDS,
                                  START_SHARE, SWITCH_MARGIN, Chooser, compare, pick)

__all__ = ["CANDIDATES", "Chooser", "DEFAULT", "MAX_REPLAY_ROWS", "MIN_REPLAY", "ROUNDS", "ROUND_SHARE",
           "START_SHARE", "SWITCH_MARGIN", "compare", "pick"]
