"""The /counts jobs: the parameters that make their keys and the work that computes them."""

from __future__ import annotations

from dashboard import jobs
from dashboard.counts import sources, work
from dashboard.ui.url_state import InvalidParameter, Param, StoredParam
from modeling.counts import data
from modeling.counts.evaluate import MODELS
from modeling.counts.models import ACTIVATIONS, NETWORK_BOUNDS, PNN_PRESETS
from modeling.counts.predict import MAX_SPEC_CHARS, PREDICT_MODELS
from modeling.counts.splits import SPLITS
from modeling.errors import ModelingError

MODEL_CHOICES = [*MODELS[:2], "pnn", *MODELS[2:]]
DEFAULT_MODELS = list(MODELS)
DEFAULT_PROGRAM = {"cpu": "gemm", "gpu": "lud_perimeter"}


def _fingerprint(params):
    """The shipped tables' bytes (an upload's id already names its content)."""
    return table_fingerprint(params["source"])


table_fingerprint = work.table_fingerprint


def _programs(v):
    return sources.programs(v["source"])


def _program_default(v):
    progs = _programs(v)
    want = DEFAULT_PROGRAM.get(v["source"])
    return want if want in progs else (progs[0] if progs else None)


class Models(Param):
    """The chosen models in one canonical order, so the same choice in any order is the same result."""

    def parse(self, raw, values):
        out = super().parse(raw, values)
        return sorted(out, key=MODEL_CHOICES.index)


_TUNED = PNN_PRESETS["tuned"]  # the custom network starts from the tuned preset
SOURCE = StoredParam("source", "choice", sources.DEFAULT, lookup=sources.meta, what="count table id")
SETTINGS = (
    Param("split", "choice", "high-low", list(SPLITS)),
    Models("models", "multi", DEFAULT_MODELS, MODEL_CHOICES),
    Param("hidden", "int", 10, None, *NETWORK_BOUNDS["hidden"]),
    Param("activation", "choice", _TUNED["activation"], list(ACTIVATIONS)),
    Param("epochs", "int", _TUNED["epochs"], None, *NETWORK_BOUNDS["epochs"]),
    Param("batch", "int", _TUNED["batch_size"], None, *NETWORK_BOUNDS["batch_size"]),
    Param("lr", "float", _TUNED["learning_rate"], None, *NETWORK_BOUNDS["learning_rate"]),
    Param("seed", "int", 0, None, 0, 2**31 - 1),
)
#: each setting by its link name (the form reads its bounds here)
SETTING = {p.name: p for p in SETTINGS}



# ------------------------------------------------------------------ what one job may cost

def network_steps(params: dict, rows: list[int], curve: bool) -> int:
    """An upper bound of the mini-batch steps the networks of one job train: per chosen network (the two
    presets, the custom ``pnn``), per program of ``rows`` rows, ``epochs x ceil(rows / batch)`` per fit, and
    ``SEEDS`` fits, one more on the inner split that picks each block's model, and one per point of the
    training-size curve (``curve``: the one-program job). All of a program's rows are counted (a split trains
    on fewer). A step costs 0.2-0.4 ms of a core (sklearn's MLP, 10-200 hidden units, measured on the shipped
    tables): the step count is what the network settings multiply."""
    from modeling.counts.evaluate import CURVE_FRACTIONS, SEEDS

    nets = {"pnn-paper": PNN_PRESETS["paper"], "pnn-tuned": PNN_PRESETS["tuned"],
            "pnn": {"epochs": params["epochs"], "batch_size": params["batch"]}}
    fits = SEEDS + 1 + (len(CURVE_FRACTIONS) if curve else 0)
    return sum(fits * s["epochs"] * -(-n // max(1, min(s["batch_size"], n)))
               for m, s in nets.items() if m in params["models"] for n in rows)


def _bounded(every: bool):
    """The check of a count job's settings: its networks' steps within ``JOB_MAX_NETWORK_STEPS``, so that no
    setting (5,000 epochs of batch 1 over every program: hours) holds a job slot for long."""
    def check(params):
        from dashboard import settings

        table = sources.frame(params["source"])
        names = data.programs(table) if every else [params["program"]]
        steps = network_steps(params, [len(data.program(table, n).X) for n in names], curve=not every)
        limit = settings.JOB_MAX_NETWORK_STEPS
        if steps > limit:
            where = f"{len(names)} programs" if every else "this program"
            raise InvalidParameter("epochs", f"the networks of this job would train {steps:,} steps (epochs x "
                                   f"mini-batches, over {where}), more than the {limit:,} one job may take (about "
                                   f"{limit * 0.3e-3 / 60:.0f} minutes of a core): choose fewer epochs, a larger "
                                   "batch or fewer network models" + ("" if not every else ", or one program"))
    return check


COUNTS = jobs.JobKind("counts", (SOURCE, Param("program", "choice", _program_default, _programs), *SETTINGS),
                      work.counts_result, _fingerprint, _bounded(every=False), work.table_of)
PROGRAMS = jobs.JobKind("countsall", (SOURCE, *SETTINGS), work.programs_result, _fingerprint, _bounded(every=True),
                        work.table_of)


# ------------------------------------------------------------------ predict at new inputs

#: the models the page predicts with (the custom network needs the evaluation's settings: command line only)
PREDICT_CHOICES = [m for m in PREDICT_MODELS if m != "pnn"]


def program_params(source: str, program: str) -> tuple[str, ...]:
    return data.program(sources.frame(source), program).params


def default_inputs(params: tuple[str, ...], measured_max: dict) -> str:
    """Twice and 8 times the largest measured size of every parameter: an input never run."""
    return "; ".join(",".join(f"{p}={int(measured_max[p] * f)}" for p in params) for f in (2, 8))


def _at_default(v):
    prog = data.program(sources.frame(v["source"]), v["program"])
    return default_inputs(prog.params, dict(zip(prog.params, prog.X.max(axis=0))))


split_specs = work.split_specs


class InputsParam(Param):
    """The inputs to predict at, as typed (``N=4096,M=2048; N=1024,2048 x M=512``), checked against the
    program's parameters on the server (names, positive finite numbers, at most 1,000 points)."""

    def parse(self, raw, values):
        if raw is None or raw == "":
            return self.default(values)
        if not isinstance(raw, str):
            raise InvalidParameter(self.name, "expected text such as N=4096,M=2048")
        if len(raw) > MAX_SPEC_CHARS:
            raise InvalidParameter(self.name, f"longer than {MAX_SPEC_CHARS:,} characters")
        text = " ".join(raw.split())
        from modeling.counts.predict import parse_inputs

        try:
            parse_inputs(split_specs(text), program_params(values["source"], values["program"]))
        except ModelingError as exc:
            raise InvalidParameter(self.name, str(exc)) from None
        return text


PREDICT = jobs.JobKind("countspredict", (
    SOURCE, Param("program", "choice", _program_default, _programs), InputsParam("at", "text", _at_default),
    Param("pmodel", "choice", "best", PREDICT_CHOICES), Param("seed", "int", 0, None, 0, 2**31 - 1),
), work.predict_result, _fingerprint, dataset=work.table_of)
