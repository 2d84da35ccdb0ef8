"""Scenario parameters shared by the cross-generation pages, and their controls."""

from __future__ import annotations

import numpy as np
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.state import datasets
from dashboard.ui.components import alert
from dashboard.ui.fields import dropdown, field, wide
from dashboard.ui.url_state import InvalidParameter, Param, parse
from modeling.crossgen.ensemble import ALL_MODELS, PRESETS, TRANSFORMS
from modeling.crossgen.transform_choice import TransformChoice, default_transform, transform_warning
from modeling.shipped import METRIC_LABELS  # noqa: F401 - the metrics in words, for the pages too


DEFAULT_HOST = "GTX-680"


DEFAULT_TARGET = "GTX-980"


CV_LABELS = {"kfold": "random K-fold (papers: 10)", "group": "grouped K-fold by application",
             "logo": "leave one application out"}


TRANSFORM_LABELS = dict(zip(TRANSFORMS, ("none (papers)", "log", "ratio to host metric",
                                                "log of the ratio to host metric")))


class DatasetParam(Param):
    """A dataset id: the shipped one or a saved upload; a deleted one is 'not found'."""

    def parse(self, raw, values):
        raw = raw or datasets.SHIPPED_ID
        if not isinstance(raw, str):
            raise InvalidParameter(self.name, "expected a dataset id")
        if raw != datasets.SHIPPED_ID and not datasets.DATASET_ID.match(raw):
            raise InvalidParameter(self.name, f"{raw[:40]!r} is not a dataset id")
        datasets.get(raw)  # raises files.NotFound for a deleted dataset
        return raw


def _ds(values):
    return datasets.get(values["dataset"])


def dataset_of(values):
    """The dataset the validated values so far name (``values["dataset"]``)."""
    return _ds(values)


def _default_host(values):
    hosts = _ds(values).hosts
    return DEFAULT_HOST if DEFAULT_HOST in hosts else hosts[0]


def preferred_target(values, *names: str):
    """The first of ``names`` among the target choices, else the first choice."""
    ts = target_choices(values)
    return next((t for t in names if t in ts), ts[0])


def _default_target(values):
    ts = [t for t in _ds(values).targets if t != values.get("host")]
    return DEFAULT_TARGET if DEFAULT_TARGET in ts else (ts or _ds(values).targets)[0]


def target_choices(values):
    """Target choices: every target of the dataset but the host itself."""
    return [t for t in _ds(values).targets if t != values.get("host")] or _ds(values).targets


class TargetParam(Param):
    """A target device or column; the host itself is refused with the reason, not as an unknown value."""

    def parse(self, raw, values):
        if isinstance(raw, str) and raw == values.get("host") and raw in _ds(values).targets:
            raise InvalidParameter(self.name, f"{raw} is the host: choose another GPU to predict")
        return super().parse(raw, values)


def transform_choice(values: dict) -> TransformChoice | None:
    """The rule's default transform for an uploaded dataset's target (``default_transform`` on the target
    and the host metric of ``values``' dataset), or None for the shipped dataset, whose default stays the
    papers' "none" (links and tests depend on it)."""
    ds = _ds(values)
    if ds.kind == "shipped" or values.get("target") not in ds.targets:
        return None
    y = ds.target_values(values["target"], values.get("metric"))
    host = ds.host_metric(values.get("host"), values.get("metric"))
    return default_transform(y.to_numpy(dtype=float), None if host is None else host.to_numpy(dtype=float))


def _default_transform(values):
    choice = transform_choice(values) if "target" in values else None
    return choice.transform if choice else "none"


def pair_params(*targets: str) -> list[Param]:
    """The dataset, its host, the target and the metric of a job on one host → target pair (/predict, /new-app,
    /plan): the target defaults to the first of ``targets`` the dataset has beside the host, else its first."""
    return [DatasetParam("dataset", "dataset", datasets.SHIPPED_ID),
            Param("host", "choice", _default_host, lambda v: _ds(v).hosts),
            TargetParam("target", "choice", lambda v: preferred_target(v, *targets), target_choices),
            Param("metric", "choice", lambda v: _ds(v).metrics[0], lambda v: _ds(v).metrics)]


