"""A GPU that has not been built or measured: the spec roofline for every workload, labelled with its record.

For a device known only by its public (or planned) specs there is no target
time to learn a ratio from, so neither the naive ratios nor the models nor
one-run calibration apply. What remains is the three-class spec roofline of
:func:`modeling.newapp.estimators.roofline`: the host's counters put each
workload in a class (memory-, compute- or latency-bound) and the class scales
the host's own time by a ratio of device specs (bandwidth; cores x clock;
clock x waves of thread blocks over the SMs). Its range is the lowest and
highest of the three class ratios, since the class is a judgement.

How much to trust it is not a property of the typed device, which has never
run anything; it is the error the *same rule* (same thresholds, same host
counters) reached where the answer is known. :func:`track_record` evaluates the
rule on measured host/target pairs (on the shipped data: the same host with
every measured target GPU) and reports per pair and pooled the median and mean
absolute percentage error and how often the measured value fell inside the
stated range. That is the honest label for the estimate, with two caveats the
result states:

* it is the record on *those* targets. HALWPE (O'Neal et al., "Hardware-Assisted
  Cross-Generation Prediction of GPUs Under Design", IEEE TCAD 38(6), 2019) predicts
  one family member from another because the generations share a design; a
  device of an architecture generation none of the measured targets has is an
  extrapolation, and so is a spec outside the measured targets' range
  (:func:`applicability`);
* the roofline ignores caches, schedulers and clock behaviour under load, so
  its record is typically tens of percent, not the few percent of a model
  learned on measured targets.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from modeling.intervals import conformal
from modeling.errors import ConfigError, DataError
from modeling.metrics import ape
from modeling.newapp import estimators as est
from modeling.newapp.data import SPEC_FIELDS, AppTable
from modeling.newapp.warnings import small_work
from modeling.results import Result

#: bounds of a typed device's specs: (lowest, highest, whole number?, what it is). Wide enough for any GPU
#: from the shipped Kepler parts to far beyond today's, narrow enough that a typo (MHz typed as GHz, a
#: bandwidth in MB/s) is refused instead of estimated.
SPEC_BOUNDS = {
    "sms": (1, 1024, True, "the number of streaming multiprocessors"),
    "cuda_cores": (1, 1_000_000, True, "the number of CUDA cores"),
    "boost_clock_mhz": (100.0, 5000.0, False, "the boost clock in MHz"),
    "memory_bandwidth_gbs": (1.0, 50_000.0, False, "the memory bandwidth in GB/s"),
}
NAME_MAX = 60
ARCH_MAX = 40
#: the keys a typed device is given by (``name`` is the device's name; ``device`` is accepted for it)
SPEC_KEYS = ("name", *SPEC_FIELDS)


class SpecError(ConfigError):
    """A typed device's specs cannot be used (missing, not a number, out of range, not plain text)."""


def plain_text(value, what: str, limit: int) -> str:
    """``value`` stripped, if it is plain text of 1..``limit`` characters; else :class:`SpecError`."""
    if not isinstance(value, str):
        raise SpecError(f"The device's {what} must be text.")
    s = value.strip()
    if not s:
        raise SpecError(f"The device's {what} is empty: type one.")
    if len(s) > limit:
        raise SpecError(f"The device's {what} is longer than {limit} characters.")
    if not s.isprintable():
        raise SpecError(f"The device's {what} holds control characters: use plain text.")
    return s


def _number(value, key: str) -> float:
    lo, hi, whole, what = SPEC_BOUNDS[key]
    if isinstance(value, bool) or value is None:
        raise SpecError(f"{key}, {what}, must be a number.")
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise SpecError(f"{key}, {what}, must be a number, not {str(value)[:30]!r}.") from None
    if not math.isfinite(v) or v <= 0:
        raise SpecError(f"{key}, {what}, must be a positive finite number, not {str(value)[:30]}.")
    if whole and v != int(v):
        raise SpecError(f"{key}, {what}, must be a whole number, not {v:g}.")
    if v < lo or v > hi:
        raise SpecError(f"{key}, {what}, must lie between {lo:,g} and {hi:,g}, not {v:,g}.")
    return v


