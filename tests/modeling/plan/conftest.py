"""A small synthetic plan table: 3 applications, 5 counters, a host time spanning three orders of magnitude
and a target that depends on the counters (so a model can learn it)."""

import numpy as np
import pandas as pd
import pytest


def synthetic_frame(n=90, measured=30, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    app = np.repeat(["alpha", "beta", "gamma"], [n // 2, n // 3, n - n // 2 - n // 3])
    size = 10 ** rng.uniform(0, 3, n)
    c1, c2 = rng.uniform(0.1, 1, n), rng.uniform(0.1, 1, n)
    host = size * (1 + c1)
    target = host * np.exp(0.8 * c2 - 0.5 * c1 + 0.3 * (app == "beta")) * np.exp(rng.normal(0, 0.03, n))
    frame = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "application": app, "host_s": host,
                          "inst": size * 1e6, "c1": c1, "c2": c2, "c3": rng.uniform(0, 1, n),
                          "sim_hours": host * 0.01 + 0.001, "target": target})
    frame.loc[np.arange(n) >= measured, "target"] = np.nan
    return frame


@pytest.fixture()
def frame():
    return synthetic_frame()


@pytest.fixture()
def table(frame):
    from modeling.plan.inputs import read_plan_table

    return read_plan_table(frame, "target", "workload", host_col="host_s", group_col="application",
                           cost_col="sim_hours")
