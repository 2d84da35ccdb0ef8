"""Whether a page's charts are drawn one after another (``assets/chart-order.js``) or all in one task.

dcc.Graph draws every chart of a page in the same task, and the browser shows none of them until the
last one is drawn. ``assets/chart-order.js`` draws the first at once and the others one per frame after
it. ``PERFCAST_CHART_ORDER=together`` leaves the script out (Dash's behaviour: the "before" side of
``benchmarks/shared_link.py``).
"""

from __future__ import annotations

from dashboard.settings import CHART_ORDER
from dashboard.ui.asset_switch import left_out

SCRIPT = "chart-order.js"


def together() -> bool:
    return CHART_ORDER == "together"


def assets_ignore() -> str:
    """Dash's assets_ignore pattern: the script is left out when the charts are drawn together."""
    return left_out(SCRIPT, together())
