"""The assets_ignore pattern of a script in ``assets/`` that a setting can leave out of every page.

``chart_order``, ``polyfill``, ``grid_loading`` and ``layout_prefetch`` each switch one script between
perfcast's behaviour and Dash's own (the "before" side of ``benchmarks/shared_link.py``); ``app.py`` joins
their patterns into Dash's ``assets_ignore``, which Dash matches against file names.
"""

from __future__ import annotations

import re


def left_out(script: str, leave_out: bool) -> str:
    """A pattern matching exactly ``script`` when it is left out, else the empty pattern (nothing ignored)."""
    return f"^{re.escape(script)}$" if leave_out else ""
