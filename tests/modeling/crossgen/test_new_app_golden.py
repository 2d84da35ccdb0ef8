"""A new-applications prediction ("recommended", every HALWPE model x transform and the baseline) on the shipped
GPU table gives, number for number, what it gave when the golden file was written: the choice, the choice in
every outer fold, the cross-validated errors of the model and of the baseline, every workload's held-out error
and the predictions with their intervals. Any speed-up of the search must leave all of them unchanged.

Rewrite the golden file (only for a change meant to alter the results) with
``PERFCAST_WRITE_GOLDEN=1 python -m pytest tests/modeling/crossgen/test_new_app_golden.py``."""

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from modeling import shipped  # noqa: E402
from modeling.crossgen.predict import fit_predictor  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "new_applications_shipped.json"


def _scenario(groups: str) -> dict:
    scen = shipped.scenario("GTX-680", "Tesla-P100")
    if groups == "kernels":  # six kernels held out in turn: inner folds over five, compared with the baseline
        scen = {**scen, "groups": np.asarray(scen["kernels"]).astype(str)}
    return scen


def _record(groups: str, n_jobs: int) -> dict:
    scen = _scenario(groups)
    pred = fit_predictor(scen, situation="new-applications", n_jobs=n_jobs)
    new = {"X": np.asarray(scen["X"])[::7], "feature_names": scen["feature_names"], "groups": None,
           "workload_ids": [f"w{i}" for i in range(len(scen["X"][::7]))]}  # measured rows, predicted as new
    out = pred.predict(new)
    v = pred.verdict
    return {"chosen": [pred.choice.model, pred.choice.transform], "selection_chosen": pred.selection["chosen"],
            "chosen_in_folds": pred.selection["chosen_in_folds"], "fits": pred.selection["fits"],
            "candidates": [[c["label"], c["male"], c["mean_ape"]] for c in pred.selection["candidates"]],
            "cv_error": pred.cv_error, "baseline_cv": pred.base_cv,
            "verdict": None if v is None else [v.baseline_used, v.baseline_wins, v.model_male, v.baseline_male],
            "abs_r": pred.abs_r.tolist(), "predicted": out.predicted, "lower": out.lower, "upper": out.upper}


@pytest.mark.parametrize("groups", ["applications", "kernels"])
def test_new_applications_prediction_is_unchanged(groups):
    got = json.loads(json.dumps(_record(groups, 1)))  # floats through JSON: repr round-trips exactly
    if os.environ.get("PERFCAST_WRITE_GOLDEN"):
        old = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps({**old, groups: got}, indent=1) + "\n")
    want = json.loads(GOLDEN.read_text())[groups]
    assert got == want


def test_new_applications_prediction_is_unchanged_on_two_workers():
    got = json.loads(json.dumps(_record("kernels", 2)))
    assert got == json.loads(GOLDEN.read_text())["kernels"]
