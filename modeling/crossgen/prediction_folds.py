"""The cross-validation folds of a prediction (:mod:`modeling.crossgen.predict`): the outer folds its
intervals are calibrated on (random K-fold over workloads for new inputs; leave-one-application-out, or K-fold
over applications above :data:`LOGO_MAX_GROUPS`, for new applications), the inner folds "recommended" chooses
its model on, and the check that every fold leaves enough workloads to fit a model."""

from __future__ import annotations

import numpy as np

from modeling.crossgen.ensemble import make_splits
from modeling.crossgen.situations import NEW_APPLICATIONS, NEW_INPUTS
from modeling.errors import ConfigError, NotEnoughDataError

LOGO_MAX_GROUPS = 20
INNER_FOLDS = 5


def splits_for(n, situation, groups, folds, seed, inner=False):
    """(splits, cv, folds, label) of the cross-validation for ``situation``."""
    if situation == NEW_INPUTS:
        k = min(INNER_FOLDS if inner else folds, n)
        return make_splits(n, "kfold", k, None, seed), "kfold", k, f"random {k}-fold over workloads"
    if groups is None:
        raise ConfigError("Predicting for applications not in the training data needs the application (group) "
                          "of every training workload: map a group column.")
    g = len(np.unique(groups))
    if g < 2:
        raise NotEnoughDataError(f"The training data has {g} application; holding one out needs at least 2.")
    if g <= LOGO_MAX_GROUPS or (inner and g <= INNER_FOLDS):
        return make_splits(n, "logo", folds, groups, seed), "logo", g, f"leave-one-application-out ({g} applications)"
    k = INNER_FOLDS if inner else min(folds, g)
    return make_splits(n, "group", k, groups, seed), "group", k, f"{k}-fold over applications ({g} applications)"


#: fewest workloads a model is fitted on (``modeling.crossgen.estimators``)
MIN_FIT = 3


def enough_per_fold(splits, y, groups, scheme: str, situation: str, fixed: bool, seed: int) -> None:
    """Refuse, saying what to change, a training set too small for its cross-validation: each outer fold
    fits on the workloads outside it, and "recommended" also chooses a model by an inner cross-validation of
    those (each inner fold again fits on the workloads outside it; ``fixed``: one model and transform, no
    choice)."""
    n = len(y)
    smallest = min(len(tr) for tr, _ in splits)
    if smallest < MIN_FIT:
        if situation == NEW_APPLICATIONS:  # one large application held out leaves the small ones
            raise NotEnoughDataError(
                f"{scheme}: holding out one application leaves {smallest} measured workloads to fit on, and a model "
                f"needs at least {MIN_FIT}. Measure more workloads of the other applications, or more "
                "applications, or predict for known applications at new inputs.")
        raise NotEnoughDataError(
            f"{n} measured workloads are too few for {scheme}: a fold's model would be fitted on {smallest}, and "
            f"a model needs at least {MIN_FIT}. Measure more workloads on the target.")
    if fixed:
        return
    inner = min(min(len(itr) for itr, _ in splits_for(len(tr), situation, None if groups is None else groups[tr],
                                                   INNER_FOLDS, seed, inner=True)[0])
                for tr, _ in splits)
    if inner < MIN_FIT:
        raise NotEnoughDataError(
            f"{n} measured workloads are too few to choose the model by cross-validation within {scheme}: its "
            f"inner folds would fit on {inner}, and a model needs at least {MIN_FIT}. Pick one model and one "
            f"transform instead of \"recommended\" / \"auto\" (each fold then fits on {smallest}), or measure more "
            f"workloads on the target.")
