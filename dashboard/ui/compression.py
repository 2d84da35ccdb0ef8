"""The JavaScript and CSS bundles are compressed once per server worker, not once per request.

Dash compresses its responses (``compress=True``, flask-compress), but it does so on every request:
a new browser profile asks for 2.7 MB of scripts (plotly.js, AG Grid, Dash's own) and each worker
compressed them again for every visitor, about 0.1 s of the first visit spent waiting for the server's
compressor, with the browser idle. Here the compressed bytes of a static bundle are kept in the worker,
keyed by the encoding and the bundle's full URL (Dash's URLs carry the package version or the file's
modification time, so a changed file has a new key), and a worker compresses them all once when it
starts (:func:`compress_bundles`, called by gunicorn's ``post_worker_init``).
``PERFCAST_STATIC_COMPRESSION=per-request`` compresses every response again, as Dash does (the "before"
side of ``benchmarks/shared_link.py``).

Only GET requests for ``/_dash-component-suites/`` and ``/assets/`` are kept, with no query or Dash's
``?m=<mtime>`` (a visitor cannot fill the cache by varying the query; the size is bounded anyway).

Every other answer (a page, ``/_dash-layout``, a callback's answer) is compressed for each request, at the
fastest level of its encoding (:data:`ANSWER_LEVELS`: brotli quality 1, gzip and deflate level 1, zstd level 1)
instead of flask-compress's defaults (brotli 4, gzip 6, zstd 3): compressing these answers at the default
levels took about a sixth of a cached view's server CPU, the fastest levels a third of that, for answers
about 10 % larger (a cached /scenario page's 110 kB router answer: 18.7 kB instead of 16.4 kB with brotli).
The kept bundles, compressed once, stay at the default levels. A file from ``assets/`` is read
whole (it was streamed) so that its compressed form can be kept; every such file is small enough to hold.
"""

from __future__ import annotations

import copy
import re
import sys
from collections import ChainMap

from cachetools import LRUCache
from flask import request

from dashboard.request_checks import local_host
from dashboard.settings import STATIC_COMPRESSION
from modeling.parallel import ForkSafeLock

STATIC_PREFIXES = ("/_dash-component-suites/", "/assets/")
#: the key of a response that is not kept (a URL path always starts with "/")
NOT_KEPT = "-"
#: what a worker holds at most; the pages' bundles take about 3.4 MB compressed (zstd)
MAX_BYTES = 64 * 1024 * 1024
#: the query Dash puts on an asset's URL (its modification time); the only one a kept response may have
_FINGERPRINT = re.compile(r"m=[0-9]+(\.[0-9]+)?")
#: what browsers send (Chromium, Firefox): the encoding flask-compress picks for them is the one warmed
BROWSER_ACCEPT_ENCODING = "gzip, deflate, br, zstd"


def cache_key(req) -> str:
    """flask-compress's COMPRESS_CACHE_KEY: the full URL of a static bundle, else :data:`NOT_KEPT`."""
    if req.method != "GET" or not req.path.startswith(STATIC_PREFIXES):
        return NOT_KEPT
    query = req.query_string.decode("latin-1")
    if query and not _FINGERPRINT.fullmatch(query):  # any other query would only fill the cache
        return NOT_KEPT
    return f"{req.path}?{query}" if query else req.path


class BundleCache:
    """flask-compress's cache backend (``get``/``set``): compressed bytes by key, least recently used
    dropped beyond :data:`MAX_BYTES` (a ``cachetools.LRUCache`` sized in bytes); keys ending in
    :data:`NOT_KEPT` are never stored."""

    def __init__(self, max_bytes: int = MAX_BYTES):
        self.max_bytes = max_bytes
        self._items = LRUCache(maxsize=max_bytes, getsizeof=len)
        self._lock = ForkSafeLock()

    @staticmethod
    def _kept(key: str) -> bool:
        return not key.endswith(";" + NOT_KEPT)

    def get(self, key: str):
        if not self._kept(key):
            return None
        with self._lock:
            return self._items.get(key)

    def set(self, key: str, value: bytes) -> None:
        if not self._kept(key) or len(value) > self.max_bytes:
            return
        with self._lock:
            self._items[key] = value

    def __len__(self) -> int:
        return len(self._items)


