"""The /phases jobs: the parameters that make their keys and the work that computes them."""

from __future__ import annotations

from dashboard import jobs
from dashboard.phases import sources, work
from dashboard.state.files import shipped_fingerprint
from dashboard.ui.url_state import InvalidParameter, Param, StoredParam
from modeling.intervals.conformal import LEVEL_MAX, LEVEL_MIN
from modeling.phases import data


def _freqs_of(key):
    """The frequencies of the data source named by parameter ``key``; a phase table is one pair already (0 = as
    in the table)."""
    def freqs(v):
        return sources.frequencies(v[key]) or [0]
    return freqs


def _default_freq(key, preferred, last=False):
    """``preferred`` when the source of parameter ``key`` has it, else its lowest (highest: ``last``)."""
    def f(v):
        fs = _freqs_of(key)(v)
        return preferred if preferred in fs else fs[-1 if last else 0]
    return f


_freqs = _freqs_of("source")


class CvOrNumber(Param):
    """'cv' or a number within [lo, hi] ('inf' allowed when hi is None)."""

    def parse(self, raw, values):
        if raw in (None, "", "cv"):
            return "cv"
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            raise InvalidParameter(self.name, "expected 'cv' or a number")
        try:
            v = float(raw)
        except ValueError:
            raise InvalidParameter(self.name, f"{str(raw)[:30]!r} is neither 'cv' nor a number") from None
        if v != v or v < self.lo or (self.hi is not None and v > self.hi):
            raise InvalidParameter(self.name, f"{raw} is outside {self.lo:g} … {self.hi if self.hi else 'inf'}")
        return "inf" if v == float("inf") else f"{v:g}"


def _default_granularity(v):
    """The one rule's default for the chosen source and pair (:func:`dashboard.phases.sources.granularity`)."""
    try:
        return sources.granularity(v["source"], v["host_freq"], v["target_freq"]).value
    except (LookupError, KeyError, ValueError):
        return data.DEFAULT_GRANULARITY


def _fingerprint(params):
    """The shipped traces' files (an upload's id already names its content)."""
    return shipped_fingerprint("armpm_samples.parquet", "armpm_phases.parquet")


COMMON = (
    StoredParam("source", "choice", sources.SHIPPED, lookup=sources.meta, what="phase data id"),
    Param("host_freq", "choice", _default_freq("source", 1000), _freqs),
    Param("target_freq", "choice", _default_freq("source", 2000, last=True), _freqs),
    Param("target", "choice", "cycles", list(data.TARGETS)),
    Param("features", "choice", "counters", list(data.FEATURE_SETS)),
    Param("norm", "choice", "z", list(data.NORMS)),
    CvOrNumber("eps", "cv", None, None, 1.0, 100.0),
    CvOrNumber("T", "cv", None, None, 0.01, None),
    # a value finer than the data supports is refused by the job with the number to use instead
    Param("granularity", "float", _default_granularity, None, 1e6, 1e11),
    Param("folds", "int", 5, None, 2, 10),
    Param("seed", "int", 0, None, 0, 2**31 - 1),
)

def _source(params):
    """(id, name) of the evaluated data, for the provenance."""
    from dashboard.phases.views import source_name

    return params["source"], source_name(params["source"])


PHASES = jobs.JobKind("phases", COMMON, work.phases_result, _fingerprint, dataset=_source)
SWEEP = jobs.JobKind("phasesweep", (*[p for p in COMMON if p.name != "granularity"],
                                    Param("cache_l", "float", 0.05, None, 0.0, 10.0)),
                     work.sweep_result, _fingerprint, dataset=_source)


_np_freqs = _freqs_of("np_source")  # the new program's: those of the data source it is predicted from


def _new_check(params):
    from dashboard.phases import host_traces

    if params["np_trace"] == host_traces.NONE:
        raise InvalidParameter("np_trace", "upload the host trace of the program to predict first")
    if params["np_source"] != sources.SHIPPED and sources.meta(params["np_source"])["kind"] != "samples":
        raise InvalidParameter("np_source", "a phase table has no frequencies to choose a host run by: train on the "
                               "shipped traces or on an uploaded trace")
    if params["np_host_freq"] == params["np_target_freq"]:
        raise InvalidParameter("np_target_freq", "the target frequency must differ from the host's")


def _new_fingerprint(params):
    """The shipped training traces (an uploaded source's and trace's ids already name their content)."""
    return shipped_fingerprint("armpm_samples.parquet", "armpm_phases.parquet")


def _trace_lookup(v):
    from dashboard.phases import host_traces

    return host_traces.trace_meta(v)


#: a program never run on the target, from its uploaded host trace, trained on the chosen data source's
#: programs (URL names start with ``np_``: they share the page's address with the evaluation's)
NEW_PROGRAM = jobs.JobKind("phasesnew", (
    StoredParam("np_source", "choice", sources.SHIPPED, lookup=sources.meta, what="phase data id"),
    StoredParam("np_trace", "choice", "none", lookup=_trace_lookup, what="host trace id"),
    Param("np_host_freq", "choice", _default_freq("np_source", 1000), _np_freqs),
    Param("np_target_freq", "choice", _default_freq("np_source", 2000, last=True), _np_freqs),
    Param("np_target", "choice", "cycles", list(data.TARGETS)),
    Param("np_model", "choice", "auto", ["auto", "lacross", "global", "nnls-baseline", "ratio-baseline",
                                         "program-ratio", "mean-baseline"]),
    Param("np_level", "float", 0.9, None, LEVEL_MIN, LEVEL_MAX),
), work.predict_new_result, _new_fingerprint, _new_check, work.training_of)