def typed_device(name, architecture, sms, cuda_cores, boost_clock_mhz, memory_bandwidth_gbs) -> dict:
    """Validate the specs of a device typed in; returns a spec dict as :func:`~modeling.newapp.data.device_spec`.

    Parameters
    ----------
    name, architecture : str
        Plain text (at most 60 and 40 characters, no control characters); only ever shown as text.
    sms : int
        Streaming multiprocessors, 1 to 1,024.
    cuda_cores : int
        CUDA cores, 1 to 1,000,000, at least one per SM.
    boost_clock_mhz : float
        Boost clock, 100 to 5,000 MHz.
    memory_bandwidth_gbs : float
        Peak memory bandwidth, 1 to 50,000 GB/s.

    Returns
    -------
    dict
        ``device``, ``architecture`` and the four numbers as floats.

    Raises
    ------
    SpecError
        Naming the first field that is missing, not a number, out of range or not plain text.
    """
    spec = {"device": plain_text(name, "name", NAME_MAX),
            "architecture": plain_text(architecture, "architecture", ARCH_MAX)}
    for key, v in zip(SPEC_FIELDS[1:], (sms, cuda_cores, boost_clock_mhz, memory_bandwidth_gbs)):
        spec[key] = _number(v, key)
    if spec["cuda_cores"] < spec["sms"]:
        raise SpecError(f"cuda_cores ({spec['cuda_cores']:,.0f}) is fewer than sms ({spec['sms']:,.0f}): "
                        "every SM has at least one core.")
    return spec


def parse_target_spec(text: str) -> dict:
    """A typed device from ``"name=X,architecture=Hopper,sms=132,cuda_cores=16896,boost_clock_mhz=1980,
    memory_bandwidth_gbs=3350"`` (the command line's ``--target-spec``); see :func:`typed_device`."""
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"--target-spec takes {'=…,'.join(SPEC_KEYS)}=…")
    got: dict = {}
    for part in text.split(","):
        key, sep, val = part.partition("=")
        key = key.strip().lower()
        key = "name" if key == "device" else key
        if not sep:
            raise SpecError(f"--target-spec: {part.strip()[:40]!r} is not KEY=VALUE.")
        if key not in SPEC_KEYS:
            raise SpecError(f"--target-spec: unknown field {key[:40]!r}; the fields are {', '.join(SPEC_KEYS)}.")
        if key in got:
            raise SpecError(f"--target-spec: {key} is given twice.")
        got[key] = val.strip()
    missing = [k for k in SPEC_KEYS if k not in got]
    if missing:
        raise SpecError(f"--target-spec lacks {', '.join(missing)}.")
    return typed_device(*(got[k] for k in SPEC_KEYS))


def _stats(a: np.ndarray, inside: np.ndarray) -> dict:
    """median/mean APE (%), share within 25 % and share inside the class range (%), n."""
    if a.size == 0:
        return {"n": 0, "median_ape": None, "mean_ape": None, "within_25": None, "in_class_range": None}
    return {"n": int(a.size), "median_ape": float(np.median(a)), "mean_ape": float(a.mean()),
            "within_25": float(100 * np.mean(a <= 25)), "in_class_range": float(100 * np.mean(inside))}


def same_device(a: dict, b: dict) -> bool:
    """Whether two spec dicts are one GPU: the same name (case-insensitive) or the same four specs."""
    if str(a.get("device", "")).casefold() == str(b.get("device", "")).casefold():
        return True
    return all(float(a.get(k, np.nan)) == float(b.get(k, np.nan)) for k in SPEC_FIELDS[1:])


