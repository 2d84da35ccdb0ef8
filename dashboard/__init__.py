"""perfcast dashboard: Dash pages over the ``modeling`` library (never the reverse)."""
