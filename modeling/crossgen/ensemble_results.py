"""The results of the HALWPE / RastSim ensemble (:func:`modeling.crossgen.ensemble.run_ensemble`): one
:class:`ModelResult` per model and the scenario's :class:`EnsembleResult`, typed results
(:class:`modeling.results.Result`) whose derived statistics (the best model, the ★, whether the baseline wins,
the workloads that carry a model's error) are properties here; :meth:`EnsembleResult.summary` is the JSON the
command line prints. Errors are percent: E_out (RastSim eq. 3), APE (eq. 4), inlier ratios (eq. 5)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from modeling.errors import ConfigError
from modeling.results import Fact, Note, Provenance, Result, Summary, SummaryTable


def is_nonnegative(name: str) -> bool:
    """True for the models with non-negative coefficients (HALWPE's NNLS family)."""
    return "NNLS" in name


@dataclass
class ModelResult(Result):
    """Cross-validated result of one model (all errors in percent): E_out (RastSim eq. 3), the per-workload
    APE (eq. 4) and the inlier ratios (eq. 5, keyed by the threshold as a string, ``"10"``)."""

    model: str
    e_out: float
    e_out_fold_mean: float
    e_in: float
    inlier_ratio: dict
    n_selected: int
    n_available: int
    fit_seconds: float
    oof_prediction: list = field(repr=False)
    ape: list = field(repr=False)
    fold_e_out: list = field(repr=False)
    selected: list = field(repr=False, default_factory=list)
    steps: list | None = field(repr=False, default=None)

    def ir(self, threshold: int | str) -> float:
        """The inlier ratio at ``threshold`` percent (RastSim eq. 5)."""
        return self.inlier_ratio[str(threshold)]

    @property
    def median_ape(self) -> float:
        """The median workload's APE (percent; NaN counted as 0), beside the mean that E_out is."""
        a = np.nan_to_num(np.asarray(self.ape or [], dtype=float), nan=0.0)
        return float(np.median(a)) if a.size else float("nan")

    def error_carriers(self) -> tuple[int, float, list[int]]:
        """``(k, share, order)``: the fewest workloads that carry at least half of the summed APE (RastSim
        eq. 4), the share of it they carry, and every workload's index by its APE, largest first; ``(0, 0.0,
        order)`` when the summed APE is 0."""
        a = np.nan_to_num(np.asarray(self.ape or [], dtype=float), nan=0.0)
        order = np.argsort(-a, kind="stable")
        total = a.sum()
        if a.size == 0 or total <= 0:
            return 0, 0.0, order.tolist()
        k = int(np.searchsorted(np.cumsum(a[order]), 0.5 * total) + 1)
        return k, float(a[order[:k]].sum() / total), order.tolist()

    def cli_json(self, full: bool = False) -> dict:
        """The flat JSON the command line prints (the per-workload lists only with ``full``)."""
        d = asdict(self)
        if not full:
            for k in ("oof_prediction", "ape", "fold_e_out", "selected", "steps"):
                d.pop(k)
        return d


@dataclass
class EnsembleResult(Result):
    """Leaderboard of a scenario: every model's :class:`ModelResult`, the baseline's, the workloads and what
    was left out. The derived statistics (the best model, the ★, whether the baseline wins) are properties here,
    read by the command line and the pages alike; :meth:`cli_json` is the JSON the command line prints, :meth:`summary`
    what its text says."""

    scenario: dict
    n_workloads: int
    n_features: int
    feature_names: list
    workload_ids: list
    groups: list | None
    observed: list
    baseline: ModelResult | None
    models: list
    excluded_rows: int = 0
    dropped_constant: list = field(default_factory=list)
    seconds: float = 0.0

    def best(self, nonneg_only: bool = False) -> ModelResult | None:
        pool = [m for m in self.models if (is_nonnegative(m.model) or not nonneg_only)]
        if not pool:
            return None
        return min(pool, key=lambda m: m.e_out)

    @property
    def best_model(self) -> ModelResult | None:
        """The model with the lowest E_out (the baseline not counted)."""
        return self.best()

    @property
    def best_nnls(self) -> ModelResult | None:
        """The non-negative (NNLS family) model with the lowest E_out, None when none ran."""
        return self.best(nonneg_only=True)

    @property
    def smallest_training_fold(self) -> int:
        """Workloads in the smallest training fold of the outer cross-validation (n minus the largest test
        fold)."""
        n = self.n_workloads
        folds = self.scenario.get("folds") or 10
        return n - -(-n // folds)

    @property
    def entries(self) -> dict:
        """Model name -> its :class:`ModelResult`, the baseline included when it was scored."""
        out = {m.model: m for m in self.models}
        if self.baseline is not None:
            out[self.baseline.model] = self.baseline
        return out

    @property
    def star(self) -> tuple[str, float]:
        """The leaderboard's ★: the lowest E_out among the models and the baseline (the baseline when it
        wins; ties by name)."""
        name, m = min(self.entries.items(), key=lambda kv: (kv[1].e_out, kv[0]))
        return name, float(m.e_out)

    @property
    def baseline_wins(self) -> bool:
        """No model has a lower E_out than the baseline."""
        return self.baseline is not None and self.baseline.e_out <= min(m.e_out for m in self.models)

    @property
    def names(self) -> list[str]:
        """The models' names, then the baseline's when it was scored."""
        return [m.model for m in self.models] + ([self.baseline.model] if self.baseline is not None else [])

    def model(self, name: str) -> ModelResult:
        for m in self.models:
            if m.model == name:
                return m
        if self.baseline is not None and name == self.baseline.model:
            return self.baseline
        raise ConfigError(f"Model {name!r} is not in this result.")

    def find(self, name: str) -> ModelResult | None:
        """The model (or the baseline) called ``name``, None when it did not run."""
        return self.entries.get(name)

    def cli_json(self, full: bool = False) -> dict:
        """The JSON the command line prints: the leaderboard, the best models; with ``full`` also the
        per-workload lists, feature indices as names."""
        best = self.best()
        best_nn = self.best(nonneg_only=True)
        d = {
            "scenario": self.scenario,
            "n_workloads": self.n_workloads,
            "n_features": self.n_features,
            "excluded_rows": self.excluded_rows,
            "dropped_constant": self.dropped_constant,
            "baseline": ({"e_out": None, "reason": "no host metric column"} if self.baseline is None
                         else self.baseline.cli_json(full)),
            "best": {"overall": best.model if best else None, "nnls": best_nn.model if best_nn else None},
            "models": [m.cli_json(full) for m in self.models],
            "seconds": self.seconds,
        }
        if full:
            d.update(feature_names=self.feature_names, workload_ids=self.workload_ids,
                     groups=self.groups, observed=self.observed)
            for m in d["models"]:  # feature indices -> names for display
                m["selected"] = [self.feature_names[i] for i in m["selected"]]
                for step in m["steps"] or []:
                    if step["feature"] is not None:
                        step["feature"] = self.feature_names[step["feature"]]
        return d

    def summary(self, missing_rows: int = 0, provenance: Provenance | None = None) -> Summary:
        """What the leaderboard says of itself: its ★ (the lowest E_out, the baseline counted: the page's ★) and
        that E_out, the best non-negative model, the baseline's E_out, the workloads and features; what the
        errors are; a note when the baseline is the ★ or missing; what was left out; and every entry, the
        baseline among them, by E_out."""
        import json

        import pandas as pd

        star, star_e = self.star
        nn, b = self.best_nnls, self.baseline
        sc = self.scenario
        cv = {"kfold": "random folds over workloads", "group": "folds by application",
              "logo": "one application left out at a time"}.get(sc.get("cv"), str(sc.get("cv")))
        title = f"Leaderboard: {sc['host']} → {sc['target']}" if sc.get("host") and sc.get("target") else \
            "Leaderboard"
        # keys: the ids /scenario's card gives them (scenario-best-model, ...), which its browser tests read
        facts = (Fact("★", star, key="best-model"), Fact("★ E_out", f"{star_e:.2f}", "%", key="best-eout"),
                 Fact("best non-negative (NNLS family)", nn.model if nn else "", key="nnls"),
                 Fact("baseline E_out", f"{b.e_out:.2f}" if b is not None else "", "%", key="baseline"),
                 Fact("workloads", str(self.n_workloads), key="n-workloads"),
                 Fact("features", str(self.n_features), key="n-features"))
        lead = (f"E_out: the mean absolute percentage error of each workload's out-of-fold prediction "
                f"({sc.get('folds')} {cv}); E_in: of the fit on every workload; IR@10 and IR@20: the share of "
                f"workloads predicted within 10 % and 20 %. ★: the lowest E_out, the baseline counted; +: the "
                f"lowest among the non-negative (NNLS family) models.")
        notes = []
        if self.baseline_wins:
            best = self.best_model
            notes.append(Note(f"No model has a lower E_out than the baseline ({b.e_out:.2f} %): the baseline is "
                              "the ★" + (f"; the best model, {best.model}, has {best.e_out:.2f} %" if best else "")
                              + ". Use the baseline's "
                              "numbers, or a model only where its own error is known to be lower.",
                              head="The baseline wins. ", key="baseline-wins"))
        if b is None:
            notes.append(Note("No baseline: the data has no host metric column to scale.", "info",
                              key="no-baseline"))
        details = (Fact("scenario", json.dumps(sc)),
                   Fact("left out", f"excluded (target <= 0): {self.excluded_rows}; missing rows: {missing_rows}; "
                                    f"dropped constant: {len(self.dropped_constant)}"))
        rows = []
        for m in sorted(self.entries.values(), key=lambda m: (m.e_out, m.model)):
            mark = " ★" if m.model == star else (" +" if nn is not None and m.model == nn.model else "")
            rows.append({"model": m.model + mark, "e_out": m.e_out, "e_in": m.e_in,
                         "ir10": m.inlier_ratio["10"], "ir20": m.inlier_ratio["20"],
                         "features": "1" if b is not None and m.model == b.model else
                         f"{m.n_selected}/{m.n_available}", "fit": m.fit_seconds})
        table = SummaryTable("Every model and the baseline, by E_out", pd.DataFrame(rows),
                             (("model", "model"), ("e_out", "E_out %"), ("e_in", "E_in %"), ("ir10", "IR@10 %"),
                              ("ir20", "IR@20 %"), ("features", "features"), ("fit", "fit s")),
                             {"e_out": 2, "e_in": 2, "ir10": 1, "ir20": 1, "fit": 2}, key="leaderboard",
                             text_decimals=True)
        return Summary(title, facts, lead, tuple(notes), details, (table,), provenance,
                       provenance.text("data") if provenance else "")

    def steps_of(self, name: str) -> list[dict]:
        """The stepwise steps of model ``name`` (feature indices as names; empty for a model without steps)."""
        m = self.find(name)
        if m is None or not m.steps:
            return []
        return [{**s, "feature": None if s["feature"] is None else self.feature_names[s["feature"]]}
                for s in m.steps]