@dataclass
class TrackRecord(Result):
    """The roofline rule's error on measured host/target pairs.

    ``pairs``: per pair {target, architecture, n, median_ape, mean_ape, within_25, in_class_range, in_interval,
    calibrates, classes}; ``pooled``: the same over every (pair, workload) of the calibrating pairs;
    ``same_architecture``: pooled over the calibrating pairs whose target has the typed device's architecture
    (None when none has); ``source``: which pairs, in words; ``architectures``: the measured targets'
    architectures, sorted; ``excluded``: the predicted GPU when it is itself a measured target (its pair is
    scored but never calibrates the interval it is scored against), else None.
    APE in percent; ``in_class_range``: percent of workloads whose measured value lay between the lowest and
    highest class ratio (which class a workload might be in: not an error interval); ``in_interval``: percent
    of the pair's workloads inside the :func:`error_interval` built without that pair (a calibrating pair: its
    nested held-out coverage; the excluded pair: the coverage of the very interval stated for it).
    """

    host: str
    metric: str
    source: str
    pairs: list = field(default_factory=list)
    pooled: dict = field(default_factory=dict)
    same_architecture: dict | None = None
    thresholds: dict = field(default_factory=dict)
    interval: dict | None = None
    excluded: str | None = None

    def to_dict(self) -> dict:
        """The stored fields and the measured architectures (for a JSON reader; not read back)."""
        return {**super().to_dict(), "architectures": self.architectures}

    @property
    def architectures(self) -> list[str]:
        return sorted({p["architecture"] for p in self.pairs})


def track_record(tables: list[AppTable], source: str, architecture: str | None = None,
                 memory_fraction: float = est.MEMORY_FRACTION, compute_util: float = est.COMPUTE_UTIL,
                 exclude: dict | None = None) -> TrackRecord:
    """Evaluate the spec roofline on measured pairs: the error label of a hypothetical device's estimate.

    Parameters
    ----------
    tables : list of AppTable
        One per measured (host, target) pair, each with both device specs and the measured target
        (rows without a measured target are skipped).
    source : str
        Which pairs these are, in words (shown with the figures).
    architecture : str, optional
        The hypothetical device's architecture: pairs whose target has it (case-insensitive) are also
        pooled on their own.
    memory_fraction, compute_util : float
        The roofline's thresholds, as in :func:`~modeling.newapp.estimators.roofline`.
    exclude : dict, optional
        The predicted GPU's specs: a pair whose target is that GPU (:func:`same_device`) is scored and shown,
        but left out of the interval's calibration and of the pooled figures (nested: the interval of a GPU
        never sees that GPU's measured times).

    Returns
    -------
    TrackRecord

    Raises
    ------
    DataError
        When a pair lacks device specs or a counter role the roofline needs.
    """
    pairs, all_a, all_in, same_a, same_in = [], [], [], [], []
    log_err, pair_of, own = [], [], None
    host = metric = None
    for t in tables:
        try:
            e = est.roofline(t, memory_fraction, compute_util)
        except LookupError as exc:
            raise DataError(f"The roofline cannot be evaluated on {t.scenario.get('target')}: {exc}.") from None
        y = t.target
        ok = np.isfinite(y) & np.isfinite(e.point)
        a = ape(y[ok], e.point[ok])
        inside = (y[ok] >= e.lo[ok] * (1 - 1e-12)) & (y[ok] <= e.hi[ok] * (1 + 1e-12))
        cls = np.asarray(e.detail["class"])[ok]
        ts = t.target_spec
        calibrates = exclude is None or not same_device(ts, exclude)
        pairs.append({"target": ts["device"], "architecture": ts["architecture"], **_stats(a, inside),
                      "in_interval": None, "calibrates": calibrates,
                      "classes": {c: int((cls == c).sum()) for c in est.CLASSES}})
        good = ok & (y > 0) & (e.point > 0)
        err = np.abs(np.log(y[good] / e.point[good]))
        host, metric = t.host_spec["device"], t.metric
        if not calibrates:
            own = (len(pairs) - 1, err)
            continue
        all_a.append(a)
        all_in.append(inside)
        log_err.append(err)
        pair_of += [ts["device"]] * int(good.sum())
        if architecture and ts["architecture"].casefold() == architecture.casefold():
            same_a.append(a)
            same_in.append(inside)
    pooled = _stats(np.concatenate(all_a), np.concatenate(all_in)) if all_a else _stats(np.array([]), np.array([]))
    same = {"architecture": architecture, **_stats(np.concatenate(same_a), np.concatenate(same_in))} \
        if same_a else None
    interval = error_interval(np.concatenate(log_err), np.asarray(pair_of)) if log_err else None
    if interval:
        for p in pairs:
            p["in_interval"] = interval["held_out"].get(p["target"])
        if own is not None:
            i, err = own
            inside = err <= np.log(interval["factor"]) + 1e-12
            pairs[i]["in_interval"] = float(100 * inside.mean()) if err.size else None
    return TrackRecord(host or "", metric or "", source, pairs, pooled, same,
                       {"memory_fraction": memory_fraction, "compute_util": compute_util}, interval,
                       exclude["device"] if own is not None else None)


