"""Feature ranking (HALWPE IV.D and Tables XIII-XV; RastSim 5.5 and Table 4).

* Stepwise OLS models (and full OLS): the selected features ranked by the
  p-value of their t-test (smaller is more significant; 0.05 is the paper's
  threshold), with coefficients.
* NNLS, Lasso and Elastic Net: features with non-zero coefficients ranked by
  the size of the standardized coefficient (HALWPE gives no p-values for NNLS:
  its constraint breaks the t-test's assumptions).
* Random Forest: the total RSS decrease of each feature's splits, as a share
  of all splits' decrease (RastSim's "RSS ranking"), and the permutation
  importance on held-out folds (increase of out-of-fold mean APE when the
  feature is shuffled), which does not favour features with many split points.

The stepwise models' p-values are the paper's column, and they are optimistic:
the t-test assumes the features were fixed in advance, while selection chose
them on the same rows. Beside them, for every linear model, two honest
numbers:

* ``selected_pct``: in how many of the CV folds (kfold, the scenario's seed)
  the model selected the feature when fitted on that fold's training rows, a
  stability measure (Meinshausen and Buehlmann's selection frequency);
* ``split_pvalue`` (OLS models): sample splitting (Wasserman and Roeder
  2009): the model selects its features on a random half of the rows, and the
  t-test runs on the other half with those features; a feature not selected on
  the first half has none.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from modeling.crossgen.ensemble import MODEL_FACTORIES, make_splits, resolve_models
from modeling.errors import ConfigError
from modeling.crossgen.linear import ols_stats
from modeling.metrics import mean_ape
from modeling.results import Fact, Provenance, Result, Summary, SummaryTable


@dataclass
class Ranking(Result):
    """The ranked features of one model: ``features`` are table rows (rank, feature, category, score, coef and
    the model family's own columns, see the module notes), most important first."""
    model: str
    kind: str
    score_name: str
    features: list  # dicts: rank, feature, category, score, coef, pvalue, ...

    @property
    def top(self) -> str | None:
        """The most important feature, None when the model selected none."""
        return self.features[0]["feature"] if self.features else None

    def cli_json(self) -> dict:
        """The JSON the command line prints (``--json``)."""
        return asdict(self)

    def summary(self, n_workloads: int | None = None, provenance: Provenance | None = None,
                top: int | None = None) -> Summary:
        """What the ranking says of itself: the model, how many features it ranked, the top one and the workloads
        it was fitted on (when given), what the score is, and the ranked features (the ``top`` first ones; every
        one for None) with the score under the model family's own name and the coefficient."""
        import pandas as pd

        facts = (Fact("model", self.model, key="model-name"),
                 Fact("ranked features", str(len(self.features)), key="n-ranked"),
                 Fact("top feature", self.top or "–", key="top-feature"))
        if n_workloads is not None:
            facts += (Fact("workloads", str(n_workloads), key="workloads"),)
        rows = self.features if top is None else self.features[:top]
        frame = pd.DataFrame(rows, columns=["rank", "feature", "category", "score", "coef"])
        table = SummaryTable("Ranked features", frame, (("rank", "rank"), ("feature", "feature"),
                                                        ("category", "category"), ("score", self.score_name),
                                                        ("coef", "coef")), key="features")
        return Summary(f"Feature ranking of {self.model}", facts, f"Score: {self.kind}.", tables=(table,),
                       provenance=provenance, provenance_text=provenance.text() if provenance else "")


def _cat(categories, j):
    return None if categories is None else categories[j]


def _selected(model, seed, X, y) -> np.ndarray:
    est = MODEL_FACTORIES[model](seed).fit(X, y)
    return np.asarray(est.selected_, dtype=int) if model.startswith("OLS") else np.flatnonzero(est.coef_)


def selection_frequency(X, y, model, seed=0, folds=10) -> np.ndarray:
    """Per feature, the % of CV folds whose training rows made ``model`` select it, shape (p,)."""
    counts = np.zeros(X.shape[1])
    splits = make_splits(len(y), "kfold", folds, None, seed)
    for train, _ in splits:
        counts[_selected(model, seed, X[train], y[train])] += 1
    return 100.0 * counts / len(splits)


def split_pvalues(X, y, model, seed=0) -> dict[int, float]:
    """Feature -> p-value of the t-test on one random half of the rows, for the features ``model``
    selected on the other half (sample splitting: selection and inference on disjoint rows)."""
    rows = np.random.default_rng(seed).permutation(len(y))
    half_a, half_b = rows[: len(y) // 2], rows[len(y) // 2:]
    sel = _selected(model, seed, X[half_a], y[half_a])
    if sel.size == 0 or len(half_b) - sel.size - 1 <= 0:
        return {}
    st = ols_stats(X[half_b], y[half_b], sel)
    return {int(j): float(p) for j, p in zip(sel, st.pvalues)}


def rank_features(X, y, names, model="OLS/Forward/BIC", categories=None, seed=0,
                  permutation=True, perm_repeats=3, perm_folds=5, selection_folds=10) -> Ranking:
    """Rank the features of ``model`` fitted on all rows of (X, y); linear models also report how
    often each feature is selected across ``selection_folds`` CV folds, OLS models sample-split
    p-values (see the module notes)."""
    resolve_models([model])
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    est = MODEL_FACTORIES[model](seed).fit(X, y)
    std_x = X.std(axis=0)
    rows = []
    if model == "RandomForest":
        rss = est.rss_importance()
        share = 100.0 * rss / rss.sum() if rss.sum() > 0 else rss
        perm = _permutation(X, y, seed, perm_repeats, perm_folds) if permutation else None
        order = np.argsort(-share, kind="stable")
        for r, j in enumerate(order, 1):
            rows.append({"rank": r, "feature": names[j], "category": _cat(categories, j),
                         "score": float(share[j]), "rss_decrease": float(rss[j]),
                         "permutation": None if perm is None else float(perm[j]), "coef": None})
        return Ranking(model, "RSS importance (% of total)", "rss_share_pct", rows)
    freq = selection_frequency(X, y, model, seed, selection_folds)
    if model.startswith("OLS"):
        sel = np.asarray(est.selected_, dtype=int)
        st = ols_stats(X, y, sel)
        split = split_pvalues(X, y, model, seed)
        order = np.lexsort((-np.abs(st.tvalues), np.nan_to_num(st.pvalues, nan=np.inf)))
        for r, i in enumerate(order, 1):
            j = int(sel[i])
            rows.append({"rank": r, "feature": names[j], "category": _cat(categories, j),
                         "score": float(st.pvalues[i]), "pvalue": float(st.pvalues[i]),
                         "tvalue": float(st.tvalues[i]), "coef": float(st.coef[i]),
                         "std_coef": float(st.coef[i] * std_x[j] / (y.std() or 1.0)),
                         "significant": bool(st.pvalues[i] < 0.05), "selected_pct": float(freq[j]),
                         "split_pvalue": split.get(j)})
        return Ranking(model, "p-value of the t-test (smaller is more significant)", "pvalue", rows)
    coef = est.coef_
    stdc = coef * std_x / (y.std() or 1.0)
    nz = np.flatnonzero(coef)
    order = nz[np.argsort(-np.abs(stdc[nz]), kind="stable")]
    for r, j in enumerate(order, 1):
        rows.append({"rank": r, "feature": names[j], "category": _cat(categories, j),
                     "score": float(abs(stdc[j])), "coef": float(coef[j]), "std_coef": float(stdc[j]),
                     "selected_pct": float(freq[j])})
    return Ranking(model, "size of the standardized coefficient", "abs_std_coef", rows)


def _permutation(X, y, seed, repeats, folds):
    """Mean increase of held-out mean APE (percentage points) when a column is shuffled."""
    from sklearn.model_selection import KFold

    if len(y) < folds:
        raise ConfigError("Too few workloads for permutation importance.")
    rng = np.random.default_rng(seed)
    inc = np.zeros(X.shape[1])
    for train, test in KFold(folds, shuffle=True, random_state=seed).split(X):
        est = MODEL_FACTORIES["RandomForest"](seed).fit(X[train], y[train])
        Xt, yt = X[test], y[test]
        base = mean_ape(yt, est.predict(Xt))
        # one batched predict per repeat: all permuted copies stacked
        for _ in range(repeats):
            stack = np.repeat(Xt[None], X.shape[1], axis=0)
            for j in range(X.shape[1]):
                stack[j, :, j] = rng.permutation(Xt[:, j])
            pred = est.predict(stack.reshape(-1, X.shape[1])).reshape(X.shape[1], -1)
            inc += np.array([mean_ape(yt, row) for row in pred]) - base
    return inc / (folds * repeats)
