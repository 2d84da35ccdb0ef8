"""The background jobs of the cross-generation pages, one :class:`~dashboard.jobs.JobKind` each.

A kind binds the parameters that make a result's key to the work that
computes it (:mod:`dashboard.crossgen.work`). Pages make every request through their
kind, from a form, a link or a store sent back by the browser, so a key is
always derived on the server from inputs it has validated itself.
"""

from __future__ import annotations

from dashboard.jobs.runner import compute_once
from dashboard.state import datasets, scenarios
from dashboard.crossgen import work
from dashboard import jobs
from dashboard.crossgen.params import DatasetParam, model_param, scenario_params, target_choices
from dashboard.ui.format import message
from dashboard.ui.url_state import InvalidParameter, Param
from modeling.crossgen.ensemble import ALL_MODELS, TRANSFORMS


def _fingerprint(*names):
    """The fingerprint of the data behind the dataset parameters ``names``."""
    return lambda params: "".join(datasets.get(params[n]).fingerprint for n in names)


def _dataset_of(name="dataset"):
    """The (id, name) of the dataset parameter ``name``: the provenance's data."""
    return lambda params: (params[name], datasets.get(params[name]).name)


def _only(names, params):
    by_name = {p.name: p for p in params}
    return tuple(by_name[n] for n in names)


def cached(kind: jobs.JobKind, params: dict, report=None) -> tuple[str, object]:
    """``(key, result)`` of ``kind`` for ``params`` (already validated): from the cache, or computed once
    under the key's lock and stored."""
    key = kind.key(params)
    return key, compute_once(key, lambda r: kind.run(params, r), report)


#: the most cross-validation folds one job runs per model (the form's bound on K; leave one application out runs
#: one fold per application and is held to it too)
MAX_FOLDS = 20


def _check_folds(params):
    """Leave-one-application-out on a dataset of many applications (an upload of hundreds) would fit every model
    once per application: held to ``MAX_FOLDS`` like K."""
    if params.get("cv") == "logo":
        n = len(datasets.get(params["dataset"]).applications())
        if n > MAX_FOLDS:
            raise InvalidParameter("cv", f"leaving one application out fits every model once per application: "
                                         f"{n} on this dataset, more than the {MAX_FOLDS} folds one job may run; "
                                         f"choose grouped K-fold by application (at most {MAX_FOLDS} folds)")


SCENARIO = jobs.JobKind("scenario", tuple(scenario_params()), work.scenario_result, _fingerprint("dataset"),
                        _check_folds, _dataset_of())

SWEEP = jobs.JobKind("sweep", _only(("dataset", "host", "target", "metric", "cv", "folds", "seed"), scenario_params()),
                     work.sweep_result, _fingerprint("dataset"), _check_folds, _dataset_of())

RANKING = jobs.JobKind("ranking", _only(("dataset", "host", "target", "metric", "model", "seed"),
                                        [*scenario_params(), model_param("model", "OLS/Forward/BIC")]),
                       work.ranking_result, _fingerprint("dataset"), dataset=_dataset_of())


# ------------------------------------------------------------------ generations

DEFAULT_TARGETS = ["Tesla-K40", "GTX-980", "Tesla-P100"]
MAX_TARGETS = 8


def _default_targets(v):
    ts = datasets.get(v["dataset"]).targets
    picked = [t for t in DEFAULT_TARGETS if t in ts and t != v["host"]]
    return picked or [t for t in ts if t != v["host"]][:3] or ts[:1]


def _check_targets(params):
    _check_folds(params)
    if not params["targets"]:
        raise InvalidParameter("targets", "choose at least one target")
    if len(params["targets"]) > MAX_TARGETS:
        raise InvalidParameter("targets", f"at most {MAX_TARGETS} targets at once")


def _generations(params, report):
    scenario_names = SCENARIO.names
    return work.generations_result(
        params, report,
        scenario=lambda p, r: cached(SCENARIO, {k: p[k] for k in scenario_names}, r))


