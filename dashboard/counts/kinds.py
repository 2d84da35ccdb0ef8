"""The /counts jobs: the parameters that make their keys and the work that computes them."""

from __future__ import annotations

from dashboard import jobs
from dashboard.counts import work
from dashboard.state import countdata
from dashboard.state.files import shipped_fingerprint
from dashboard.ui.url_state import Param, StoredParam
from modeling.counts import data
from modeling.counts.evaluate import MODELS
from modeling.counts.splits import SPLITS

MODEL_CHOICES = [*MODELS[:2], "pnn", *MODELS[2:]]
DEFAULT_MODELS = list(MODELS)
DEFAULT_PROGRAM = {"cpu": "gemm", "gpu": "lud_perimeter"}


def _fingerprint(params):
    """The shipped tables' bytes (an upload's id already names its content)."""
    if params["source"] not in countdata.SHIPPED:
        return params["source"]
    return shipped_fingerprint(*(file for file, _ in data.SHIPPED.values()))


def _programs(v):
    return countdata.programs(v["source"])


def _program_default(v):
    progs = _programs(v)
    want = DEFAULT_PROGRAM.get(v["source"])
    return want if want in progs else (progs[0] if progs else None)


class Models(Param):
    """The chosen models in one canonical order, so the same choice in any order is the same result."""

    def parse(self, raw, values):
        out = super().parse(raw, values)
        return sorted(out, key=MODEL_CHOICES.index)


SOURCE = StoredParam("source", "choice", countdata.DEFAULT, lookup=countdata.meta, what="count table id")
SETTINGS = (
    Param("split", "choice", "high-low", list(SPLITS)),
    Models("models", "multi", DEFAULT_MODELS, MODEL_CHOICES),
    Param("hidden", "int", 10, None, 1, 200),
    Param("activation", "choice", "tanh", ["tanh", "relu", "logistic"]),
    Param("epochs", "int", 1000, None, 10, 5000),
    Param("batch", "int", 32, None, 1, 1024),
    Param("lr", "float", 3e-3, None, 1e-5, 1.0),
    Param("seed", "int", 0, None, 0, 2**31 - 1),
)

COUNTS = jobs.JobKind("counts", (SOURCE, Param("program", "choice", _program_default, _programs), *SETTINGS),
                      work.counts_result, _fingerprint)
PROGRAMS = jobs.JobKind("countsall", (SOURCE, *SETTINGS), work.programs_result, _fingerprint)
