"""A small uploaded plan table for the /plan tests: ~60 workloads of 3 applications, host counters, a cost
column in simulator hours, and an empty target for the candidates."""

import numpy as np
import pandas as pd

MAPPING = {"id_col": "workload", "group_col": "application", "targets": ["sim_cycles"], "host_col": "host_s",
           "features": ["host_s", "inst", "c1", "c2", "c3", "sim_hours"], "repeat_col": None}


def plan_frame(n=60, measured=30, seed=3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    app = np.repeat(["alpha", "beta", "gamma"], [n // 2, n // 3, n - n // 2 - n // 3])
    size = 10 ** rng.uniform(0, 2.5, n)
    c1, c2 = rng.uniform(0.1, 1, n), rng.uniform(0.1, 1, n)
    host = size * (1 + c1)
    cycles = 1e6 * host * np.exp(0.8 * c2 - 0.5 * c1 + 0.3 * (app == "beta")) * np.exp(rng.normal(0, 0.03, n))
    order = rng.permutation(n)  # the simulated ones spread over the applications
    frame = pd.DataFrame({"workload": [f"{a}-{i}" for i, a in enumerate(app)], "application": app, "host_s": host,
                          "inst": size * 1e6, "c1": c1, "c2": c2, "c3": rng.uniform(0, 1, n),
                          "sim_hours": np.round(host * 0.02 + 0.05, 4), "sim_cycles": cycles})
    frame["truth"] = frame["sim_cycles"]
    frame.loc[order[measured:], "sim_cycles"] = np.nan
    return frame


def save(frame, name="plan table"):
    """The frame stored as an uploaded dataset (as /data saves it; the truth column left out)."""
    from dashboard.state import datasets

    return datasets.save_dataset(frame.drop(columns=["truth"]), name, dict(MAPPING), unit="cycles")
