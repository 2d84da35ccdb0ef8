"""Latency of deep-learning operators, and of models as lists of them, on a GPU given only by its specs.

Two predictors:

* ``roofline``: :func:`modeling.operators.features.roofline_ms`, untrained.
* ``utilisation``: in NeuSight's spirit (Lee et al., ASPLOS 2025: latency = roofline work at a utilisation
  learned across GPUs from operator and device features, never above the roofline's peak), the log ratio of
  measured latency to roofline latency, ``log(t / t_roof) = -log(utilisation)``, is learned by gradient
  boosting (one model for matrix products, one for row-wise operators) from the features of
  :func:`modeling.operators.features.features`, which place the operator against the GPU (ridge point,
  tile waves and their efficiency, working set against L2, roofline time). The prediction is
  ``t_roof x exp(max(f, 0))``: a utilisation above 1 is cut to 1, so no prediction beats the roofline.

Intervals (90 % by default) are split conformal with the GPU as the unit: every training GPU is held out
in turn, the model is fitted on the others, and the held-out GPU's log residuals are scored; the half-width
is the GPU-weighted quantile calibrated by holding out each GPU's residuals from the others
(:func:`modeling.intervals.conformal.group_half_width`, rule ``held_out``), one per operator family. A
GPU never seen is thus calibrated as a GPU held out, never on its own measurements. A model's latency is
the sum of its operators' and its interval the sum of their bounds (the errors of one GPU's operators
move together, so the bounds are added, not combined as independent).

What the table never measured is flagged, not extrapolated silently: a data type other than FP32 gets no
number; an operator whose work or traffic lies outside the training operators' range, or a kind of
operator never measured, gets its roofline-bounded estimate flagged ``outside`` and no interval.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

from modeling import DATA_DIR
from modeling.intervals import conformal
from modeling.errors import DataError, NotEnoughDataError
from modeling.operators.features import DTYPES, OPS, family, features, work
from modeling.operators.specs import DeviceSpec, load_devices, same_as
from modeling.results import Provenance, Result

OPERATORS_FILE = DATA_DIR / "neusight_operators.parquet"
FAMILIES = ("gemm", "vector")
METHODS = ("utilisation", "roofline")


def load_operators(path=None) -> pd.DataFrame:
    """The shipped operator table: ``source, gpu, op, b, m, n, k, latency_ms`` (``other`` rows: the rest of a
    model trace, not an operator)."""
    return pd.read_parquet(path or OPERATORS_FILE)


def _estimator(seed: int = 0) -> HistGradientBoostingRegressor:
    return HistGradientBoostingRegressor(max_iter=150, learning_rate=0.12, max_leaf_nodes=31, max_bins=64,
                                         min_samples_leaf=20, l2_regularization=1.0, random_state=seed)


TRACE_WEIGHT = 0.5  # the share of a GPU's weight its model-trace operators carry together


def _gpu_weights(gpus: np.ndarray, trace: np.ndarray) -> np.ndarray:
    """Each GPU's rows together weigh the same; within a GPU, the operators of model traces (the
    operators a user asks about) weigh ``TRACE_WEIGHT`` together and the microbenchmark grid the rest."""
    w = np.empty(len(gpus))
    for g in np.unique(gpus):
        mine = gpus == g
        nt, nm = int((mine & trace).sum()), int((mine & ~trace).sum())
        share = TRACE_WEIGHT if nt and nm else (1.0 if nt else 0.0)
        w[mine & trace] = share / max(nt, 1)
        w[mine & ~trace] = (1.0 - share) / max(nm, 1)
    return w * len(gpus) / w.sum()


def _check_ops(ops: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("op", "b", "m", "n", "k") if c not in ops.columns]
    if missing:
        raise DataError(f"The operator list lacks column(s) {', '.join(missing)}: each operator needs op, b, m, n, "
                        "k (and optionally dtype).")
    out = ops.copy()
    for c in ("b", "m", "n", "k"):
        v = pd.to_numeric(out[c], errors="coerce")
        bad = ~np.isfinite(v.to_numpy(dtype=float)) | (v.to_numpy(dtype=float) < 1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(f"Operator {i + 1} ({out['op'].iloc[i]}): {c} = {ops[c].iloc[i]!r}; every size must be "
                            "a whole number of at least 1.")
        out[c] = v.astype("int64")
    if "dtype" not in out.columns:
        out["dtype"] = "float32"
    out["dtype"] = out["dtype"].astype(str).str.replace("torch.", "", regex=False)
    out["op"] = out["op"].astype(str)
    return out.reset_index(drop=True)


@dataclass
class OperatorPrediction:
    """Per operator on one GPU: the estimate and its interval (NaN where withheld), with flags."""

    gpu: str
    ops: pd.DataFrame
    latency_ms: np.ndarray  # NaN where no number is given (a data type never measured)
    lower_ms: np.ndarray  # NaN where no interval is given
    upper_ms: np.ndarray
    roofline_ms: np.ndarray
    outside: np.ndarray  # bool: outside what was measured
    reasons: list[str]  # per operator, "" when inside
    level: float
    notes: list[str] = field(default_factory=list)  # about the GPU as a whole
    identical_to: str | None = None

    def frame(self) -> pd.DataFrame:
        out = self.ops.copy()
        out["latency_ms"], out["lower_ms"], out["upper_ms"] = self.latency_ms, self.lower_ms, self.upper_ms
        out["roofline_ms"], out["outside"], out["reason"] = self.roofline_ms, self.outside, self.reasons
        return out


@dataclass
class ModelLatency(Result):
    """A model (a list of operators) on one GPU: the sum and the interval of the sum."""

    name: str
    latency_ms: float  # NaN when an operator has no number
    lower_ms: float  # NaN when an operator has no interval
    upper_ms: float
    roofline_ms: float
    n_operators: int
    n_outside: int
    level: float


@dataclass
class OperatorModel:
    """The fitted utilisation model with its GPU-level conformal widths."""

    train_gpus: tuple[str, ...]
    devices: dict[str, DeviceSpec]
    models: dict[str, HistGradientBoostingRegressor]
    half_width: dict[str, float]  # log scale, per family
    level_supported: dict[str, float]
    ranges: dict[str, tuple[np.ndarray, np.ndarray]]  # per family: min and max of log10 (FLOPs, bytes)
    device_ranges: dict[str, tuple[float, float]]
    ops_seen: tuple[str, ...]
    level: float
    loo_abs_resid: dict[str, np.ndarray]
    loo_gpu: dict[str, np.ndarray]
    fit_seconds: float = 0.0

    @classmethod
    def fit(cls, table: pd.DataFrame, train_gpus, devices: dict[str, DeviceSpec] | None = None,
            level: float = 0.9, calibrate: bool = True, seed: int = 0) -> OperatorModel:
        """Fit on the operators measured on ``train_gpus`` (the ``other`` rows of traces are not operators).

        The trees are grown on one OpenMP thread: on a shared machine their threads wait on each other (the
        full fit took 1,395 s with two threads where one took 121 s, benchmarks/neusight_split.py)."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="openmp"):
            return cls._fit(table, train_gpus, devices, level, calibrate, seed)

    @classmethod
    def _fit(cls, table, train_gpus, devices, level, calibrate, seed) -> OperatorModel:
        t0 = time.perf_counter()
        devices = devices or load_devices()
        train_gpus = tuple(train_gpus)
        unknown = [g for g in train_gpus if g not in devices]
        if unknown:
            raise DataError(f"No spec sheet for training GPU(s) {', '.join(unknown)}.")
        rows = table[table["gpu"].isin(train_gpus) & table["op"].isin(OPS) & (table["latency_ms"] > 0)]
        if rows.empty:
            raise NotEnoughDataError(f"No measured operators on {', '.join(train_gpus)}.")
        rows = _check_ops(rows)
        x, t_roof, y, g, fam, tr = [], [], [], [], [], []
        for gpu, part in rows.groupby("gpu", sort=True):
            xi, ri = features(part, devices[gpu])
            x.append(xi), t_roof.append(ri), g.append(part["gpu"].to_numpy()), fam.append(family(part["op"]))
            tr.append(part["source"].astype(str).str.startswith("trace").to_numpy() if "source" in part
                      else np.zeros(len(part), bool))
            y.append(np.log(part["latency_ms"].to_numpy(dtype=float) / ri))
        x, y, g, fam, tr = np.vstack(x), np.concatenate(y), np.concatenate(g), np.concatenate(fam), np.concatenate(tr)
        flops, nbytes = work(rows.sort_values("gpu", kind="stable"))
        lw = np.log10(np.column_stack([flops, nbytes]))
        models, width, supported, ranges, resid, rgpu = {}, {}, {}, {}, {}, {}
        for f in FAMILIES:
            sel = fam == f
            if not sel.any():
                continue
            models[f] = _estimator(seed).fit(x[sel], y[sel], sample_weight=_gpu_weights(g[sel], tr[sel]))
            ranges[f] = (lw[sel].min(axis=0), lw[sel].max(axis=0))
            gpus_f = np.unique(g[sel])
            if not calibrate or len(gpus_f) < 2:
                width[f], supported[f] = np.nan, 0.0
                continue
            r = np.empty(sel.sum())
            xs, ys, gs, ts = x[sel], y[sel], g[sel], tr[sel]
            for held in gpus_f:
                out = gs == held
                m = _estimator(seed).fit(xs[~out], ys[~out], sample_weight=_gpu_weights(gs[~out], ts[~out]))
                r[out] = np.maximum(m.predict(xs[out]), 0.0) - ys[out]
            resid[f], rgpu[f] = np.abs(r), gs
            w, sup = conformal.group_half_width(np.abs(r), gs, level, "held_out")
            width[f], supported[f] = float(w), float(sup)
        specs = [devices[gp].values() for gp in train_gpus]
        dev_ranges = {k: (min(s[k] for s in specs), max(s[k] for s in specs)) for k in specs[0]}
        return cls(train_gpus, devices, models, width, supported, ranges, dev_ranges,
                   tuple(sorted(rows["op"].unique())), level, resid, rgpu, time.perf_counter() - t0)

    def device_notes(self, spec: DeviceSpec) -> tuple[list[str], str | None]:
        notes = []
        same = same_as(spec, {k: self.devices[k] for k in self.train_gpus})
        if same:
            notes.append(f"{spec.name} has the same spec sheet as {same}, a training GPU: its operators were "
                         f"measured there, and the estimate is the model's fit to them, not a prediction.")
        for key, v in spec.values().items():
            lo, hi = self.device_ranges[key]
            if v > hi * 1.0001 or v < lo * 0.9999:
                notes.append(f"{key} = {v:g} is outside the training GPUs' {lo:g} to {hi:g}: the ratio features "
                             "carry the model there, the interval is calibrated on GPUs held out of the training set.")
        return notes, same

    def predict(self, ops: pd.DataFrame, spec: DeviceSpec, method: str = "utilisation") -> OperatorPrediction:
        """Every operator of ``ops`` (columns op, b, m, n, k[, dtype]) on the GPU ``spec``.

        The trees are walked on one OpenMP thread, as they are grown: the same numbers, and on a loaded 2-core
        machine 5-10 times faster (every operator of the table took 11-13 s with the default threads, 1.1-2.6 s
        with one, benchmarks/operators_speed.py)."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="openmp"):
            return self._predict(ops, spec, method)

    def _predict(self, ops: pd.DataFrame, spec: DeviceSpec, method: str) -> OperatorPrediction:
        if method not in METHODS:
            raise DataError(f"Unknown method {method!r}; use one of {', '.join(METHODS)}.")
        ops = _check_ops(ops)
        n = len(ops)
        reasons = [""] * n
        known_op = ops["op"].isin(OPS).to_numpy()
        fp32 = ops["dtype"].isin(DTYPES).to_numpy()
        ok = known_op & fp32
        latency = np.full(n, np.nan)
        lower, upper, roof = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
        outside = ~ok
        for i in np.flatnonzero(~known_op):
            reasons[i] = (f"outside what was measured: operator {ops['op'].iloc[i]!r} is not one of the measured "
                          f"kinds ({', '.join(OPS)}); no estimate")
        for i in np.flatnonzero(known_op & ~fp32):
            reasons[i] = (f"outside what was measured: data type {ops['dtype'].iloc[i]} (every measurement is "
                          "float32); no estimate")
        if ok.any():
            part = ops[ok]
            x, t_roof = features(part, spec)
            fam = family(part["op"])
            est = t_roof.copy()
            lo, hi = np.full(len(part), np.nan), np.full(len(part), np.nan)
            flops, nbytes = work(part)
            lw = np.log10(np.column_stack([flops, nbytes]))
            out_f = np.zeros(len(part), bool)
            idx = np.flatnonzero(ok)
            for f in FAMILIES:
                sel = fam == f
                if not sel.any():
                    continue
                if f not in self.models:
                    out_f[sel] = True
                    for j in np.flatnonzero(sel):
                        reasons[idx[j]] = f"outside what was measured: no {f} operator in the training data"
                    continue
                if method == "utilisation":
                    est[sel] = t_roof[sel] * np.exp(np.maximum(self.models[f].predict(x[sel]), 0.0))
                rmin, rmax = self.ranges[f]
                beyond = (lw[sel] < rmin - 1e-9) | (lw[sel] > rmax + 1e-9)
                for j, b in zip(np.flatnonzero(sel), beyond):
                    if b.any():
                        out_f[j] = True
                        what = " and ".join(w for w, z in zip(("FLOPs", "bytes"), b) if z)
                        reasons[idx[j]] = (f"outside what was measured: its {what} lie beyond every training "
                                           f"{f} operator's (10^{rmin[0]:.1f} to 10^{rmax[0]:.1f} FLOPs, 10^"
                                           f"{rmin[1]:.1f} to 10^{rmax[1]:.1f} bytes); estimate without interval")
                w = self.half_width.get(f, np.nan)
                if method == "utilisation" and np.isfinite(w):
                    lo[sel] = np.maximum(est[sel] * np.exp(-w), t_roof[sel])
                    hi[sel] = est[sel] * np.exp(w)
            lo[out_f], hi[out_f] = np.nan, np.nan
            latency[idx], lower[idx], upper[idx], roof[idx] = est, lo, hi, t_roof
            outside[idx] = out_f
        notes, same = self.device_notes(spec)
        return OperatorPrediction(spec.name, ops, latency, lower, upper, roof, outside, reasons, self.level,
                                  notes, same)


def model_latency(pred: OperatorPrediction, name: str = "model", mask=None) -> ModelLatency:
    """The sum of the operators' latencies (those in ``mask``) and the sum of their bounds."""
    sel = np.ones(len(pred.latency_ms), bool) if mask is None else np.asarray(mask, bool)
    return ModelLatency(name, float(np.sum(pred.latency_ms[sel])), float(np.sum(pred.lower_ms[sel])),
                        float(np.sum(pred.upper_ms[sel])), float(np.sum(pred.roofline_ms[sel])),
                        int(sel.sum()), int(pred.outside[sel].sum()), pred.level)