def scenario_params(target=True) -> list[Param]:
    ps = [
        DatasetParam("dataset", "dataset", datasets.SHIPPED_ID),
        Param("host", "choice", _default_host, lambda v: _ds(v).hosts),
    ]
    if target:
        ps.append(TargetParam("target", "choice", _default_target, target_choices))
    ps += [
        Param("metric", "choice", lambda v: _ds(v).metrics[0], lambda v: _ds(v).metrics),
        Param("preset", "choice", "halwpe", list(PRESETS)),
        Param("cv", "choice", "kfold", list(CV_LABELS)),
        Param("folds", "int", default_folds, None, 2, 20),
        Param("transform", "choice", _default_transform, list(TRANSFORMS)),
        Param("seed", "int", 0, None, 0, 2**31 - 1),
    ]
    return ps


def default_folds(values) -> int:
    """10 folds (the papers'), or as many as the target has measured workloads when that is fewer (3
    workloads: 3 folds, leave one out), never below 2."""
    try:
        ds = _ds(values)
        target = values.get("target")
        if target is None or target not in ds.targets:
            return 10
        y = ds.target_values(target, values.get("metric")).to_numpy(dtype=float)
    except (LookupError, KeyError, TypeError, ValueError):
        return 10
    return int(min(10, max(2, int((np.isfinite(y) & (y > 0)).sum()))))


def model_param(name="model", default="RandomForest") -> Param:
    return Param(name, "choice", default, ALL_MODELS)


def scenario_controls(prefix: str, v: dict, target=True, multi_targets=None) -> list:
    ds = datasets.get(v["dataset"])
    ctrls = [
        wide(field("Dataset", dropdown(f"{prefix}-dataset", datasets.options(), v["dataset"]))),
        field("Host (features measured on)", dropdown(f"{prefix}-host", [{"label": ds.host_label(h), "value": h}
                                                                       for h in ds.hosts], v["host"])),
    ]
    if target:
        ctrls.append(field("Target (predicted)", dropdown(f"{prefix}-target", target_choices(v), v["target"])))
    if multi_targets is not None:
        ctrls.append(wide(field("Targets", dropdown(f"{prefix}-targets", target_choices(v), multi_targets,
                                                    multi=True))))
    ctrls += [
        field("Metric", dropdown(f"{prefix}-metric", [{"label": METRIC_LABELS[m], "value": m} for m in ds.metrics],
                                 v["metric"])),
        field("Models", dropdown(f"{prefix}-preset", [{"label": f"{k} ({len(m)} models)", "value": k}
                                                      for k, m in PRESETS.items()], v["preset"])),
        wide(field("Cross-validation", dropdown(f"{prefix}-cv", [{"label": lab, "value": k}
                                                                 for k, lab in CV_LABELS.items()], v["cv"]))),
        field("Folds", dcc.Input(id=f"{prefix}-folds", type="number", min=2, max=20, step=1, value=v["folds"],
                                 className="num-input", disabled=v["cv"] == "logo"),
              html.Span(folds_hint(v["dataset"], v["cv"]), id=f"{prefix}-folds-hint")),
        field("Target transform", dropdown(f"{prefix}-transform", [{"label": lab, "value": k}
                                                                   for k, lab in TRANSFORM_LABELS.items()],
                                           v["transform"])),
        field("Seed", dcc.Input(id=f"{prefix}-seed", type="number", min=0, step=1, value=v["seed"],
                                className="num-input")),
    ]
    return ctrls


def folds_hint(ds_id, cv) -> str | None:
    """What the Folds field means under ``cv``: leave-one-application-out has one fold per application (the
    field is not used), grouped K-fold at most that many."""
    if cv not in ("logo", "group"):
        return None
    try:
        n = len(datasets.get(ds_id).applications())
    except (LookupError, TypeError):
        return None
    if cv == "logo":
        return f"not used: one fold per application ({n} here)"
    return f"at most {n}, the applications in this dataset"


def register_folds_hint(prefix: str) -> None:
    """Under leave-one-application-out the Folds field is off and says how many folds the applications make;
    under grouped K-fold it says the most it can be."""

    @callback(Output(f"{prefix}-folds", "disabled"), Output(f"{prefix}-folds-hint", "children"),
              Input(f"{prefix}-cv", "value"), Input(f"{prefix}-dataset", "value"), prevent_initial_call=True)
    def _folds(cv, ds_id):
        return cv == "logo", folds_hint(ds_id, cv)


