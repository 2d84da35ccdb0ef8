"""The phase models' names in words (a labels module: the figures may import it)."""

#: the models' names as the pages, the reports and the command line say them
NAMES = {"lacross": "LACross", "global": "global model", "nnls-baseline": "NNLS baseline",
         "ratio-baseline": "host × median ratio", "program-ratio": "host × median whole-program ratio",
         "mean-baseline": "training mean"}
