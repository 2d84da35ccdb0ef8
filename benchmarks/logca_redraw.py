"""Server time of one redraw of the LogCA and Accelerometer pages (goal: under 100 ms).

Measures the view functions the page callbacks call (model, regions, totems,
advisor and figure JSON), after one warm-up that loads the measured fit.
The ratio is against the 100 ms budget of the issue and against the same
views built with plotly ``go.Figure`` objects (the baseline, same run).

    .venv/bin/python benchmarks/logca_redraw.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PERFCAST_VAR_DIR", tempfile.mkdtemp(prefix="perfcast-bench-"))

from dashboard.accelerators.views import ACCEL_PARAMS, LOGCA_PARAMS, accelerometer_view, logca_view  # noqa: E402
from dashboard.ui.url_state import parse  # noqa: E402

BUDGET_MS = 100.0


def _logca_values():
    # three accelerators, the balanced parallel split (the heaviest tab computation) for n = 1, 2, 4, 8
    return parse({"mode": "parallel-balanced"}, LOGCA_PARAMS)


def _accel_values():
    return parse({}, ACCEL_PARAMS)


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