def model_latencies(pred: OperatorPrediction, names) -> list[ModelLatency]:
    """One :class:`ModelLatency` per distinct name in ``names`` (one per operator, e.g. the trace it is from)."""
    names = np.asarray(names).astype(str)
    return [model_latency(pred, str(n), names == n) for n in sorted(set(names))]


#: the largest transformer layer accepted (the table's largest traced model is GPT-3 2.7B: hidden 2,560)
LAYER_LIMITS = {"batch": (1, 4096), "seq": (1, 131_072), "hidden": (8, 65_536), "heads": (1, 512)}


def check_layer(batch, seq, hidden, heads) -> tuple[int, int, int, int]:
    """The layer's sizes as whole numbers within :data:`LAYER_LIMITS`, hidden a multiple of heads; or
    :class:`DataError` naming the bad one."""
    out = []
    for name, v in zip(LAYER_LIMITS, (batch, seq, hidden, heads)):
        lo, hi = LAYER_LIMITS[name]
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise DataError(f"The layer's {name} {v!r} is not a number.") from None
        if not np.isfinite(f) or f != int(f) or not lo <= f <= hi:
            raise DataError(f"The layer's {name} = {v!r} must be a whole number from {lo:,} to {hi:,}.")
        out.append(int(f))
    if out[2] % out[3]:
        raise DataError(f"The layer's hidden size {out[2]} is not a multiple of its {out[3]} heads.")
    return tuple(out)


