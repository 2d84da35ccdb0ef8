"""/counts: count prediction (BB-ML) on the dashboard side."""