#: the levels a per-request answer is compressed at (module docstring), over the server's COMPRESS_* settings
ANSWER_LEVELS = {"COMPRESS_BR_LEVEL": 1, "COMPRESS_LEVEL": 1, "COMPRESS_DEFLATE_LEVEL": 1, "COMPRESS_ZSTD_LEVEL": 1}


class _AnswerSettings:
    """What flask-compress reads its settings from (``app.config``) when it compresses a per-request answer:
    the server's settings with :data:`ANSWER_LEVELS` over them."""

    def __init__(self, server):
        self.config = ChainMap(ANSWER_LEVELS, server.config)


def _answers_compressor(compress, server):
    """An after-request hook that compresses every answer that is not a kept bundle with ``compress``'s own
    choices (encoding, types, sizes, streams) at :data:`ANSWER_LEVELS`. It runs just before ``compress``'s own
    hook, which then leaves the answer as it is (it has a Content-Encoding), or decides not to compress it for
    the same reasons."""
    fast = copy.copy(compress)
    fast.app, fast.cache, fast.cache_key = _AnswerSettings(server), None, None

    def _compress_answer(response):
        if cache_key(request) != NOT_KEPT:
            return response  # a bundle: compressed once at the default level and kept (``compress``'s hook)
        return fast.after_request(response)

    return _compress_answer


def _read_whole(response):
    """An ``assets/`` file is streamed from disk; read it whole so that its compressed form is kept.
    Runs before flask-compress's own after-request hook (Flask runs them newest first)."""
    if response.status_code == 200 and response.is_streamed and request.method == "GET" \
            and request.path.startswith("/assets/"):
        response.direct_passthrough = False
        response.set_data(response.get_data())
    return response


def compressors(server) -> list:
    """The flask-compress objects Dash registered on ``server`` (one, unless compression is off)."""
    from flask_compress import Compress

    return [h.__self__ for h in server.after_request_funcs.get(None, [])
            if isinstance(getattr(h, "__self__", None), Compress)]


def install(app) -> None:
    """Keep compressed static bundles in each worker: give Dash's flask-compress a cache (its settings
    were read when Dash set it up, so the cache and key go to the object itself)."""
    if STATIC_COMPRESSION == "per-request":
        return
    server = app.server
    found = compressors(server)
    hooks = server.after_request_funcs.setdefault(None, [])
    for compress in found:
        compress.cache, compress.cache_key = BundleCache(), cache_key
        # after its position in the list: Flask runs after-request hooks last registered first
        hooks.insert(hooks.index(compress.after_request) + 1, _answers_compressor(compress, server))
    if found:  # with compression off, assets stay streamed
        server.after_request(_read_whole)


_URL = re.compile(r'(?:src|href)="(/(?:_dash-component-suites|assets)/[^"]+)"')


def bundle_urls(server) -> list[str]:
    """The static URLs a page loads: those in the index page, and the chunks Dash fetches on demand."""
    from dash.development.base_component import ComponentRegistry

    from dashboard.access.gate import INTERNAL

    with server.test_client() as client:  # the server's own request (past the gate: see dashboard/access/gate.py)
        html = client.get("/", headers={"Accept-Encoding": "identity", "Host": local_host()},
                          environ_base={INTERNAL: True}).get_data(as_text=True)
    urls = list(dict.fromkeys(u.replace("&amp;", "&") for u in _URL.findall(html)))
    libraries = set(ComponentRegistry.registry)
    modules = [m for name, m in sorted(sys.modules.items()) if name.split(".")[0] in libraries]
    for module in modules:  # a library and its sub-packages (dash.dcc, dash.html, ...)
        dist = getattr(module, "_js_dist", None)
        for r in dist if isinstance(dist, list) else []:
            if r.get("async") is True and not r.get("dynamic"):
                urls.append(f"/_dash-component-suites/{r['namespace']}/{r['relative_package_path']}")
    return list(dict.fromkeys(urls))


def compress_bundles(server) -> int:
    """Request every static bundle of the Flask ``server`` once, as a browser would, so each is compressed
    and kept before the first visitor; returns how many were requested."""
    if STATIC_COMPRESSION == "per-request":
        return 0
    from dashboard.access.gate import INTERNAL

    urls = bundle_urls(server)
    with server.test_client() as client:
        for url in urls:
            client.get(url, headers={"Accept-Encoding": BROWSER_ACCEPT_ENCODING, "Host": local_host()},
                       environ_base={INTERNAL: True})
    return len(urls)
