"""Random Forest tree-count sweep (RastSim 4.4, Figs. 11-12).

RastSim fits forests with n = 2^i trees, 1 <= i <= 10, and keeps the n with the
lowest E_out. Forests of n trees are evaluated here as the first n trees of one
1024-tree forest per fold: each prefix is itself a random forest of n trees
(trees are independent draws), and growing one forest instead of ten cuts the
cost by half.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from modeling.metrics import THRESHOLDS, ape, inlier_ratios
from modeling.crossgen.estimators import ForestRegressor
from modeling.parallel import map_unordered
from modeling.results import Fact, Provenance, Result, Summary, SummaryTable

TREE_COUNTS = tuple(2**i for i in range(1, 11))


@dataclass
class SweepResult(Result):
    """E_out and inlier ratios per tree count, and the count with the lowest E_out (RastSim 4.4)."""
    n_trees: list
    e_out: list  # percent, one per tree count
    inlier_ratio: list  # dict threshold -> percent, one per tree count
    best_n: int

    def ir(self, threshold: int | str) -> list[float]:
        """The inlier ratio at ``threshold`` percent, one per tree count."""
        return [r[str(threshold)] for r in self.inlier_ratio]

    def cli_json(self) -> dict:
        """The JSON the command line prints (``--json``)."""
        return asdict(self)

    def summary(self, provenance: Provenance | None = None) -> Summary:
        """What the sweep says of itself: the tree count with the lowest E_out and that E_out, what the numbers
        are, and E_out and the inlier ratios at 10 % and 20 % per tree count (the figure's numbers)."""
        import pandas as pd

        best = self.n_trees.index(self.best_n)
        frame = pd.DataFrame({"trees": self.n_trees, "e_out": self.e_out, "ir10": self.ir(10), "ir20": self.ir(20)})
        table = SummaryTable("E_out and inlier ratios per tree count", frame,
                             (("trees", "trees"), ("e_out", "E_out %"), ("ir10", "IR@10 %"), ("ir20", "IR@20 %")),
                             {"e_out": 2, "ir10": 1, "ir20": 1}, key="sweep", text_decimals=True)
        return Summary("Random Forest tree sweep",
                       (Fact("best tree count", str(self.best_n), key="best-n"),
                        Fact("its E_out", f"{self.e_out[best]:.2f}", "%", key="best-e-out")),
                       "E_out is the mean absolute percentage error of the out-of-fold predictions (RastSim eq. 3) of "
                       "a forest of the first n trees of one forest per fold; IR@10 and IR@20 are the shares of "
                       "workloads predicted within 10 % and 20 % (eq. 5). The best count has the lowest E_out.",
                       tables=(table,), provenance=provenance,
                       provenance_text=provenance.text() if provenance else "")


def tree_sweep(X, y, splits, tree_counts=TREE_COUNTS, seed=0, n_jobs=None, progress=None) -> SweepResult:
    """E_out and inlier ratios of forests of each size, out of fold.

    Parameters
    ----------
    X : array (n, p); y : array (n,)
    splits : list of (train_idx, test_idx)
    tree_counts : increasing tree counts (default 2, 4, ..., 1024)
    n_jobs : worker processes for the folds (1 or None: in this process)
    progress : callable(done, total, label), optional, called after each fold
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    counts = sorted(int(c) for c in tree_counts)
    nmax = counts[-1]
    preds = {c: np.empty_like(y) for c in counts}

    def one_fold(fold):
        train, test = splits[fold]
        # the leaderboard's rule: every fold's forest is seeded with the scenario's seed
        model = ForestRegressor(nmax, random_state=seed).fit(X[train], y[train])
        return fold, np.cumsum(model.tree_predictions(X[test]), axis=0)

    outputs = map_unordered(one_fold, range(len(splits)), n_jobs)
    for done, (fold, csum) in enumerate(outputs, 1):
        test = splits[fold][1]
        for c in counts:
            preds[c][test] = csum[c - 1] / c
        if progress:
            progress(done, len(splits), f"fold {fold + 1} of {len(splits)}: {nmax} trees")
    e_out, irs = [], []
    for c in counts:
        a = ape(y, preds[c])
        e_out.append(float(a.mean()))
        irs.append(inlier_ratios(a, THRESHOLDS))
    return SweepResult(counts, e_out, irs, counts[int(np.argmin(e_out))])
