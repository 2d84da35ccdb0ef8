"""When AG Grid's code runs: after the page's first chart (``assets/grid-later.js``), not before its layout.

Every page has grids (``dashboard/ui/components.py``), and Dash runs each component library's script before
it asks for the page's layout. AG Grid's is the largest after plotly.js (1.3 MB, 360 kB compressed); in a new
browser profile its run and the grids' first render took 150-250 ms of the time to a shared link's first
chart (a profile of /generations, ``benchmarks/shared_link.py``). Here Dash's tag for that script gets a
type browsers do not run (:data:`LATER`), so the script is neither fetched nor run with the page; the
stand-in in ``assets/grid-later.js`` fetches it from that tag once the page's first chart is drawn (at once on
a page without charts, after 3 s at most otherwise).
Dash still registers and fingerprints the file, so it is served and cached exactly as before.
``PERFCAST_GRID_LOADING=eager`` keeps Dash's behaviour (the "before" side of the benchmark).
"""

from __future__ import annotations

from dashboard.settings import GRID_LOADING
from dashboard.ui.asset_switch import left_out

SCRIPT = "grid-later.js"
NAMESPACE = "dash_ag_grid"
MAIN = "dash_ag_grid.min.js"
#: the attributes of Dash's script tag for AG Grid's code when it runs later
LATER = {"type": "perfcast/later", "data-perfcast-later": NAMESPACE}


def eager() -> bool:
    return GRID_LOADING == "eager"


def assets_ignore() -> str:
    """Dash's assets_ignore pattern: the stand-in is left out when the grid's code runs with the page."""
    return left_out(SCRIPT, eager())


def install() -> None:
    """Mark AG Grid's script as one the page carries but does not run (module docstring)."""
    if eager():
        return
    import dash_ag_grid

    main = [r for r in dash_ag_grid._js_dist if r.get("relative_package_path") == MAIN]  # noqa: SLF001
    if len(main) != 1:
        raise RuntimeError(f"dash_ag_grid {dash_ag_grid.__version__}: no single {MAIN} in its scripts; "
                           "update dashboard/ui/grid_loading.py")
    main[0]["attributes"] = dict(LATER)