def transformer_layer(batch: int, seq: int, hidden: int, heads: int, ffn: int | None = None) -> pd.DataFrame:
    """The operators of one pre-norm transformer layer's forward pass (GPT-2 style), FP32.

    QKV projection, scores ``Q K^T``, scale, softmax, ``P V``, output projection, residual add, layer
    norms, the two MLP projections with GELU between them.
    """
    ffn = ffn or 4 * hidden
    tokens, d = batch * seq, hidden // heads
    rows = [("ln", tokens, 1, hidden, 1), ("linear", 1, tokens, 3 * hidden, hidden),
            ("bmm", batch * heads, seq, seq, d), ("divu", batch * heads * seq, 1, seq, 1),
            ("softmax", batch * heads * seq, 1, seq, 1), ("bmm", batch * heads, seq, d, seq),
            ("linear", 1, tokens, hidden, hidden), ("add", tokens, 1, hidden, 1), ("ln", tokens, 1, hidden, 1),
            ("linear", 1, tokens, ffn, hidden), ("gelu", tokens, 1, ffn, 1), ("linear", 1, tokens, hidden, ffn),
            ("add", tokens, 1, hidden, 1)]
    return pd.DataFrame(rows, columns=["op", "b", "m", "n", "k"]).assign(dtype="float32")


