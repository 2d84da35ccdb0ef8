"""Prediction intervals for every method: the conformal machinery at the bottom of ``modeling/``.

* :mod:`modeling.intervals.conformal` - the split-conformal rank ``ceil(level (n + 1))`` and quantile, the
  fewest units a level needs (:func:`~modeling.intervals.conformal.units_needed`), CV+ and the application
  rules, and held-out coverage. Every method takes its intervals' rank from here: crossgen (CV+ and the
  application rules), phases (programs as units), plan (each round's intervals), newapp (pairs as units) and
  counts (held-out inputs' error rates).
* :mod:`modeling.intervals.split` - :class:`SplitConformalRegressor`, split conformal around any regressor
  with the call order MAPIE users know: ``fit`` -> ``conformalize`` -> ``predict_interval``.

This package imports nothing from ``modeling`` but :mod:`modeling.errors` (``tests/test_layout.py``).
"""

from modeling.intervals.conformal import conformal_quantile, conformal_rank, supported_level, units_needed
from modeling.intervals.split import SplitConformalRegressor

__all__ = ["SplitConformalRegressor", "conformal_quantile", "conformal_rank", "supported_level", "units_needed"]
