"""The count models' names as people read them: one definition for the leaderboard, the figures, the
dropdowns and the CLI (a labels module: no model code, so figure modules may import it)."""

NAMES = {"pnn-paper": "PNN (paper settings)", "pnn-tuned": "PNN (tuned)", "pnn": "PNN (custom)",
         "glm": "Poisson GLM on log sizes", "poly": "polynomial counts (NNLS)", "best": "best per block",
         "baseline": "size-scaling baseline"}