INTERVAL_LEVEL = 0.9


def error_interval(abs_log_err: np.ndarray, pair: np.ndarray, level: float = INTERVAL_LEVEL) -> dict | None:
    """A multiplicative interval for a device never measured, from the rule's errors on measured pairs.

    The class range (lowest to highest class ratio) says which class a workload might be in, not how far
    the rule can be off; on the shipped pairs it held the measured time for about a quarter of the
    workloads. This interval does: each measured pair is one unit (a new device is a new pair, and the
    errors within a pair share its bias), each pair's own ``level``-quantile of ``|log(measured /
    estimate)|`` is taken, then the conformal rank ``ceil(level (P + 1))`` over the ``P`` pairs
    (:func:`modeling.intervals.conformal.group_half_width`, rule ``per_application`` with pairs as the
    units); with too few pairs for the level the widest pair is used and the level the pairs can support,
    ``P / (P + 1)``, is reported.

    Its coverage is measured nested, one GPU at a time: each calibrating pair in turn is held out, the
    interval is rebuilt from the others alone (ranked as the stated interval is, over ``P``) and the share
    of the held-out pair's workloads inside it is ``held_out[pair]`` (percent). ``held_out_min`` is the
    lowest of them, the figure a reader of one new GPU should expect at worst; ``held_out_coverage`` their
    mean. The held-out pair never enters its own fold's calibration.

    Two pairs are the fewest it takes: the interval is then the wider pair's quantile at a supported level
    of 2/3, and no held-out coverage can be measured (holding one pair out leaves one, and one unit has no
    conformal rank): ``held_out`` is empty, the two coverage figures are None and ``note`` says why.

    Returns {level, level_supported, factor (the interval is estimate / factor .. estimate x factor),
    held_out, held_out_min, held_out_coverage, n_pairs, note}, or None with fewer than two pairs.
    """
    pair = np.asarray(pair).astype(str)
    abs_log_err = np.asarray(abs_log_err, float)
    names = np.unique(pair)
    if len(names) < 2:
        return None
    w, supported = conformal.group_half_width(abs_log_err, pair, level, "per_application")
    held, note = {}, None
    if len(names) >= 3:
        for g in names:
            out = pair == g
            wg, _ = conformal.group_half_width(abs_log_err[~out], pair[~out], level, "per_application",
                                               n_for_level=len(names))
            held[str(g)] = float(100 * np.mean(abs_log_err[out] <= wg + 1e-12))
    else:
        note = ("with two measured pairs, holding one out leaves a single pair to calibrate on, so the coverage "
                "on a GPU left out cannot be measured; measure a third target GPU")
    return {"level": level, "level_supported": supported, "factor": float(np.exp(w)), "held_out": held,
            "held_out_min": min(held.values()) if held else None,
            "held_out_coverage": float(np.mean(list(held.values()))) if held else None,
            "n_pairs": int(len(names)), "note": note}


