"""Work, traffic, roofline and tiles of a deep-learning operator on a GPU given by its spec sheet.

An operator is ``op`` with the sizes ``b, m, n, k``: a batched matrix multiply ``bmm`` (B products of an
M x K by a K x N matrix), a ``linear`` layer (M rows of K inputs to N outputs, weights K x N), or a
row-wise operator over B rows of N elements (element-wise, ``softmax``, layer norm ``ln``; m = k = 1).
All in FP32 (4 bytes), the data type every measurement of the shipped table used.

Roofline (Williams, Waterman and Patterson, CACM 2009): ``t = max(FLOPs / peak, bytes / bandwidth)``,
with compulsory traffic only (each operand read once, the result written once), so a measured latency is
never below it. The tile view follows NeuSight (Lee et al., ASPLOS 2025, Sec. 4): the output is cut into
tiles, one tile per SM at a time, and the operator runs in ``waves = ceil(tiles / SMs)``; the last wave may
leave SMs idle, which the wave efficiency ``tiles / (waves x SMs)`` measures.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from modeling.operators.specs import DeviceSpec

GEMM = ("bmm", "linear")
BINARY = ("add", "mul", "div", "pow", "sub")
UNARY = ("addu", "mulu", "divu", "powu", "subu", "relu", "gelu", "tanh")
ROWWISE = ("softmax", "ln")
OPS = GEMM + BINARY + UNARY + ("where",) + ROWWISE
DTYPES = ("float32",)
BYTES = 4

#: element-wise: tensors moved per element (inputs + output) and FLOPs per element
_TRAFFIC = {**{o: 3 for o in BINARY}, **{o: 2 for o in UNARY}, "where": 3.25, "softmax": 2, "ln": 2}
_FLOPS = {"add": 1, "mul": 1, "sub": 1, "div": 4, "pow": 8, "addu": 1, "mulu": 1, "subu": 1, "divu": 4,
          "powu": 8, "relu": 1, "gelu": 12, "tanh": 10, "where": 1, "softmax": 6, "ln": 9}
OP_CODE = {o: i for i, o in enumerate(OPS)}
TILE = 128  # output tile edge of a GEMM
VEC_PER_SM = 2048 * 4  # elements one SM streams per wave (2,048 resident threads, 4 elements each)


def family(op) -> np.ndarray:
    """``"gemm"`` or ``"vector"`` per operator."""
    return np.where(np.isin(np.asarray(op), GEMM), "gemm", "vector")


def work(ops: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """FLOPs and compulsory bytes of each operator."""
    op = ops["op"].to_numpy()
    b, m, n, k = (ops[c].to_numpy(dtype=float) for c in ("b", "m", "n", "k"))
    gemm = np.isin(op, GEMM)
    flops = np.where(gemm, 2.0 * b * m * n * k, b * n * np.array([_FLOPS.get(o, 1) for o in op], float))
    weights = np.where(op == "linear", k * n, b * k * n)
    traffic = np.array([_TRAFFIC.get(o, 2) for o in op], float)
    nbytes = np.where(gemm, BYTES * (b * m * k + weights + b * m * n), BYTES * traffic * b * n)
    return flops, nbytes


def roofline_ms(ops: pd.DataFrame, spec: DeviceSpec) -> np.ndarray:
    """The roofline latency (ms): compute at the FP32 peak or traffic at the memory bandwidth, the slower."""
    flops, nbytes = work(ops)
    gemm = np.isin(ops["op"].to_numpy(), GEMM)
    peak = np.where(gemm, spec.fp32_matrix_gflops, spec.fp32_gflops) * 1e9
    return 1e3 * np.maximum(flops / peak, nbytes / (spec.memory_bandwidth_gbs * 1e9))


def features(ops: pd.DataFrame, spec: DeviceSpec) -> tuple[np.ndarray, np.ndarray]:
    """(feature matrix, roofline ms) of the operators on the GPU.

    The features describe the operator relative to the GPU, so that a faster GPU than any measured is
    described by values seen before: its position against the ridge point, the tile waves and their
    efficiency, the working set against L2, the work per SM and the roofline time itself (launch overhead
    dominates small operators), plus the operator's kind and sizes and the GPU's per-SM, per-cycle rates.
    """
    op = ops["op"].to_numpy()
    b, m, n, k = (np.maximum(ops[c].to_numpy(dtype=float), 1.0) for c in ("b", "m", "n", "k"))
    gemm = np.isin(op, GEMM)
    flops, nbytes = work(ops)
    t_roof = roofline_ms(ops, spec)
    peak = np.where(gemm, spec.fp32_matrix_gflops, spec.fp32_gflops) * 1e9
    bw = spec.memory_bandwidth_gbs * 1e9
    sms = float(spec.sms)
    ridge = peak / bw
    tiles = np.where(gemm, b * np.ceil(m / TILE) * np.ceil(n / TILE), np.ceil(b * n / VEC_PER_SM))
    waves = np.ceil(tiles / sms)
    wave_eff = tiles / (waves * sms)
    # tile-level roofline: every wave runs one tile per SM at the SM's share of peak and bandwidth
    tile_flops = np.where(gemm, 2.0 * TILE * TILE * k, flops / np.maximum(tiles, 1))
    tile_bytes = np.where(gemm, BYTES * (2 * TILE * k + TILE * TILE), nbytes / np.maximum(tiles, 1))
    t_tiles = 1e3 * waves * np.maximum(tile_flops / (peak / sms), tile_bytes / (bw / sms))
    l2 = spec.l2_mb * 1e6
    cycles = spec.clock_mhz * 1e6
    x = np.column_stack([
        np.vectorize(OP_CODE.get)(op).astype(float),
        np.log10(t_roof * 1e3),                # roofline in microseconds
        np.log10(t_tiles / t_roof),            # what the tiles and waves add to it
        np.log10(flops / nbytes / ridge),      # arithmetic intensity against the ridge point
        np.log2(waves), wave_eff, np.log2(tiles / sms),
        np.log10(nbytes / l2),                 # working set against L2
        np.log2(b), np.log2(m), np.log2(n), np.log2(k),
        np.full(len(op), np.log2(peak[0] / sms / cycles) if len(op) else 0.0),  # FLOPs per SM per cycle
        np.full(len(op), np.log2(bw / sms / cycles)),                            # bytes per SM per cycle
        np.full(len(op), np.log10(l2 / sms)),
        np.log10(peak), np.full(len(op), np.log10(bw)), np.full(len(op), np.log10(l2)), np.full(len(op), sms),
    ])
    return x, t_roof


__all__ = ["DTYPES", "GEMM", "OPS", "ROWWISE", "family", "features", "roofline_ms", "work"]
