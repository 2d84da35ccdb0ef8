"""The GPU event count tables for count prediction, from the gpuperfpredict profiles (Amaris et al., CC BY 4.0).

For every Rodinia kernel measured on one GPU (GTX-980 by default), the exact integer nvprof event counts
against its input sizes, in the count-table layout (``program``, ``input_size_1``[, ``input_size_2``],
``block`` = the event, ``count``): the GPU analogue of basic-block counts, measured by nobody here.

Every input size was run once, its launches being the steps of that run (LU launches ``lud_diagonal`` N/16
times and ``lud_perimeter`` N/16 - 1 times, heartwall once per frame, hotspot once per iteration): the
events of all launches of a size are summed, so a count is the event total of one run of the application at
that size. An input size that never varies for a kernel is not a parameter.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from modeling.build.rodinia import KERNEL_LABEL, SIZE_COLS, _read_launches
from modeling.errors import DataError

#: events that are exact counts of work (identical across repeated launches on every kernel)
EVENTS = ("inst_executed", "warps_launched", "gld_request", "gst_request", "shared_load", "shared_store",
          "gld_inst_32bit", "gst_inst_32bit", "executed_control_flow_instructions",
          "executed_load_store_instructions", "floating_point_operations_single_precision_fma",
          "shared_store_transactions", "global_store_transactions")
KERNELS = ("bpnn_layerforward_CUDA", "bpnn_adjust_weights_cuda", "calculate_temp", "kernel", "lud_diagonal",
           "lud_perimeter")
GPU = "GTX-980"


def kernel_table(path: Path, program: str) -> pd.DataFrame:
    df = _read_launches(path)
    events = [e for e in EVENTS if e in df.columns]
    totals = df.groupby(SIZE_COLS, sort=True)[events].sum().round().reset_index()
    sizes = [c for c in SIZE_COLS if totals[c].nunique() > 1]
    long = totals.melt(id_vars=SIZE_COLS, value_vars=events, var_name="block", value_name="count")
    long.insert(0, "program", program)
    long["count"] = long["count"].astype("int64")
    for c in SIZE_COLS:
        long[c] = long[c].astype("int64")
    return long[["program", *sizes, "block", "count"]]


def build(source: Path, gpu: str = GPU) -> pd.DataFrame:
    source = Path(source)
    frames = []
    for k in KERNELS:
        path = source / f"{k}-{gpu}.csv.gz"
        if not path.is_file():
            raise DataError(f"{path} not found (the gpuperfpredict rodinia-2018 folder)")
        frames.append(kernel_table(path, KERNEL_LABEL.get(k, k)))
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(["program", "block", *[c for c in SIZE_COLS if c in out]], kind="stable",
                          ignore_index=True)
