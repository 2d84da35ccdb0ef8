"""Static bundles are compressed once per worker and kept (dashboard/ui/compression.py); callback
responses are not kept; an assets/ file is served whole, compressed; the warm-up compresses what a page
loads, the chunks Dash fetches on demand included."""

import gzip
import re

import pytest

from dashboard.ui import compression
from dashboard.ui.compression import NOT_KEPT, BundleCache

GZIP = {"Accept-Encoding": "gzip"}


def _cache(server):
    [compress] = compression.compressors(server)
    return compress.cache


def _script_urls(client):
    html = client.get("/logca").get_data(as_text=True)
    return [u.replace("&amp;", "&") for u in re.findall(r'<script src="([^"]+)"', html)]


def test_a_bundle_is_compressed_once_and_the_same_bytes_are_served_again(perfcast_app):
    client = perfcast_app.server.test_client()
    url = next(u for u in _script_urls(client) if "dash_ag_grid" in u)
    plain = client.get(url, headers={"Accept-Encoding": "identity"})
    first, second = client.get(url, headers=GZIP), client.get(url, headers=GZIP)
    assert first.headers["Content-Encoding"] == "gzip" and first.data == second.data
    assert gzip.decompress(first.data) == plain.data and len(first.data) < len(plain.data) / 2
    assert _cache(perfcast_app.server).get(f"gzip;{url}") == first.data
    assert first.headers["Cache-Control"] == "max-age=31536000"  # a fingerprinted URL


def test_an_assets_file_is_served_whole_and_compressed(perfcast_app):
    client = perfcast_app.server.test_client()
    url = next(u for u in _script_urls(client) if "/assets/vendor/plotly-cartesian" in u)
    r = client.get(url, headers=GZIP)
    assert r.headers["Content-Encoding"] == "gzip"
    assert int(r.headers["Content-Length"]) == len(r.data)
    from dashboard.ui import plotly_bundle

    assert gzip.decompress(r.data) == plotly_bundle.bundle_file().read_bytes()
    assert _cache(perfcast_app.server).get(f"gzip;{url}") == r.data


def test_callback_responses_and_pages_are_not_kept(perfcast_app):
    cache = _cache(perfcast_app.server)
    client = perfcast_app.server.test_client()
    before = len(cache)
    r = client.post("/_dash-update-component", headers=GZIP, json={
        "output": "logca-speedup-graph.figure", "outputs": {"id": "logca-speedup-graph", "property": "figure"},
        "inputs": [], "changedPropIds": []})
    assert r.status_code in (200, 204, 400, 500)
    client.get("/logca", headers=GZIP)
    client.get("/_dash-layout", headers=GZIP)
    assert len(cache) == before


def _gzip_level(data: bytes) -> str:
    """What a gzip member's header says of its compressor's level (RFC 1952, XFL): fastest (level 1), best
    (level 9), or neither."""
    return {4: "fastest", 2: "best"}.get(data[8], "default")


def test_answers_are_compressed_at_the_fastest_level_and_kept_bundles_at_the_default(perfcast_app):
    """A page, the layout and a callback's answer are compressed for each request: at the fastest level (they
    decode to the same bytes). A kept bundle is compressed once, at the default level."""
    import brotli

    client = perfcast_app.server.test_client()
    page = client.get("/logca", headers=GZIP)  # (a page carries a new signed endId each time)
    assert b"</html>" in gzip.decompress(page.data) and _gzip_level(page.data) == "fastest"
    for path in ("/_dash-layout", "/_dash-dependencies"):
        plain = client.get(path, headers={"Accept-Encoding": "identity"}).data
        fast = client.get(path, headers=GZIP)
        assert fast.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in fast.headers["Vary"]
        assert gzip.decompress(fast.data) == plain and _gzip_level(fast.data) == "fastest", path
        br = client.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})
        assert br.headers["Content-Encoding"] == "br" and brotli.decompress(br.data) == plain
        assert br.data == brotli.compress(plain, quality=compression.ANSWER_LEVELS["COMPRESS_BR_LEVEL"]), path
    url = next(u for u in _script_urls(client) if "dash_ag_grid" in u)
    kept = client.get(url, headers=GZIP)
    assert _gzip_level(kept.data) == "default" and _cache(perfcast_app.server).get(f"gzip;{url}") == kept.data


def test_the_warm_up_compresses_every_bundle_a_page_loads(perfcast_app):
    server = perfcast_app.server
    urls = compression.bundle_urls(server)
    assert any("async-community.js" in u for u in urls) and any("async-dropdown.js" in u for u in urls)
    client = server.test_client()
    assert set(_script_urls(client)) <= set(urls)
    assert compression.compress_bundles(server) == len(urls)
    cache = _cache(server)
    for url in urls:
        encoding = client.get(url, headers={"Accept-Encoding": compression.BROWSER_ACCEPT_ENCODING}) \
            .headers.get("Content-Encoding")
        assert cache.get(f"{encoding};{url}") is not None, url


def test_the_cache_keeps_least_recently_used_within_its_size_and_never_a_not_kept_key():
    cache = BundleCache(max_bytes=10)
    cache.set("br;/a", b"12345")
    cache.set("br;/b", b"12345")
    assert cache.get("br;/a") == b"12345"  # /a now most recent
    cache.set("br;/c", b"123")
    assert cache.get("br;/b") is None and cache.get("br;/a") and cache.get("br;/c")
    cache.set(f"br;{NOT_KEPT}", b"1")
    assert cache.get(f"br;{NOT_KEPT}") is None
    cache.set("br;/huge", b"x" * 11)
    assert cache.get("br;/huge") is None


@pytest.mark.parametrize("method, path, kept", [("GET", "/assets/style.css", True),
                                                ("GET", "/assets/style.css?m=1795385116.85", True),
                                                ("GET", "/assets/style.css?m=1&x=2", False),
                                                ("GET", "/assets/style.css?anything", False),
                                                ("GET", "/_dash-component-suites/dash/x.js", True),
                                                ("POST", "/_dash-update-component", False),
                                                ("GET", "/_dash-layout", False), ("GET", "/logca", False)])
def test_only_static_get_requests_have_a_key(perfcast_app, method, path, kept):
    with perfcast_app.server.test_request_context(path, method=method):
        from flask import request

        assert (compression.cache_key(request) != NOT_KEPT) is kept