DEFAULT_TRAIN = ("P4", "P100", "T4", "V100", "A100-40GB")

#: what the held-out GPUs of NeuSight's split say about the two predictors (``benchmarks/neusight_split.py
#: --splits nvidia``, docs/methods/operators.md): which is closer, per operator and for a whole model
HELD_OUT_RECORD = (
    "On NeuSight's held-out GPUs (trained on P4, P100, T4, V100, A100-40GB): per operator of the traced models "
    "the learned utilisation is closer than the roofline (median APE 9.0 % against 26.5 % on H100, 9.6 % "
    "against 24.5 % on L4, 8.7 % against 16.2 % on A100-80GB's grid). For a whole model (the sum of its "
    "operators) it is closer on L4 (9.8 % against 50.4 %) but not on H100, where the roofline is closer "
    "(25.8 % against 35.6 %): the learned model overestimates H100's large FP32 linear layers, which carry "
    "most of a model's time. Read a whole-model estimate beside its roofline.")


def sample_training(table: pd.DataFrame, train_gpus, per_kind: int | None) -> pd.DataFrame:
    """The training GPUs' rows; with ``per_kind``, at most that many per GPU and operator kind (a quick fit,
    the same rows wherever it is asked for: a fixed shuffle)."""
    rows = table[table["gpu"].isin(tuple(train_gpus))]
    if per_kind:
        rows = rows.sample(frac=1.0, random_state=0).groupby(["gpu", "op"]).head(int(per_kind))
    return rows


