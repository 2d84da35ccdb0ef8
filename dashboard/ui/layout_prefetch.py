"""When the page asks for its layout: while its scripts still run (``assets/early-layout.js``).

Dash's renderer requests ``_dash-layout`` and ``_dash-dependencies`` only after every script of the page
has run; in a new browser profile plotly.js alone runs for about 0.3 s before that, and the answers then
take 30-120 ms more (``benchmarks/shared_link.py``, a long-animation-frame record of /generations). The
script in ``assets/`` runs before plotly.js and sends the same two requests, and hands their responses to
the renderer when it asks, each once. ``PERFCAST_LAYOUT_REQUEST=renderer`` leaves it out (Dash's behaviour:
the "before" side of the benchmark).
"""

from __future__ import annotations

from dashboard.settings import LAYOUT_REQUEST
from dashboard.ui.asset_switch import left_out

SCRIPT = "early-layout.js"


def by_renderer() -> bool:
    return LAYOUT_REQUEST == "renderer"


def assets_ignore() -> str:
    """Dash's assets_ignore pattern: the script is left out when the renderer asks for the layout itself."""
    return left_out(SCRIPT, by_renderer())
