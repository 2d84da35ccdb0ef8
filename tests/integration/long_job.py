"""A scenario job that runs long enough to be stopped mid-way on any machine.

The shipped Rodinia scenario finishes in 2.6 s on CI's machine, before a Cancel or a killed worker takes
effect, so tests of stopping a job run this one: a saved dataset of 20,000 workloads of 40 counters, all
models, 20 folds (47 s on the 2-core development machine; its first progress report comes after 5 s), or a
shorter one of fewer workloads."""

from __future__ import annotations

import numpy as np


def save_long_job_dataset(n: int = 20_000) -> dict:
    """Save the dataset (``n`` workloads) in the current project; returns the scenario's parameters (add a
    ``seed``). A smaller ``n`` gives a job that still runs for seconds, for tests that then wait for its end."""
    import pandas as pd

    from dashboard.state import datasets

    rng = np.random.default_rng(5)
    k = 40
    x = rng.random((n, k))
    df = pd.DataFrame(x, columns=[f"c{i}" for i in range(k)])
    df.insert(0, "workload", [f"w{i}" for i in range(n)])
    df["t"] = 1 + x @ rng.random(k) + 0.1 * rng.random(n)
    meta = datasets.save_dataset(df, f"long job {n}", {"id_col": "workload", "group_col": None, "targets": ["t"],
                                                  "features": [f"c{i}" for i in range(k)], "host_col": None,
                                                  "repeat_col": None})
    return {"dataset": meta["id"], "preset": "rastsim", "folds": "20"}


def query(params: dict) -> str:
    """The URL query of ``params``."""
    return "&".join(f"{k}={v}" for k, v in params.items())
