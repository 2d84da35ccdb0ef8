"""Deep-learning operator latencies on twelve GPUs, from NeuSight (Lee et al., ASPLOS 2025; MIT licence).

Source: github.com/sitar-lab/NeuSight at commit 6945927d (folder ``scripts/asplos``). Two kinds of
measurement are kept, all in FP32 (PyTorch 2.1 on NVIDIA, 2.4 on AMD, forward pass):

* **microbenchmarks** (``data/dataset/{train,test}``, ``data/dataset_amd``): one operator at a time, on a
  grid of shapes: batched matrix multiply (``bmm``: B, M, N, K), linear layers (``linear``: M rows of K
  inputs to N outputs), element-wise operators (``add``, ``mul``, ``div``, ``pow`` with two tensors and
  their ``u`` variants with a scalar, ``relu``, ``gelu``, ``tanh``: B x H elements), ``softmax`` and layer
  norm (``ln``) over B rows of H. The large GEMM grids are subsampled (``GEMM_PER_GPU`` per GPU and type,
  a fixed seed) to keep the table small.
* **model traces** (``label/<GPU>/<model>-inf-<seq>-<batch>.csv``): the operators of one transformer
  model's forward pass (embedding, one layer, head) as PyTorch FX traced them, each with its measured
  latency. Operators of the kinds above are kept with their shapes; everything else (views, reshapes,
  embedding look-ups, dropout in inference, scalar arithmetic) is summed into one ``other`` row per trace.

Output: ``neusight_operators.parquet`` (one row per measured operator on one GPU) and
``neusight_devices.csv`` (each GPU's spec sheet, with the source of each value).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from modeling.errors import DataError

COMMIT = "6945927d9afcca2b9daf021f8395e53edc5b4eef"
GEMM_PER_GPU = 1500
SEED = 0

#: NeuSight's device name (as its CSVs spell it) -> the short name used here
GPU_NAMES = {
    "Tesla P4": "P4", "Tesla P100-PCIE-16GB": "P100", "Tesla T4": "T4", "Tesla V100-PCIE-32GB": "V100",
    "NVIDIA A100-PCIE-40GB": "A100-40GB", "NVIDIA A100-SXM4-40GB": "A100-SXM4-40GB",
    "NVIDIA A100 80GB PCIe": "A100-80GB", "NVIDIA H100 80GB HBM3": "H100", "NVIDIA L4": "L4",
    "AMD Instinct MI100": "MI100", "AMD Instinct MI210": "MI210", "AMD Instinct MI250": "MI250",
}
#: label folder -> short name
FOLDERS = {k.replace(" ", "_"): v for k, v in GPU_NAMES.items()}

ELEMENTWISE = ("add", "mul", "div", "pow", "addu", "mulu", "divu", "powu", "relu", "gelu", "tanh", "sub",
               "subu", "where")
OPS = ("bmm", "linear", *ELEMENTWISE, "softmax", "ln", "other")

COLUMNS = ["source", "gpu", "op", "b", "m", "n", "k", "latency_ms"]

# Vendor figures beside NeuSight's configs. Each entry: (release, architecture, vendor, memory type,
# FP16 dense matrix TFLOPS, source of these four values). FP16 is the dense tensor / matrix-core peak
# (no sparsity); "none" where the chip has no matrix unit and its FP16 rate is given instead.
VENDOR = {
    "P4": ("2016-09", "Pascal", "NVIDIA", "GDDR5", 0.089,
           "NVIDIA Tesla P4 datasheet (2016); FP16 at 1/64 of FP32 on GP104, NVIDIA Pascal tuning guide"),
    "P100": ("2016-06", "Pascal", "NVIDIA", "HBM2", 18.7, "NVIDIA Tesla P100 PCIe datasheet (2016)"),
    "T4": ("2018-09", "Turing", "NVIDIA", "GDDR6", 65.0, "NVIDIA T4 datasheet (2018)"),
    "V100": ("2018-03", "Volta", "NVIDIA", "HBM2", 112.0, "NVIDIA V100 PCIe datasheet (2018, 32 GB model)"),
    "A100-40GB": ("2020-06", "Ampere", "NVIDIA", "HBM2", 312.0, "NVIDIA A100 datasheet (2020)"),
    "A100-SXM4-40GB": ("2020-05", "Ampere", "NVIDIA", "HBM2", 312.0, "NVIDIA A100 datasheet (2020)"),
    "A100-80GB": ("2021-06", "Ampere", "NVIDIA", "HBM2e", 312.0, "NVIDIA A100 80GB PCIe datasheet (2021)"),
    "H100": ("2023-03", "Hopper", "NVIDIA", "HBM3", 989.0, "NVIDIA H100 SXM5 datasheet (2022)"),
    "L4": ("2023-03", "Ada", "NVIDIA", "GDDR6", 121.0, "NVIDIA L4 datasheet (2023)"),
    "MI100": ("2020-11", "CDNA", "AMD", "HBM2", 184.6, "AMD Instinct MI100 datasheet (2020)"),
    "MI210": ("2022-03", "CDNA2", "AMD", "HBM2e", 181.0, "AMD Instinct MI210 datasheet (2022)"),
    "MI250": ("2021-11", "CDNA2", "AMD", "HBM2e", 181.0,
              "AMD Instinct MI250 datasheet (2021), halved: NeuSight measured one of its two dies (GCDs)"),
}


def _short(device: str) -> str:
    try:
        return GPU_NAMES[device.strip()]
    except KeyError:
        raise DataError(f"Unknown NeuSight device {device!r}.") from None


def devices(root: Path) -> pd.DataFrame:
    """The spec table: NeuSight's ``data/device_configs/*.json`` plus the vendor figures above."""
    rows = []
    for path in sorted((root / "data" / "device_configs").glob("*.json")):
        if path.stem.endswith("_TP"):
            continue  # the tensor-parallel pair of H100s, not one GPU
        cfg = json.loads(path.read_text())
        name = _short(cfg["Device"])
        release, arch, vendor, memtype, fp16, src = VENDOR[name]
        fp32_vec = cfg.get("SingleFLOPs", cfg.get("SingleFLOPsVEC"))
        fp32_mm = cfg.get("SingleFLOPs", cfg.get("SingleFLOPsMM"))
        rows.append({
            "gpu": name, "vendor": vendor, "architecture": arch, "release": release,
            "sms": int(cfg["Num_Sm"]), "cores_per_sm": int(cfg["Core_Per_SM"]),
            "clock_mhz": float(cfg["Freq"]), "memory_bandwidth_gbs": float(cfg["Mem_Bw"]),
            "l2_mb": float(cfg["L2Cache"]), "memory_gb": float(cfg["Dev_Mem"]),
            "fp32_gflops": float(fp32_vec), "fp32_matrix_gflops": float(fp32_mm),
            "fp16_matrix_tflops": fp16, "memory_type": memtype,
            "spec_source": f"NeuSight data/device_configs/{path.name} (sms, cores_per_sm, clock_mhz, "
                           "memory_bandwidth_gbs, l2_mb, memory_gb, fp32_gflops, fp32_matrix_gflops)",
            "vendor_source": f"{src} (release, fp16_matrix_tflops, memory_type)",
        })
    if not rows:
        raise DataError(f"No device configs under {root / 'data' / 'device_configs'}.")
    return pd.DataFrame(rows).sort_values(["vendor", "release", "gpu"]).reset_index(drop=True)


