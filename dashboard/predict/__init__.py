"""/predict: fit on every measured workload, predict what was not measured (intervals, baseline, applicability)."""
