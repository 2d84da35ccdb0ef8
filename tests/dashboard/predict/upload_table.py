"""A table of workloads to predict built from the shipped data: GTX-680 counters named as in training,
the workload id and application, and the measured target column (which the prediction must never read)."""

import base64

import pandas as pd


def workloads_to_predict(n=20, host="GTX-680", target="GTX-980", step=13) -> pd.DataFrame:
    from modeling import shipped

    w = shipped.workloads()
    feats = shipped.counters()["counter"].tolist()
    ok = w[[f"{f}@{host}" for f in feats] + [f"duration@{target}"]].notna().all(axis=1)
    sub = w[ok].iloc[::step].head(n)
    return pd.DataFrame({"workload": sub["workload"].to_numpy(), "application": sub["application"].to_numpy(),
                         **{f: sub[f"{f}@{host}"].to_numpy() for f in reversed(feats)},  # reordered on purpose
                         f"duration@{target}": sub[f"duration@{target}"].to_numpy()})


def data_url(frame: pd.DataFrame) -> str:
    return "data:text/csv;base64," + base64.b64encode(frame.to_csv(index=False).encode()).decode()