def _micro(path: Path, source: str, kind: str, rng: np.random.Generator | None) -> pd.DataFrame:
    df = pd.read_csv(path)
    out = pd.DataFrame({"source": source, "gpu": df["Device"].map(_short), "op": df["OPName"].str.strip()})
    if kind == "gemm":
        out["b"], out["m"], out["n"], out["k"] = df["B"], df["M"], df["N"], df["K"]
    else:  # B rows of H elements
        out["b"], out["m"], out["n"], out["k"] = df["B"], 1, df["H"], 1
    out["latency_ms"] = df["Latency"].astype(float)
    if rng is not None:
        parts = []
        for _, g in out.groupby(["gpu", "op"], sort=True):
            parts.append(g.iloc[np.sort(rng.permutation(len(g))[:GEMM_PER_GPU])] if len(g) > GEMM_PER_GPU else g)
        out = pd.concat(parts)
    return out


def microbenchmarks(root: Path) -> pd.DataFrame:
    d = root / "data"
    rng = np.random.default_rng(SEED)
    parts = []
    for split in ("train", "test"):
        base = d / "dataset" / split
        for name, kind in (("elem", "vec"), ("ln", "vec"), ("softmax", "vec"), ("bmm", "gemm"), ("linear", "gemm")):
            if (base / f"{name}.csv").exists() and (split == "test" or kind == "vec"):
                parts.append(_micro(base / f"{name}.csv", f"micro-{split}", kind, rng if kind == "gemm" else None))
        if split == "train":  # the training GEMM grids are only in the per-GPU collect files
            for name in ("bmm", "linear"):
                for path in sorted((base / "collect" / name).glob("*/*.csv")):
                    parts.append(_micro(path, "micro-train", "gemm", rng))
    amd = d / "dataset_amd"
    for name in ("elem", "ln", "softmax"):
        if (amd / "train" / f"{name}.csv").exists():
            parts.append(_micro(amd / "train" / f"{name}.csv", "micro-train", "vec", None))
    for name in ("bmm", "linear"):
        for path in sorted((amd / "test" / "collect" / name).glob("*/*.csv")):
            parts.append(_micro(path, "micro-test", "gemm", rng))
    if not parts:
        raise DataError(f"No NeuSight microbenchmarks under {d}.")
    out = pd.concat(parts, ignore_index=True)
    return out[out["latency_ms"] > 0]


def _literal(text, empty):
    """A trace cell's Python literal (``ast.literal_eval``: literals only, nothing is executed), or ``empty``
    for a cell that is none (not text, malformed, nested past the parser's depth)."""
    if not isinstance(text, str):
        return empty
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return empty


def _shapes(text) -> list[list[int]]:
    v = _literal(text, [])
    if not isinstance(v, (list, tuple)):
        return []
    return [list(s) for s in v if isinstance(s, (list, tuple))]


