"""Train/test splits of a program's input sizes (BB-ML 4.3).

- high-low: a size is *low* when it is at most min + 0.7 x (max - min) of that parameter over the program's
  points; points with every size low train, points with every size high test, points mixing both are left out;
- mixed: as high-low, with the mixed points added to training;
- random: 70 % of the points train, 30 % test, seeded.
"""

from __future__ import annotations

import numpy as np

from modeling.errors import ConfigError, NotEnoughDataError

SPLITS = ("high-low", "mixed", "random")
LOW_FRACTION = 0.7


def low_mask(X: np.ndarray, fraction: float = LOW_FRACTION) -> np.ndarray:
    """Per point and parameter: is the size in the lower ``fraction`` of that parameter's range?"""
    lo, hi = X.min(axis=0), X.max(axis=0)
    return X <= lo + fraction * (hi - lo)


def split(X: np.ndarray, kind: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(train indices, test indices); ``NotEnoughDataError`` when either side is empty."""
    n = len(X)
    if kind == "random":
        rng = np.random.default_rng(seed)
        order = rng.permutation(n)
        k = int(round(0.7 * n))
        train, test = np.sort(order[:k]), np.sort(order[k:])
    elif kind in ("high-low", "mixed"):
        varying = X.max(axis=0) > X.min(axis=0)
        low = low_mask(X[:, varying])
        all_low, all_high = low.all(axis=1), (~low).all(axis=1)
        train = np.flatnonzero(all_low if kind == "high-low" else ~all_high)
        test = np.flatnonzero(all_high)
    else:
        raise ConfigError(f"unknown split {kind!r} (choose {', '.join(SPLITS)})")
    if len(test) == 0:
        raise NotEnoughDataError(f"The {kind} split leaves no test points: no input has every size above "
                                 f"{LOW_FRACTION:.0%} of its range. Measure larger inputs or choose another split.")
    if len(train) < 3:
        raise NotEnoughDataError(f"The {kind} split leaves {len(train)} training point(s); at least 3 are needed.")
    return train, test


def inner_split(X: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A split of the training points for choosing (degree, model per block): high-low within them when
    that leaves enough on both sides, else random 70/30; under 5 points, all of them on both sides (the choice
    is then made on the fit itself)."""
    if len(X) < 5:
        idx = np.arange(len(X))
        return idx, idx
    try:
        fit, val = split(X, "high-low", seed)
        if len(fit) >= max(3, len(X) // 4):
            return fit, val
    except NotEnoughDataError:
        pass
    return split(X, "random", seed)