_BASE = scenario_params(target=False)
GENERATIONS = jobs.JobKind(
    "generations",
    (*_BASE[:2], Param("targets", "multi", _default_targets, target_choices), *_BASE[2:]),
    _generations, _fingerprint("dataset"), _check_targets, _dataset_of())


# ------------------------------------------------------------------ apply

def prefer(key, attr, preferred):
    def f(v):
        opts = getattr(datasets.get(v[key]), attr)
        return preferred if preferred in opts else opts[0]
    return f


def _of(key, attr):
    return lambda v: getattr(datasets.get(v[key]), attr)


def _check_apply(params):
    if datasets.get(params["val_dataset"]).metrics != datasets.get(params["dataset"]).metrics:
        raise InvalidParameter("val_dataset", "the validation set must measure the same metric as the training set")


APPLY = jobs.JobKind("apply", (
    DatasetParam("dataset", "dataset", datasets.SHIPPED_ID),
    Param("train_host", "choice", prefer("dataset", "hosts", "Tesla-K40"), _of("dataset", "hosts")),
    Param("train_target", "choice", prefer("dataset", "targets", "GTX-980"), _of("dataset", "targets")),
    Param("metric", "choice", lambda v: datasets.get(v["dataset"]).metrics[0], _of("dataset", "metrics")),
    Param("model", "choice", "RandomForest", ALL_MODELS),
    Param("transform", "choice", "none", list(TRANSFORMS)),
    Param("holdout", "multi", [], lambda v: datasets.get(v["dataset"]).applications()),
    DatasetParam("val_dataset", "dataset", datasets.SHIPPED_ID),
    Param("val_host", "choice", prefer("val_dataset", "hosts", "Tesla-K20"), _of("val_dataset", "hosts")),
    Param("val_target", "choice", prefer("val_dataset", "targets", "GTX-980"), _of("val_dataset", "targets")),
    Param("seed", "int", 0, None, 0, 2**31 - 1),
), work.apply_result, _fingerprint("dataset", "val_dataset"), _check_apply, _dataset_of())


# ------------------------------------------------------------------ compare two saved scenarios

def _saved_ids(_v=None) -> list[str]:
    return [s["id"] for s in scenarios.list_scenarios("scenario")]


def _newest_two() -> tuple[str | None, str | None]:
    """The defaults of /compare: the two newest saved scenarios in the order they were saved (the earlier one
    as A), so a scenario saved first, often named "A", is not shown as B."""
    ids = _saved_ids()  # newest first
    return (ids[1], ids[0]) if len(ids) >= 2 else (next(iter(ids), None), None)


def saved_request(sc_id: str, slot: str) -> tuple[dict, dict]:
    """``(saved record, scenario request)`` of a saved scenario of this project; ``InvalidParameter`` naming
    ``slot`` when its inputs no longer run (a dataset deleted since, a host no longer in it)."""
    rec = scenarios.load_scenario(sc_id)
    try:
        return rec, SCENARIO.request(rec["params"])
    except (InvalidParameter, LookupError) as exc:
        raise InvalidParameter(slot, f"the saved scenario {rec['name']!r} can no longer run: "
                                     f"{message(exc)}") from exc


def _check_compare(params):
    # a saved scenario that can no longer run is refused by the key (COMPARE's fingerprint resolves both)
    if params["a"] == params["b"]:
        raise InvalidParameter("b", "choose a saved scenario other than A")


def _compare(params, report):
    return work.compare_result(params, report, saved=saved_request,
                               scenario=lambda p, r: cached(SCENARIO, p, r))


#: Two saved scenarios compared: the key is made of the two scenarios' own keys (their inputs, data and code).
COMPARE = jobs.JobKind(
    "compare", (Param("a", "choice", lambda v: _newest_two()[0], _saved_ids),
                Param("b", "choice", lambda v: _newest_two()[1], _saved_ids)),
    _compare, lambda p: "".join(saved_request(p[s], s)[1]["key"] for s in ("a", "b")), _check_compare)