def transform_note(values: dict, transform) -> list:
    """Before the run, for an uploaded dataset: which transform the rule chose for its target and why, and
    a warning when ``transform`` fits absolute values of a target that spans orders of magnitude. Empty for
    the shipped dataset. ``values`` are validated scenario parameters; ``transform`` is checked here."""
    try:
        choice = transform_choice(values)
    except (LookupError, KeyError, TypeError, ValueError):
        return []
    if choice is None:
        return []
    label = TRANSFORM_LABELS[choice.transform]
    out = [html.P([html.Strong("Default transform: "), f"{label}. {choice.reason}"], className="hint")]
    warning = transform_warning(transform, choice) if transform in TRANSFORMS else None
    if warning:
        out.append(alert(warning, "warning"))
    return out


def register_dataset_dependents(prefix: str, target=True, multi_targets=False) -> None:
    """When the dataset changes, refresh host/target/metric choices."""
    outs = [Output(f"{prefix}-host", "options"), Output(f"{prefix}-host", "value"),
            Output(f"{prefix}-metric", "options"), Output(f"{prefix}-metric", "value")]
    if target:
        outs += [Output(f"{prefix}-target", "options"), Output(f"{prefix}-target", "value")]
    if multi_targets:
        outs += [Output(f"{prefix}-targets", "options"), Output(f"{prefix}-targets", "value")]

    @callback(*outs, Input(f"{prefix}-dataset", "value"), prevent_initial_call=True)
    def _refresh(ds_id):
        try:
            ds = datasets.get(ds_id)
        except (LookupError, TypeError):
            return [no_update] * len(outs)
        host = DEFAULT_HOST if DEFAULT_HOST in ds.hosts else ds.hosts[0]
        vals = {"dataset": ds_id, "host": host}
        tg = target_choices(vals)
        res = [[{"label": ds.host_label(h), "value": h} for h in ds.hosts], host,
               [{"label": METRIC_LABELS[m], "value": m} for m in ds.metrics], ds.metrics[0]]
        if target:
            res += [tg, _default_target(vals)]
        if multi_targets:
            res += [tg, tg[:3]]
        return res

    if target or multi_targets:
        name = "target" if target else "targets"

        @callback(Output(f"{prefix}-{name}", "options", allow_duplicate=True),
                  Output(f"{prefix}-{name}", "value", allow_duplicate=True),
                  Input(f"{prefix}-host", "value"), State(f"{prefix}-dataset", "value"),
                  State(f"{prefix}-{name}", "value"), prevent_initial_call=True)
        def _host_changed(host, ds_id, current):
            """The host is never among the targets: a new host leaves the target list (and the choice)."""
            try:
                ds = datasets.get(ds_id)
            except (LookupError, TypeError):
                return no_update, no_update
            if host not in ds.hosts:
                return no_update, no_update
            vals = {"dataset": ds_id, "host": host}
            tg = target_choices(vals)
            if multi_targets:
                kept = [t for t in current if t in tg] if isinstance(current, list) else []
                return tg, kept or tg[:3]
            return tg, current if current in tg else _default_target(vals)


def _scenario_values(raw: dict) -> dict | None:
    """dataset, host, target and metric as the browser sent them, validated; None when any is invalid."""
    try:
        return parse(raw, [p for p in scenario_params() if p.name in ("dataset", "host", "target", "metric")])
    except (InvalidParameter, LookupError, TypeError):
        return None


def register_transform_note(prefix: str) -> None:
    """On an uploaded dataset: a new target (or dataset) takes the rule's default transform, and the note
    before the run says which transform was chosen and why, with a warning when the chosen one fits absolute
    values of a target that spans orders of magnitude. The shipped dataset keeps the user's transform."""

    @callback(Output(f"{prefix}-transform", "value", allow_duplicate=True),
              Input(f"{prefix}-dataset", "value"), Input(f"{prefix}-target", "value"),
              State(f"{prefix}-host", "value"), State(f"{prefix}-metric", "value"), prevent_initial_call=True)
    def _default_for_target(ds_id, target, host, metric):
        v = _scenario_values({"dataset": ds_id, "host": host, "target": target, "metric": metric})
        choice = transform_choice(v) if v else None
        return choice.transform if choice else no_update

    @callback(Output(f"{prefix}-transform-note", "children"),
              Input(f"{prefix}-dataset", "value"), Input(f"{prefix}-host", "value"),
              Input(f"{prefix}-target", "value"), Input(f"{prefix}-metric", "value"),
              Input(f"{prefix}-transform", "value"), prevent_initial_call=True)
    def _note(ds_id, host, target, metric, transform):
        v = _scenario_values({"dataset": ds_id, "host": host, "target": target, "metric": metric})
        return transform_note(v, transform) if v else []
