"""The /predict job: the parameters that make its key (the workloads' table fingerprint included) and the
checks that say, before any job starts, when there is nothing to predict or a column is missing."""

from __future__ import annotations

from dashboard import jobs
from dashboard.crossgen.params import dataset_of, pair_params
from dashboard.predict import work
from dashboard.state import predict_inputs
from dashboard.ui.url_state import Param, Refused, StoredParam
from modeling.crossgen.ensemble import ALL_MODELS
from modeling.crossgen.predict import AUTO, RECOMMENDED
from modeling.crossgen.recommend import transforms_for
from modeling.crossgen.situations import NEW_APPLICATIONS, NEW_INPUTS, SITUATIONS
from modeling.errors import ModelingError
from modeling.intervals.conformal import LEVEL_MAX, LEVEL_MIN

#: the shipped data's targets with workloads that GTX-680 ran and the target did not
PREFERRED_TARGET = "GTX-970"



_ds = dataset_of


def has_host_metric(ds) -> bool:
    return ds.kind == "shipped" or bool(ds.mapping.get("host_col"))


def transform_choices(v) -> list[str]:
    """auto, then the transforms the dataset allows (the ratio ones need the host's own metric)."""
    return [AUTO, *transforms_for(0 if has_host_metric(_ds(v)) else None)]


def _check(params):
    ds = _ds(params)
    try:
        scen = work.scenario_of(params)
        if params["situation"] == NEW_APPLICATIONS and scen.get("groups") is None:
            raise Refused("situation", "Predicting for applications not in the training data needs each training "
                                       "workload's application: this dataset has no application column (map one "
                                       "when uploading it), or choose 'known applications at new inputs'.")
        new = work.workloads_of(params, scen)
    except ModelingError as exc:
        raise Refused("source", f"{exc} Upload a table whose counter columns are named as in the training data "
                                "(extra columns are ignored).") from None
    if len(new["workload_ids"]) == 0:
        others = [t for t in work.targets_with_unmeasured(params) if t != params["target"]]
        hint = f" (on this dataset: {', '.join(others)})" if others else ""
        raise Refused("source", f"Nothing to predict: every workload of {ds.name} with counters on "
                                f"{ds.host_label(params['host'])} was also measured on {params['target']}. Upload a "
                                "table of workloads to predict (the host's counters, no target) below, or choose a "
                                f"target that did not run every workload{hint}.")


def _fingerprint(params) -> str:
    """The data behind a prediction: the dataset's fingerprint and the workloads' table (its id is a digest
    of its content)."""
    src = params["source"]
    return _ds(params).fingerprint + ("" if src == predict_inputs.UNMEASURED else src)


PREDICT = jobs.JobKind("predict", (
    *pair_params(PREFERRED_TARGET, "GTX-980"),
    Param("model", "choice", RECOMMENDED, [RECOMMENDED, *ALL_MODELS]),
    Param("transform", "choice", AUTO, transform_choices),
    Param("level", "float", 0.9, None, LEVEL_MIN, LEVEL_MAX),
    Param("situation", "choice", NEW_INPUTS, list(SITUATIONS)),
    Param("seed", "int", 0, None, 0, 2**31 - 1),
    StoredParam("source", "choice", predict_inputs.UNMEASURED, lookup=predict_inputs.inputs_meta,
                what="table of workloads to predict"),
), work.predict_result, _fingerprint, _check, work.dataset_of)
