"""How the estimate of a GPU never built holds up, under four ways of holding GPUs out.

The spec roofline (:func:`modeling.newapp.estimators.roofline`) learns nothing from measured targets: its
estimate of a held-out GPU is the same under every split, so its mean and median APE per GPU are too. What a
split changes is which measured GPUs calibrate the interval stated beside it
(:func:`modeling.newapp.hypothetical.error_interval`: each GPU's pair one unit, the conformal rank of
:func:`modeling.intervals.conformal.group_half_width`), and so how often that interval holds on the GPU held
out. From one host's counters, each other GPU of the shipped data is held out in turn, and its interval is
calibrated on the GPUs each split allows:

* ``gpu``: a new GPU of an architecture already measured: every other GPU (leave one GPU out);
* ``architecture``: a new architecture: only GPUs of other architectures (leave one architecture out);
* ``chronological``: only GPUs released before the held-out one (:data:`RELEASED`);
* ``gpu+application``: a new GPU and a new application together: each application of the held-out GPU is
  scored with an interval calibrated on the other GPUs' pairs without that application's workloads.

Per held-out GPU the result gives the mean and median APE, the mean APE per kernel, the interval's factor, the
GPUs it was calibrated on and the share of the held-out GPU's workloads inside it; per split the lowest of those
coverages, not a pooled one (a design team asks about one GPU at a time).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from modeling.errors import ConfigError
from modeling.intervals import conformal
from modeling.metrics import ape
from modeling.newapp import estimators as est
from modeling.newapp.hypothetical import INTERVAL_LEVEL
from modeling.results import Result

SPLITS = {
    "gpu": "a new GPU of an architecture already measured (leave one GPU out)",
    "architecture": "a new architecture (leave one architecture out)",
    "chronological": "chronological (calibrated only on GPUs released before the held-out one)",
    "gpu+application": "a new GPU and a new application together (leave one GPU and one application out)",
}

#: first availability of each shipped GPU (year-month), from NVIDIA's launch announcements as listed in
#: Wikipedia's "List of Nvidia graphics processing units" (GeForce 600/900, Tesla, Quadro sections); the
#: shipped "Quadro" is the Kepler Quadro K5200 (12 SMs, 2,304 cores, 192 GB/s), "TitanX" the Maxwell GTX Titan
#: X and "Tesla-P100" the PCIe card (1,329 MHz, 732 GB/s).
RELEASED = {
    "GTX-680": "2012-03", "Tesla-K20": "2012-11", "Titan": "2013-02", "Tesla-K40": "2013-11",
    "Quadro": "2014-07", "GTX-970": "2014-09", "GTX-980": "2014-09", "TitanX": "2015-03",
    "Tesla-P100": "2016-06",
}


@dataclass(frozen=True)
class HeldOutGpu(Result):
    """One GPU held out: the roofline's errors on it and the coverage of its interval under one split.

    ``per_kernel``: {kernel: mean APE %}; ``training``: the GPUs whose pairs calibrated the interval (for
    ``gpu+application``, the GPUs; each application's own workloads were left out of them); ``factor``: the
    interval is estimate / factor .. estimate x factor (for ``gpu+application`` the median over applications);
    ``coverage``: percent of the held-out GPU's workloads inside its interval, None when the split leaves fewer
    than two GPUs to calibrate on (``note`` says so).
    """

    target: str
    architecture: str
    released: str | None
    n: int
    mean_ape: float
    median_ape: float
    per_kernel: dict = field(default_factory=dict)
    training: tuple = ()
    factor: float | None = None
    level_supported: float | None = None
    coverage: float | None = None
    note: str | None = None


@dataclass
class SplitResult(Result):
    """Every GPU held out under one split (``split``, a key of :data:`SPLITS`)."""

    split: str
    gpus: list = field(default_factory=list)

    @property
    def label(self) -> str:
        return SPLITS[self.split]

    @property
    def covered(self) -> list:
        return [g for g in self.gpus if g.coverage is not None]

    @property
    def min_coverage(self) -> float | None:
        """The lowest coverage over the held-out GPUs that had an interval (None when none had)."""
        return min((g.coverage for g in self.covered), default=None)

    @property
    def mean_coverage(self) -> float | None:
        c = self.covered
        return float(np.mean([g.coverage for g in c])) if c else None

    @property
    def mean_ape(self) -> float | None:
        """The mean over held-out GPUs of each GPU's mean APE."""
        return float(np.mean([g.mean_ape for g in self.gpus])) if self.gpus else None

    def gpu(self, name: str) -> HeldOutGpu | None:
        return next((g for g in self.gpus if g.target == name), None)

    def to_dict(self) -> dict:
        return {**super().to_dict(), "label": self.label, "min_coverage": self.min_coverage,
                "mean_coverage": self.mean_coverage, "mean_ape": self.mean_ape}


@dataclass
class SplitValidation(Result):
    """The four splits from one host's counters (``host``), at interval ``level``."""

    host: str
    metric: str
    level: float
    splits: list = field(default_factory=list)

    def split(self, key: str) -> SplitResult:
        return next(s for s in self.splits if s.split == key)


def resembles(device: dict, measured: list[dict]) -> str:
    """The split a question about ``device`` resembles: a GPU of an architecture among ``measured`` (the
    measured targets' specs) is ``gpu``; any other is ``architecture``."""
    archs = {m["architecture"].casefold() for m in measured}
    return "gpu" if device["architecture"].casefold() in archs else "architecture"


def pair_errors(target: str, architecture: str, measured, estimate, kernels, applications) -> dict:
    """One measured pair's errors, the unit every split calibrates on: ``estimate`` of the ``target`` GPU's
    ``measured`` values (only rows where both are finite and positive are scored), with each row's kernel and
    application. The roofline of the shipped data (:func:`_pair_errors`) and any other estimate of a GPU from
    its specs (an outside dataset's) pass through here, so the splits and the intervals are the same code."""
    y, e = np.asarray(measured, float), np.asarray(estimate, float)
    ok = np.isfinite(y) & np.isfinite(e) & (y > 0) & (e > 0)
    return {"target": str(target), "architecture": str(architecture), "ape": ape(y[ok], e[ok]),
            "err": np.abs(np.log(y[ok] / e[ok])), "kernel": np.asarray(kernels)[ok].astype(str),
            "app": np.asarray(applications)[ok].astype(str)}


def _pair_errors(t) -> dict:
    return pair_errors(t.target_spec["device"], t.target_spec["architecture"], t.target, est.roofline(t).point,
                       t.kernels, t.groups)


#: the conformal rule the splits calibrate with: each pair's own quantile, then the conformal rank over pairs (the
#: interval /new-app states); ``held_out`` (:mod:`modeling.intervals.conformal`) is the alternative a benchmark
#: compares it with.
RULE = "per_application"


def _half_width(units: list[dict], level: float, keep=None, rule: str = RULE):
    """(half-width, supported level) over ``units`` (pairs), each restricted to ``keep(unit)`` rows; None when
    fewer than two units have rows."""
    errs, labels = [], []
    for u in units:
        m = np.ones(len(u["err"]), bool) if keep is None else keep(u)
        if m.any():
            errs.append(u["err"][m])
            labels += [u["target"]] * int(m.sum())
    if len(errs) < 2:
        return None
    return conformal.group_half_width(np.concatenate(errs), np.asarray(labels), level, rule)


def _training(split: str, held: dict, pairs: list[dict], released: dict) -> list[dict]:
    others = [p for p in pairs if p["target"] != held["target"]]
    if split in ("gpu", "gpu+application"):
        return others
    if split == "architecture":
        return [p for p in others if p["architecture"].casefold() != held["architecture"].casefold()]
    if split == "chronological":
        when = released.get(held["target"])
        return [p for p in others if when and released.get(p["target"]) and released[p["target"]] < when]
    raise ConfigError(f"Unknown split {split!r}; use one of {', '.join(SPLITS)}.")


def held_out_gpu(split: str, held: dict, pairs: list[dict], level: float = INTERVAL_LEVEL,
                 released: dict | None = None, rule: str = RULE) -> HeldOutGpu:
    """``held`` (one pair's errors) under ``split``, its interval calibrated on ``pairs`` other than it only;
    ``released``: each GPU's first availability (year-month) for the chronological split (:data:`RELEASED`)."""
    released = RELEASED if released is None else released
    train = _training(split, held, pairs, released)
    kernels = {str(k): float(held["ape"][held["kernel"] == k].mean()) for k in np.unique(held["kernel"])}
    base = dict(target=held["target"], architecture=held["architecture"], released=released.get(held["target"]),
                n=int(held["ape"].size), mean_ape=float(held["ape"].mean()), median_ape=float(np.median(held["ape"])),
                per_kernel=kernels, training=tuple(p["target"] for p in train))
    if split == "gpu+application":
        inside, factors, sup = np.zeros(held["err"].size, bool), [], []
        for a in np.unique(held["app"]):
            hw = _half_width(train, level, lambda u, a=a: u["app"] != a, rule)
            if hw is None:
                return HeldOutGpu(**base, note="no interval: fewer than two other GPUs to calibrate on")
            mine = held["app"] == a
            inside[mine] = held["err"][mine] <= hw[0] + 1e-12
            factors.append(float(np.exp(hw[0])))
            sup.append(hw[1])
        return HeldOutGpu(**base, factor=float(np.median(factors)), level_supported=float(min(sup)),
                          coverage=float(100 * inside.mean()))
    hw = _half_width(train, level, rule=rule)
    if hw is None:
        why = {"architecture": f"fewer than two GPUs of another architecture than {held['architecture']}",
               "chronological": "fewer than two GPUs released before it",
               "gpu": "fewer than two other GPUs"}[split]
        return HeldOutGpu(**base, note=f"no interval: {why} to calibrate on")
    w, supported = hw
    return HeldOutGpu(**base, factor=float(np.exp(w)), level_supported=float(supported),
                      coverage=float(100 * np.mean(held["err"] <= w + 1e-12)))


def validate(tables: list, host: str, metric: str = "duration", level: float = INTERVAL_LEVEL,
             splits=tuple(SPLITS), rule: str = RULE) -> SplitValidation:
    """Every GPU of ``tables`` (one measured pair per target, from ``host``'s counters) held out under each
    split of ``splits``."""
    return validate_pairs([_pair_errors(t) for t in tables], host, metric, level, splits, rule=rule)


def validate_pairs(pairs: list[dict], host: str, metric: str = "duration", level: float = INTERVAL_LEVEL,
                   splits=tuple(SPLITS), released: dict | None = None, rule: str = RULE) -> SplitValidation:
    """:func:`validate` on pairs already scored (:func:`pair_errors`), ``released`` giving each GPU's first
    availability for the chronological split (default :data:`RELEASED`, the shipped GPUs'); ``rule``: the
    conformal rule (:data:`RULE` is what the page states; another is for comparison only)."""
    for s in splits:
        if s not in SPLITS:
            raise ConfigError(f"Unknown split {s!r}; use one of {', '.join(SPLITS)}.")
    if rule not in conformal.RULES or rule == "pooled":
        raise ConfigError(f"Unknown interval rule {rule!r} for GPUs as units; use per_application, weighted or "
                          "held_out.")
    out = [SplitResult(s, [held_out_gpu(s, p, pairs, level, released, rule) for p in pairs]) for s in splits]
    return SplitValidation(host, metric, level, out)


def shipped_validation(host: str, metric: str = "duration", level: float = INTERVAL_LEVEL,
                       rule: str = RULE) -> SplitValidation:
    """:func:`validate` on the shipped data: ``host`` with every other shipped GPU."""
    from modeling.newapp.hypothetical import shipped_pairs

    return validate(shipped_pairs(host, metric), host, metric, level, rule=rule)
