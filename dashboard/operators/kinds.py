"""The /operators job: the parameters that make its key and the work that computes it.

Every value the browser sends is parsed here, on the server: the listed GPU a choice of the device table, the
spec fields finite numbers (their plausibility, and their units, checked by
:func:`modeling.operators.specs.validate_spec`, whose message names the field), the transformer layer's sizes
whole numbers within :data:`modeling.operators.model.LAYER_LIMITS`, the fit a choice.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from dashboard import jobs
from dashboard.operators import work
from dashboard.ui.url_state import InvalidParameter, Param
from modeling.errors import DataError
from modeling.operators.model import LAYER_LIMITS, OPERATORS_FILE, check_layer
from modeling.operators.specs import DEVICES_FILE, LIMITS

SPEC_PARAMS = work.SPEC_PARAMS
LAYER_PARAMS = {"batch": 8, "seq": 512, "hidden": 1024, "heads": 16}
FITS = {"full": "full: every operator of the five training GPUs",
        "quick": f"quick: {work.QUICK} operators per training GPU and kind"}
DEFAULT_GPU = "H100"


class FiniteParam(Param):
    """A finite number (an int or a float); its plausibility is the spec sheet's check, which names the unit."""

    def parse(self, raw, values):
        if raw is None or raw == "":
            return self.default(values) if callable(self.default) else self.default
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            raise InvalidParameter(self.name, "expected a number")
        try:
            f = float(raw)
        except (TypeError, ValueError, OverflowError):
            raise InvalidParameter(self.name, f"{str(raw)[:40]!r} is not a number") from None
        if f != f or f in (float("inf"), float("-inf")):
            raise InvalidParameter(self.name, "must be a finite number")
        return f


def _listed(v):
    return work.gpu_names()


def _spec_default(key):
    return lambda v: work.listed_spec(v["gpu"]).values()[key]


def _check(params):
    try:
        work.spec_of(params)
    except DataError as exc:
        text = str(exc)
        bad = next((p for p, k in SPEC_PARAMS.items() if f"{k} " in text), "bw")
        raise InvalidParameter(bad, text) from None
    try:
        check_layer(params["batch"], params["seq"], params["hidden"], params["heads"])
    except DataError as exc:
        raise InvalidParameter("heads", str(exc)) from None


@lru_cache(maxsize=1)
def _fingerprint_files() -> str:
    h = hashlib.sha256()
    for path in (OPERATORS_FILE, DEVICES_FILE):
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def fingerprint(params) -> str:
    return _fingerprint_files()


def dataset_of(params) -> tuple[str, str]:
    return "neusight", "NeuSight operator latencies (MIT)"


OPERATORS = jobs.JobKind("operators", (
    Param("gpu", "choice", DEFAULT_GPU, _listed),
    *[FiniteParam(p, "float", _spec_default(k)) for p, k in SPEC_PARAMS.items()],
    *[Param(p, "int", d, None, *LAYER_LIMITS[p]) for p, d in LAYER_PARAMS.items()],
    Param("fit", "choice", "full", list(FITS)),
), work.operators_result, fingerprint, _check, dataset_of)

assert set(SPEC_PARAMS.values()) == set(LIMITS)