def applicability(device: dict, measured: list[dict]) -> dict:
    """Is the typed device like the measured targets whose record labels it?

    ``measured``: the measured targets' specs. Returns {verdict: "inside" | "extrapolation" | "no record",
    reasons: [plain words]}: another architecture generation than every measured target, or a bandwidth,
    compute throughput (cores x clock) or SM count outside their range, makes it an extrapolation.
    """
    if not measured:
        return {"verdict": "no record", "reasons": ["no measured pair with device specs labels this estimate"]}
    reasons = []
    archs = sorted({m["architecture"] for m in measured})
    if device["architecture"].casefold() not in {a.casefold() for a in archs}:
        reasons.append(f"{device['architecture']} is another architecture generation than every measured target "
                       f"({', '.join(archs)}): the record comes from those generations, so this is an extrapolation")
    checks = (("memory bandwidth", lambda s: s["memory_bandwidth_gbs"], "GB/s"),
              ("compute throughput (cores x clock)", lambda s: s["cuda_cores"] * s["boost_clock_mhz"] / 1e3,
               "core-GHz"),
              ("SM count", lambda s: s["sms"], "SMs"))
    for what, f, unit in checks:
        v, vals = f(device), [f(m) for m in measured]
        if v > max(vals) * 1.001:
            reasons.append(f"{what} {v:,.4g} {unit} is {v / max(vals):.2g}x the highest measured target's "
                           f"({max(vals):,.4g})")
        elif v < min(vals) * 0.999:
            reasons.append(f"{what} {v:,.4g} {unit} is below the lowest measured target's ({min(vals):,.4g})")
    return {"verdict": "extrapolation" if reasons else "inside", "reasons": reasons}


@dataclass
class HypotheticalEstimate(Result):
    """The spec roofline for every workload on a device never built or measured, with its track record.

    ``rows``: per workload {id, application, kernel, host, class, ratio, point, lo, hi} (target units: the
    host's metric); ``class_ratios``: the memory and compute ratios and the latency ratio's span;
    ``track``: :class:`TrackRecord` of the same rule on measured pairs; ``applicability``: see
    :func:`applicability`; ``warnings``: [{code, title, evidence}].
    """

    device: dict
    host: dict
    metric: str
    source: str  # "typed" | "device table"
    rows: list
    class_counts: dict
    class_ratios: dict
    track: TrackRecord
    applicability: dict
    warnings: list
    scenario: dict
    seconds: float = 0.0

    @property
    def n_workloads(self) -> int:
        return len(self.rows)

    def summary(self, dataset_name: str = "", unit: str = "", provenance=None):
        """What the command line, /new-app's card and its report say of it (:class:`modeling.results.Summary`):
        ``dataset_name`` names the data, ``unit`` the times' unit, ``provenance``
        (:class:`modeling.results.Provenance`) what made it."""
        from modeling.newapp.summary import hypothetical

        return hypothetical(self, dataset_name, unit, provenance)

    def to_dict(self) -> dict:
        """The stored fields (the track record nested, tagged) and the number of workloads (for a JSON reader;
        not read back)."""
        return {**super().to_dict(), "n_workloads": self.n_workloads}