def table_models(table: pd.DataFrame) -> pd.DataFrame:
    """Each traced model's operators once (from the first GPU, by name, that measured it), named by trace."""
    tr = table[table["source"].str.startswith("trace:") & (table["op"] != "other")]
    first = tr.groupby("source")["gpu"].min()
    keep = tr[tr["gpu"].to_numpy() == first.reindex(tr["source"]).to_numpy()]
    return keep.assign(model=keep["source"].str.removeprefix("trace:"))[["model", "op", "b", "m", "n", "k"]]


def table_operators(table: pd.DataFrame) -> pd.DataFrame:
    """Every distinct operator of the table (kind and sizes), in the table's order."""
    ops = table[table["op"] != "other"].drop_duplicates(["op", "b", "m", "n", "k"])[["op", "b", "m", "n", "k"]]
    return ops.reset_index(drop=True)


@dataclass(frozen=True)
class OperatorsOnGpu(Result):
    """Every operator of the table and every model (traced, and one transformer layer) on one GPU, by the
    learned utilisation with its interval and the roofline beside it (what ``python -m modeling operators``
    prints and /operators shows)."""

    gpu: str
    spec: dict
    train: tuple
    fit_sample: int | None  # operators per training GPU and kind the fit used (None: all)
    level: float
    level_supported: dict
    fit_seconds: float
    predict_seconds: float
    notes: list
    identical_to: str | None
    models: list  # ModelLatency, the traced models then the layer
    operators: dict  # column -> list: op, b, m, n, k, latency_ms, lower_ms, upper_ms, roofline_ms, outside, reason
    record: str = HELD_OUT_RECORD
    provenance: Provenance | None = None

    def operator_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.operators)

    @property
    def n_outside(self) -> int:
        return int(np.sum(self.operators["outside"]))


