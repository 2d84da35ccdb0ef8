"""Result keys and job kinds: the one place a key is made and checked.

A key is ``<kind>-<32 hex>``, a digest of the job kind, its validated parameters, the fingerprint of
the data they name and the code version (:func:`modeling.version.code_version`, a digest of the
modeling sources and the numerical packages' versions: a changed model gets new keys, so a shared link
never serves a result an older model computed), and the id of the current project
(:mod:`dashboard.access.projects`, taken on the server, never from the browser), so two projects with the
same inputs never share a result and two members of one project do; :func:`check_key` is applied before a
key names a file or a cache entry.

Results are also kept in the project's name space (:func:`stored_key`): a key copied from another project's
link or page names nothing in yours, whatever its digest."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from dashboard.ui.url_state import InvalidParameter, parse
from modeling.version import code_version


KEY = re.compile(r"^[a-z]{1,24}-[0-9a-f]{32}$")


def _is_key(key) -> bool:
    return isinstance(key, str) and KEY.match(key) is not None


class InvalidKey(ValueError):
    """A result key that the server did not make (wrong type or shape)."""


def check_key(key) -> str:
    """``key`` when it has the shape :func:`result_key` makes (kind, dash, 32 hex digits), else
    ``InvalidKey``. Every use of a key in a path or a cache entry goes through here."""
    if not _is_key(key):
        raise InvalidKey(f"not a result key: {str(key)[:40]!r}")
    return key


def key_of(ref) -> str | None:
    """The key of a page store's ``{"key": …}`` (a request, result or ready store) when it is
    well formed, else None: store values come from the browser and may be forged."""
    key = ref.get("key") if isinstance(ref, dict) else None
    return key if _is_key(key) else None


def result_key(kind: str, params: dict, fingerprint: str) -> str:
    """The key of a ``kind`` result for validated ``params`` on data of ``fingerprint`` in the current
    project, computed by this process's code (:func:`modeling.version.code_version`)."""
    from dashboard.access.projects import current_id

    blob = json.dumps({"kind": kind, "params": params, "data": fingerprint, "code": code_version(),
                       "project": current_id()}, sort_keys=True, default=str)
    return check_key(f"{kind}-{hashlib.sha256(blob.encode()).hexdigest()[:32]}")


def stored_key(key) -> str:
    """Where the result of ``key`` is kept: in the current project's name space (``<key>@p<id>``, or
    ``<key>@none`` without a project). ``InvalidKey`` for a malformed key."""
    from dashboard.access.projects import current_id

    pid = current_id()
    return f"{check_key(key)}@{f'p{pid}' if pid is not None else 'none'}"


@dataclass(frozen=True)
class JobKind:
    """One kind of background job: which validated parameters make its result's key,
    and what computes the result from them.

    A request is always made here, on the server, from raw values (a form, a
    link or a page store the browser sent back): :meth:`request` parses them
    with the kind's own parameters and derives the key; :meth:`from_store`
    does the same for a store and refuses one whose key is not the key of its
    inputs. So no browser can put a result under another input's key.

    ``compute`` is a module-level function (not a lambda or a closure), so that a reader and go-to-definition
    follow a page to its job: the page's ``register_job(prefix, KIND, ...)`` (dashboard/jobs/panel.py), the
    kind ``KIND`` it imports, the function the kind names (tests/dashboard/jobs/test_job_walk.py checks it).
    """

    name: str
    params: tuple  # url_state.Param, in order (later options may depend on earlier values)
    compute: Callable  # (params, report) -> a typed result (modeling.results.Result) or a JSON-ready dict
    fingerprint: Callable  # params -> fingerprint of the data the params name
    check: Callable | None = None  # params -> None, raises InvalidParameter for combinations parse cannot see
    dataset: Callable | None = None  # params -> (id, name) of the data the params name, for the provenance

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def run(self, params: dict, report):
        """What a job of this kind computes: :attr:`compute`'s result, stamped with its
        :class:`~modeling.results.Provenance` (this kind and its parameters, the data's id, name and fingerprint,
        the code version, the date, the seconds it took) when it is a typed result with a ``provenance`` field.
        The one place a job's provenance is made."""
        import time

        from modeling.results import Provenance, stamped

        t0 = time.perf_counter()
        value = self.compute(params, report)
        ident, name = self.dataset(params) if self.dataset else (None, None)
        return stamped(value, Provenance.now(self.name, params, ident, name, self.fingerprint(params),
                                             seconds=time.perf_counter() - t0))

    def key(self, params: dict) -> str:
        return result_key(self.name, params, self.fingerprint(params))

    def request(self, raw: dict) -> dict:
        """``{"kind", "params", "key"}`` from raw values; raises InvalidParameter / LookupError."""
        params = parse(raw, list(self.params))
        if self.check:
            self.check(params)
        return {"kind": self.name, "params": params, "key": self.key(params)}

    def from_store(self, stored) -> dict:
        """The request a page store names, parsed again; its key is recomputed and compared."""
        if not isinstance(stored, dict) or not isinstance(stored.get("params"), dict):
            raise InvalidParameter("request", "not a job request")
        if stored.get("kind", self.name) != self.name:
            raise InvalidParameter("request", f"a {str(stored.get('kind'))[:24]!r} request sent to a {self.name} job")
        req = self.request(stored["params"])
        if stored.get("key") is not None and stored.get("key") != req["key"]:
            raise InvalidParameter("key", "does not match the request's inputs (refused)")
        return req
