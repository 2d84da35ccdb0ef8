"""The /phases page's job kinds, work and figures (LACross phase-level prediction)."""
