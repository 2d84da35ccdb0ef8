"""Which generator runtime the browser loads: ``assets/generator-runtime.js`` (2 kB), not Babel's polyfill.

Dash loads ``@babel/polyfill`` (99 kB: core-js 2 and regenerator) before React. Of it, the pages need only
``regeneratorRuntime.mark`` / ``.wrap``, which the lazy-component helper of dash-renderer and dcc call (no
other bundle the pages load refers to it: checked by a test); every other part polyfills language
features that browsers of the last five years have built in. The small runtime in ``assets/`` does what
that helper asks of it. ``PERFCAST_POLYFILL=babel`` serves Dash's polyfill instead (the "before" side of
``benchmarks/shared_link.py``).
"""

from __future__ import annotations

from dashboard.settings import POLYFILL
from dashboard.ui.asset_switch import left_out

RUNTIME = "generator-runtime.js"


def babel() -> bool:
    return POLYFILL == "babel"


def assets_ignore() -> str:
    """Dash's assets_ignore pattern: the small runtime is left out when Babel's polyfill is served."""
    return left_out(RUNTIME, babel())


def install() -> None:
    """Drop Dash's registration of Babel's polyfill (module docstring), unless it is asked for."""
    if babel():
        return
    from dash import _dash_renderer  # Dash's registry of the renderer's dependencies

    for dist in _dash_renderer._js_dist_dependencies:  # noqa: SLF001
        for where in ("relative_package_path", "external_url"):
            for mode, paths in dist.get(where, {}).items():
                dist[where][mode] = [p for p in paths if "polyfill" not in p]