def _out_shape(text) -> list[int]:
    v = _literal(text, ())
    return list(v) if isinstance(v, tuple) and all(isinstance(x, int) for x in v) else []


_FUNC = re.compile(r"(addmm|matmul|bmm|softmax|gelu|tanh|relu|where|add|mul|truediv|sub|pow|layer_norm)\b")
_ELEM = {"truediv": "div"}


def _module_class(meta: str) -> str:
    m = re.findall(r"<class '([\w.]+)'>", meta or "")
    return m[-1].rsplit(".", 1)[-1] if m else ""


def trace_operator(row) -> tuple[str, int, int, int, int] | None:
    """(op, b, m, n, k) of one FX node of a trace, or None when it is not an operator kept here."""
    ins, out = _shapes(row["input_shapes"]), _out_shape(row["output_shape"])
    if row["op"] == "call_module":
        cls = _module_class(row["meta"])
        if cls in ("Linear", "Conv1D") and ins and out:  # GPT-2's Conv1D is a linear layer
            k, n = ins[0][-1], out[-1]
            return "linear", 1, int(np.prod(out[:-1])), n, k
        if cls == "LayerNorm" and out:
            return "ln", int(np.prod(out[:-1])), 1, out[-1], 1
        if cls in ("NewGELUActivation", "GELUActivation", "GELU", "ReLU", "Tanh") and out:
            op = {"ReLU": "relu", "Tanh": "tanh"}.get(cls, "gelu")
            return op, int(np.prod(out[:-1])), 1, out[-1], 1
        return None
    if row["op"] not in ("call_function", "call_method"):
        return None
    m = _FUNC.search(str(row["target"]))
    if not m or not out or int(np.prod(out)) < 2:
        return None
    f = m.group(1)
    if f == "addmm" and len(ins) == 3:
        (mm, kk), (_, nn) = ins[1][-2:], ins[2][-2:]
        return "linear", 1, mm, nn, kk
    if f in ("matmul", "bmm") and len(ins) == 2 and len(ins[0]) >= 2 and len(ins[1]) >= 2:
        return "bmm", int(np.prod(out[:-2])), ins[0][-2], ins[1][-1], ins[0][-1]
    rows, h = int(np.prod(out[:-1])), out[-1]
    if f in ("softmax", "layer_norm"):
        return ("softmax" if f == "softmax" else "ln"), rows, 1, h, 1
    if f in ("gelu", "tanh", "relu", "where"):
        return f, rows, 1, h, 1
    op = _ELEM.get(f, f)
    tensors = sum(1 for s in ins if int(np.prod(s)) > 1)
    return (op if tensors >= 2 else op + "u"), rows, 1, h, 1


def traces(root: Path) -> pd.DataFrame:
    rows = []
    for folder in sorted((root / "label").iterdir()):
        gpu = FOLDERS.get(folder.name)
        if gpu is None:
            continue
        for path in sorted(folder.glob("*-inf-*.csv")):
            try:
                df = pd.read_csv(path)
            except (OSError, pd.errors.ParserError):
                continue
            if "latency" not in df.columns:  # one L4 trace keeps only whole-model figures
                continue
            model = path.stem
            other = 0.0
            for _, r in df[df["latency"] > 0].iterrows():
                op = trace_operator(r)
                if op is None:
                    other += float(r["latency"])
                else:
                    rows.append({"source": f"trace:{model}", "gpu": gpu, "op": op[0], "b": op[1], "m": op[2],
                                 "n": op[3], "k": op[4], "latency_ms": float(r["latency"])})
            rows.append({"source": f"trace:{model}", "gpu": gpu, "op": "other", "b": 0, "m": 0, "n": 0, "k": 0,
                         "latency_ms": other})
    return pd.DataFrame(rows, columns=COLUMNS)


def build(source: str | Path, out_dir: str | Path) -> dict:
    """Write ``neusight_operators.parquet`` and ``neusight_devices.csv`` from NeuSight's ``scripts/asplos``."""
    root = Path(source)
    if (root / "scripts" / "asplos").is_dir():
        root = root / "scripts" / "asplos"
    if not (root / "label").is_dir() or not (root / "data").is_dir():
        raise DataError(f"{source} is not NeuSight's scripts/asplos folder (no label/ and data/ in it).")
    ops = pd.concat([microbenchmarks(root), traces(root)], ignore_index=True)[COLUMNS]
    for c in ("b", "m", "n", "k"):
        ops[c] = ops[c].astype("int64")
    ops["source"] = ops["source"].astype(str)
    ops = ops.sort_values(COLUMNS[:7], kind="stable").reset_index(drop=True)
    ops["latency_ms"] = ops["latency_ms"].astype("float32")
    dev = devices(root)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ops.to_parquet(out / "neusight_operators.parquet", index=False, compression="zstd")
    dev.to_csv(out / "neusight_devices.csv", index=False)
    return {"operators": len(ops), "gpus": sorted(ops["gpu"].unique()), "devices": len(dev),
            "traces": int(ops["source"].str.startswith("trace:").sum())}
