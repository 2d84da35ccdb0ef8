"""Which plotly.js the browser loads: the vendored partial bundle (1.5 MB), not Dash's full one (4.8 MB).

Dash registers the full plotly.js as an eager resource of dcc; a new browser profile downloads and
compiles it before the first chart of any page is drawn. The cartesian distribution of plotly.js
(vendored by ``scripts/vendor_plotly.sh`` at the version the Python plotly ships) has every trace
type the pages draw (:data:`TRACES`); it is served from ``assets/vendor`` and defines
``window.Plotly``, which dcc.Graph uses when present. ``PERFCAST_PLOTLY_BUNDLE=full`` serves Dash's
full bundle instead (the "before" side of ``benchmarks/shared_link.py``).

The vendoring command wraps the bundle's factory in parentheses (:func:`eager_factory`). The bundle is a
UMD wrapper called with the factory as an unparenthesized arrow function, which V8 compiles lazily, on the
page's main thread when it is called: 70-75 ms of a new profile's first visit, measured. A parenthesized
function is compiled eagerly, off the main thread while the script streams in. Nothing else changes.

dcc.Graph's own code (``async-graph.js``, 14 kB) is a lazy chunk: Dash fetches it only once the page's
layout has rendered a graph, and React then draws the graphs one suspended boundary at a time behind the
grids, about 0.3 s after the numbers of a shared link. With the partial bundle it is served as an
ordinary script instead, so a page's charts are drawn as soon as its layout arrives.
"""

from __future__ import annotations


from dashboard.settings import ROOT

#: Trace types of the vendored cartesian bundle (its README; checked against the file by a test).
TRACES = frozenset({"bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour", "image",
                    "pie", "scatter", "scatterternary", "violin"})
VENDOR = ROOT / "assets" / "vendor"


#: the UMD call as plotly.js ships it, and as the vendored file has it (the factory parenthesized)
UMD_CALL = '} (typeof self !== "undefined" ? self : this, () => {'
UMD_END = "window.Plotly = Plotly;\nreturn Plotly;\n}));"
EAGER_CALL = UMD_CALL.replace("() => {", "(() => {")
EAGER_END = UMD_END[:-len("));")] + ")));"


def eager_factory(text: str) -> str:
    """The bundle's text with its factory parenthesized (module docstring); unchanged if it is already."""
    if text.count(EAGER_CALL) == 1 and text.rstrip().endswith(EAGER_END):
        return text
    body = text.rstrip()
    if text.count(UMD_CALL) != 1 or not body.endswith(UMD_END):
        raise ValueError("plotly.js bundle: its UMD wrapper is not the expected one; vendor it unchanged "
                         "and update dashboard/ui/plotly_bundle.py")
    return body[:-len(UMD_END)].replace(UMD_CALL, EAGER_CALL) + EAGER_END + text[len(body):]


def partial() -> bool:
    from dashboard import settings

    return settings.PLOTLY_BUNDLE != "full"


def assets_ignore() -> str:
    """Dash's assets_ignore pattern: the vendored bundle is left out when the full one is served."""
    return "" if partial() else r"^plotly-cartesian-.*\.js$"  # Dash matches file names, not paths


def bundle_file():
    found = sorted(VENDOR.glob("plotly-cartesian-*.min.js"))
    return found[-1] if found else None


def install(app) -> None:
    """Drop Dash's registration of the full plotly.js when the partial bundle is served, and load
    dcc.Graph's code with the page instead of on demand."""
    if not partial() or bundle_file() is None:
        return
    from dash import dcc

    dcc._js_dist[:] = [r for r in dcc._js_dist if r.get("namespace") != "plotly"]  # noqa: SLF001 - Dash's registry
    for r in dcc._js_dist:  # noqa: SLF001
        if r.get("relative_package_path") == "dcc/async-graph.js":
            r["async"] = False  # an ordinary script of the page; webpack finds the chunk already loaded