def operators_on_gpu(spec: DeviceSpec, train_gpus=DEFAULT_TRAIN, fit_sample: int | None = None,
                     level: float = 0.9, layer: tuple[int, int, int, int] | None = None,
                     table: pd.DataFrame | None = None, devices: dict[str, DeviceSpec] | None = None,
                     progress=None) -> OperatorsOnGpu:
    """Fit on ``train_gpus`` (all their rows, or ``fit_sample`` per GPU and kind) and predict every operator and
    model of the table, and the transformer ``layer`` (batch, seq, hidden, heads), on ``spec``."""
    table = load_operators() if table is None else table
    devices = devices or load_devices()
    train = tuple(train_gpus)
    if progress:
        progress(0.1, "fitting the operator model and its leave-one-GPU-out calibration")
    model = OperatorModel.fit(sample_training(table, train, fit_sample), train, devices, level=level)
    if progress:
        progress(0.9, "every operator of the table on the GPU")
    t0 = time.perf_counter()
    models = table_models(table)
    if layer:
        b, s, h, heads = check_layer(*layer)
        models = pd.concat([models, transformer_layer(b, s, h, heads).drop(columns="dtype")
                            .assign(model=f"layer b{b} s{s} h{h} heads{heads}")], ignore_index=True)
    sums = model_latencies(model.predict(models.drop(columns="model"), spec), models["model"].to_numpy())
    pred = model.predict(table_operators(table), spec)
    f = pred.frame().drop(columns="dtype")
    cols = {c: (f[c].astype(int).tolist() if c in ("b", "m", "n", "k") else f[c].tolist()) for c in f.columns}
    return OperatorsOnGpu(spec.name, spec.values(), train, fit_sample, level, dict(model.level_supported),
                          model.fit_seconds, time.perf_counter() - t0, list(pred.notes), pred.identical_to,
                          sums, cols)


__all__ = ["DEFAULT_TRAIN", "HELD_OUT_RECORD", "LAYER_LIMITS", "METHODS", "ModelLatency", "OperatorModel",
           "OperatorPrediction", "OperatorsOnGpu", "check_layer", "load_operators", "model_latencies", "model_latency",
           "operators_on_gpu", "sample_training", "table_models", "table_operators", "transformer_layer"]
