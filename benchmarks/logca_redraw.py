"""Server time of one redraw of the LogCA and Accelerometer pages (goal: under 100 ms).

Measures the view functions the page callbacks call (model, regions, totems,
advisor and figure JSON), after one warm-up that loads the measured fit.
The ratio is against the 100 ms budget of the issue and against the same
views built with plotly ``go.Figure`` objects (the baseline, same run).

    PYTHONPATH=. python benchmarks/logca_redraw.py
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

os.environ.setdefault("PERFCAST_VAR_DIR", tempfile.mkdtemp(prefix="perfcast-bench-"))

from dashboard import accel_sources  # noqa: E402
from dashboard.logca_views import (MULTI_MODES, OptionalFloat, accelerometer_view,  # noqa: E402
                                   granularity_params, logca_view)
from dashboard.url_state import Param, parse  # noqa: E402

BUDGET_MS = 100.0


def _logca_values():
    params = [accel_sources.TimingParam("timing", "choice"),
              Param("acc", "multi", ["openssl-x86:aes-128-ctr", "ultrasparc-t2:aes", "sandy-bridge:aes"],
                    accel_sources.names),
              Param("focus", "choice", "openssl-x86:aes-128-ctr", lambda v: v["acc"]),
              *accel_sources.custom_params(), *granularity_params(), Param("tab", "choice", "energy", ["energy"]),
              Param("mode", "choice", "parallel-balanced", list(MULTI_MODES)),
              Param("n", "multi", ["1", "2", "4", "8"], [str(i) for i in range(1, 9)]),
              *[OptionalFloat(f"e{k}", "float", None, None, 0, 1e30) for k in "LoCA"]]
    return parse({}, params)


def _accel_values():
    params = [accel_sources.TimingParam("timing", "choice"),
              Param("acc", "choice", "ultrasparc-t2:aes", accel_sources.names),
              *accel_sources.custom_params(), *granularity_params(), Param("factor", "float", 10.0),
              Param("threshold", "float", 20.0), Param("target", "float", 12.0), Param("g0", "float", 4096.0)]
    return parse({}, params)


def _time(fn, v, repeats=15):
    fn(v)
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(v)
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out)


def _as_go(view):
    import plotly.graph_objects as go

    def wrapped(v):
        res = view(v)
        return {k: go.Figure(x) if isinstance(x, dict) and "data" in x else x for k, x in res.items()}
    return wrapped


def main() -> None:
    for name, view, values in (("logca", logca_view, _logca_values()),
                               ("accelerometer", accelerometer_view, _accel_values())):
        ms = _time(view, values)
        base = _time(_as_go(view), values, 5)
        print(f"{name:14s} redraw {ms:7.1f} ms  = {ms / BUDGET_MS:.2f} x the 100 ms budget; "
              f"with go.Figure objects {base:7.1f} ms (x{base / ms:.1f} slower)")


if __name__ == "__main__":
    main()