def estimate_hypothetical(table: AppTable, device: dict, track: TrackRecord, source: str = "typed",
                          measured_specs: list[dict] | None = None) -> HypotheticalEstimate:
    """The spec roofline of every workload of ``table`` on ``device``, labelled with ``track``.

    Parameters
    ----------
    table : AppTable
        The workloads measured on the host (its ``target`` is ignored: nothing was measured on ``device``).
    device : dict
        The device's specs (:func:`typed_device` or a device-table row).
    track : TrackRecord
        The same rule's record on measured pairs (:func:`track_record`), with the same thresholds.
    source : str
        "typed" or "device table", for the result.
    measured_specs : list of dict, optional
        The measured targets' specs (for :func:`applicability`); default none.

    Raises
    ------
    DataError
        When the table lacks host specs or a counter role the roofline needs (the message names it).
    """
    t0 = time.perf_counter()
    t = AppTable(table.ids, table.groups, table.kernels, table.host, np.full(len(table.host), np.nan), table.X,
                 table.feature_names, table.host_index, table.roles, table.host_spec, device, table.metric,
                 table.scenario, table.excluded)
    try:
        e = est.roofline(t, track.thresholds.get("memory_fraction", est.MEMORY_FRACTION),
                         track.thresholds.get("compute_util", est.COMPUTE_UTIL))
    except LookupError as exc:
        raise DataError(f"The spec roofline is not available here: it {exc}.") from None
    cls = e.detail["class"]
    ratio = np.asarray(e.detail["ratio"], float)
    f = track.interval["factor"] if track.interval else None
    rows = [{"id": t.ids[i], "application": str(t.groups[i]), "kernel": str(t.kernels[i]), "host": float(t.host[i]),
             "class": cls[i], "ratio": float(ratio[i]), "point": float(e.point[i]), "lo": float(e.lo[i]),
             "hi": float(e.hi[i]), "lower": None if f is None else float(e.point[i] / f),
             "upper": None if f is None else float(e.point[i] * f)} for i in range(len(t.ids))]
    hs = t.host_spec
    lat = ratio[np.asarray(cls) == "latency"]
    scale = device["boost_clock_mhz"] / hs["boost_clock_mhz"] if t.metric == "cycles" else 1.0
    class_ratios = {"memory": hs["memory_bandwidth_gbs"] / device["memory_bandwidth_gbs"] * scale,
                    "compute": hs["cuda_cores"] * hs["boost_clock_mhz"]
                    / (device["cuda_cores"] * device["boost_clock_mhz"]) * scale,
                    "latency_min": float(lat.min()) if lat.size else None,
                    "latency_max": float(lat.max()) if lat.size else None}
    warns = []
    app = applicability(device, measured_specs or [])
    if app["verdict"] == "extrapolation":
        warns.append({"code": "extrapolation",
                      "title": "An extrapolation: this device is unlike every measured target.",
                      "evidence": "; ".join(app["reasons"]) + "."})
    small = small_work(t, np.arange(len(t.ids)), device, t.metric)
    if small:
        warns.append(small)
    return HypotheticalEstimate(device, hs, t.metric, source, rows, {c: cls.count(c) for c in est.CLASSES},
                                class_ratios, track, app, warns,
                                {**t.scenario, "target": device["device"], "hypothetical": True},
                                time.perf_counter() - t0)


def shipped_pairs(host: str, metric: str = "duration") -> list[AppTable]:
    """The shipped data's measured pairs of ``host``: one table per other GPU (every measured target)."""
    from modeling import shipped
    from modeling.newapp.data import shipped_table

    return [shipped_table(host, g, metric) for g in shipped.gpu_names() if g != host]


def shipped_source(host: str, tables: list[AppTable]) -> str:
    targets = [t.target_spec["device"] for t in tables]
    return (f"the shipped Rodinia data: host {host} with every measured target GPU ({', '.join(targets)}), "
            "all their measured workloads")


def shipped_hypothetical(host: str, device: dict, metric: str = "duration", source: str = "typed"
                         ) -> HypotheticalEstimate:
    """The shipped workloads on ``device`` from ``host``'s counters, labelled with the rule's record on
    ``host``'s measured pairs (every other shipped GPU)."""
    from modeling.newapp.data import shipped_host_table

    pairs = shipped_pairs(host, metric)
    track = track_record(pairs, shipped_source(host, pairs), device["architecture"], exclude=device)
    return estimate_hypothetical(shipped_host_table(host, metric), device, track, source,
                                 [t.target_spec for t in pairs if not same_device(t.target_spec, device)])


def table_hypothetical(table: AppTable, device: dict, source: str = "typed") -> HypotheticalEstimate:
    """Any workload table's workloads on ``device``. The record is the rule on the table's own measured pair
    (its target column, when it has a measured value and the target's device specs); without one the
    estimate carries no record and says so."""
    pairs = [table] if table.target_spec is not None and np.isfinite(table.target).any() else []
    if pairs:
        what = (f"this table: host {table.host_spec['device'] if table.host_spec else '?'} with its measured "
                f"target column {table.scenario.get('target_column') or table.scenario.get('target')} "
                f"on {table.target_spec['device']}, {int(np.isfinite(table.target).sum())} measured workloads")
    else:
        what = ("no measured pair: give the measured target column's device specs to see how far the same rule "
                "was from measured times")
    track = track_record(pairs, what, device["architecture"], exclude=device)
    return estimate_hypothetical(table, device, track, source,
                                 [t.target_spec for t in pairs if not same_device(t.target_spec, device)])
