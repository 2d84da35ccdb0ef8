"""Who did what, in the server's log: one line (logger ``perfcast.audit``) per state change and per refused
request, e.g. ``audit: dataset deleted from=127.0.0.1 dataset=ds-0123456789abcdef``.

The client's address is derived on the server (the connection's peer address, ``request.remote_addr``;
in a job process the one Dash recorded from the request that started it), never from anything the browser
sends. Behind a proxy it is the proxy's address: the proxy's own access log has the client's. The user is
the one signed in by the request's session (``user=``, last on the line; in a background job, the session
that started it), derived on the server, never from a callback value.

Each event is also a row of the ``audit_events`` table (dashboard/access: when, user, address, action and
the ids as JSON), written after the log line; a database failure is logged and never stops the action.
"""

from __future__ import annotations

import atexit
import functools
import logging
import re

log = logging.getLogger("perfcast.audit")

_UNSAFE = re.compile(r"[^\w.:@/+-]")


def trusted_peer(address: str | None) -> bool:
    """Is ``address`` one of ``PERFCAST_TRUSTED_PROXIES`` (addresses or CIDRs; an IPv4-mapped IPv6 address as
    its IPv4 address)? A proxy there says who its client was in ``X-Forwarded-For``."""
    import ipaddress

    from dashboard import settings

    if not address or not settings.TRUSTED_PROXIES:
        return False
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if getattr(ip, "ipv4_mapped", None):  # ::ffff:10.0.0.5 on a dual-stack socket
        ip = ip.ipv4_mapped
    return any(ip in net for net in _networks(tuple(settings.TRUSTED_PROXIES)))


@functools.lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple:
    """The trusted proxies' networks, parsed once per setting (asked for every hop of every forwarded request);
    an entry that is not one is skipped here (refused at start: dashboard/access/proxy.py check_settings)."""
    import ipaddress

    nets = []
    for entry in entries:
        try:
            nets.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            continue
    return tuple(nets)


def without_port(hop: str) -> str:
    """An ``X-Forwarded-For`` entry's address without a port: ``1.2.3.4:5678`` -> ``1.2.3.4``,
    ``[2001:db8::1]:443`` -> ``2001:db8::1``; anything else as it is (an IPv6 address has colons of its own)."""
    if hop.startswith("["):
        return hop[1:].partition("]")[0]
    head, sep, port = hop.rpartition(":")
    if sep and ":" not in head and port.isdigit():
        return head
    return hop


def forwarded_client(peer: str | None, forwarded_for: str | None) -> str:
    """The client's address: the connection's peer, or when the peer is a trusted proxy (the buffering front
    ``./run.sh`` starts, or a team's own), the nearest ``X-Forwarded-For`` entry that is not a trusted proxy,
    without its port. An entry that is no address is returned as it is (the caller decides)."""
    address = (peer or "-").split("%", 1)[0]
    if forwarded_for and trusted_peer(address):
        hops = [without_port(h.strip()) for h in forwarded_for.split(",") if h.strip()]
        for hop in reversed(hops):
            if not trusted_peer(hop):
                return hop[:64]
    return address


def client_address() -> str:
    """The address of the client this code is serving: the request's peer address (behind a trusted proxy, the
    client it names: :func:`forwarded_client`), or in a background job the address of the request that started
    it; "-" outside both (a command, a warm-up)."""
    from flask import has_request_context, request

    if has_request_context():
        return forwarded_client(request.remote_addr, request.headers.get("X-Forwarded-For")) or "-"
    try:  # a background job: Dash passes the starting request's context (request.remote_addr) to the job
        from dash._callback_context import context_value

        return str(getattr(context_value.get(), "remote", "") or "-")
    except LookupError:
        return "-"


#: set by dashboard.access when it is imported (it depends on this module, not the other way round):
#: who is signed in for the code being served, the project it works in, and where each event is also stored
#: (the audit_events table)
_USER_SOURCE = [lambda: None]
_PROJECT_SOURCE = [lambda: None]
_SINKS: list = []


def connect(user_source, sink, project_source=None) -> None:
    """Called by :mod:`dashboard.access`: ``user_source()`` names the signed-in user (or None),
    ``project_source()`` gives the current project's id (or None); ``sink(action, address, user, ids,
    project_id)`` stores each event."""
    _USER_SOURCE[:] = [user_source]
    if project_source is not None:
        _PROJECT_SOURCE[:] = [project_source]
    if sink not in _SINKS:
        _SINKS.append(sink)


def project_id() -> int | None:
    """The id of the project the code being served works in (None: none, or unknown)."""
    try:
        return _PROJECT_SOURCE[0]()
    except Exception:  # noqa: BLE001 - the trail never stops an action; an unknown project is recorded as none
        return None


def user_name() -> str | None:
    """The signed-in user this code is serving (None when nobody is, or outside a request and a job)."""
    try:
        return _USER_SOURCE[0]()
    except (LookupError, RuntimeError):
        return None


def actor(address: str | None = None) -> dict:
    """Who acts: the client's address, and the signed-in user when there is one."""
    who = {"from": address or client_address()}
    if (name := user_name()) is not None:
        who["user"] = name
    return who


def _text(value) -> str:
    """A value as one log token: at most 200 characters, anything but word characters and ``.:@/+-`` as ``?``
    (a name or path typed by a user cannot forge a line or a field)."""
    return _UNSAFE.sub("?", str(value))[:200] or '""'


def record(action: str, address: str | None = None, **ids) -> None:
    """Log ``action`` (a few words: "dataset saved") with who did it and the ids involved. A refusal that
    anyone can cause (:data:`COUNTED`) is counted (:class:`Repeats`): its first occurrence in a minute is
    written at once, its repeats as one line and row with their count."""
    who = actor(address)
    user = who.pop("user", None)
    project = project_id()
    if action in COUNTED and not REPEATS.first(action, who["from"], user, ids, project):
        return
    _write(action, who["from"], user, ids, project)


def _write(action: str, address: str, user: str | None, ids: dict, project: int | None) -> None:
    fields = {"from": address, **ids, **({"user": user} if user else {}),
              **({"in_project": project} if project else {})}
    log.info("audit: %s %s", action, " ".join(f"{k}={_text(v)}" for k, v in fields.items()))
    _store(action, address, user, ids, project)


def _store(action: str, address: str, user: str | None, ids: dict, project: int | None) -> None:
    for sink in _SINKS:
        try:
            sink(action, address, user, ids, project)
        except Exception:  # noqa: BLE001 - the trail's database failing never stops the action it records
            logging.getLogger("perfcast").exception("audit event not stored in the database: %s", action)
            DROPPED.add(action)
            return
    DROPPED.report()


#: refusals that strangers can cause as fast as they can send requests: counted, not written one by one. A
#: failed sign-in is not among them: each is an attempt on an account worth its own row, and each costs its
#: sender a password check in the machine's few sign-in slots (dashboard/access/passwords.py), which bounds
#: their rate; once over the limits they are refused as "sign-in throttled", which is counted. A refused role
#: and a refused project switch are counted too: any account can cause them, one in no project as well.
#: A share link's page opens are counted too: any member can reload one as fast as they can send requests.
COUNTED = frozenset({"refused host", "refused origin", "refused body", "sign-in throttled", "setup link refused",
                     "proxy header ignored", "refused: role", "project switch refused", "share-link open",
                     "refused: cancel"})
#: counted events whose details the server chooses from a few values (the role needed, what was tried), not
#: the request, or that name what was opened: each kind of them is kept apart (a viewer's refused delete and
#: refused save are two events; the first open of each share link by each client is written)
APART_BY_DETAILS = frozenset({"refused: role", "share-link open"})


class Repeats:
    """Per process, per minute: the first refusal of each kind from each client (action, address, account,
    project) is written at once with its details; its repeats in the same minute, whatever their details (a
    client that sends another Host name, Origin or path each time is still one client), are counted and
    written as one event (``repeats=N``, ``first``/``last``, and ``variants``: how many distinct details the
    minute's refusals had, counted up to ``MAX_VARIANTS``) when the minute is over (at the next refusal after
    it, or by a timer thread within ``FLUSH_SECONDS``). At most ``MAX_KEYS`` clients and kinds a minute are
    kept apart; beyond them, one event counts the rest (``others=N`` refusals from ``clients=M`` clients). So a
    client refused 60 times a second writes two rows a minute, not 3,600."""

    WINDOW_SECONDS = 60.0
    FLUSH_SECONDS = 10.0
    MAX_KEYS = 200
    MAX_VARIANTS = 1000

    def __init__(self):
        import threading

        self._lock = threading.Lock()
        self._window = 0.0
        self._seen: dict = {}  # key -> [repeats, first repeat's time, last, action, address, user, ids, project,
        #                       the distinct details' hashes]
        self._overflow: dict = {}  # action -> [count, set of clients]
        self._timer = None

    def first(self, action: str, address: str, user, ids: dict, project) -> bool:
        """Count a refusal; True when it is the first of its kind this minute (the caller writes it)."""
        import time

        now = time.time()
        due = None
        with self._lock:
            if now - self._window >= self.WINDOW_SECONDS:
                due = self._take()
                self._window = now
            details = tuple(sorted((k, str(v)) for k, v in ids.items()))
            detail = hash(details)
            key = (action, address, user, project, details if action in APART_BY_DETAILS else None)
            entry = self._seen.get(key)
            if entry is None and len(self._seen) >= self.MAX_KEYS:
                count, clients = self._overflow.setdefault(action, [0, set()])
                self._overflow[action][0] = count + 1
                clients.add(address)
                first = False
            elif entry is None:
                self._seen[key] = [0, None, None, action, address, user, ids, project, {detail}]
                first = True
            else:
                entry[0] += 1
                entry[1] = entry[1] or now
                entry[2] = now
                if len(entry[8]) < self.MAX_VARIANTS:
                    entry[8].add(detail)
                first = False
            self._start_timer()
        if due:
            self._flush(due)
        return first

    def _take(self):
        """The finished minute's repeats (and overflow), leaving an empty window; under the lock."""
        seen, overflow = self._seen, self._overflow
        self._seen, self._overflow = {}, {}
        return seen, overflow

    def _flush(self, due) -> None:
        from datetime import UTC, datetime

        seen, overflow = due

        def iso(t):
            return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

        for n, t0, t1, action, address, user, ids, project, variants in seen.values():
            if n:
                _write(action, address, user, {**ids, "repeats": n, "first": iso(t0), "last": iso(t1),
                                               **({"variants": len(variants)} if len(variants) > 1 else {})},
                       project)
        for action, (n, clients) in overflow.items():
            _write(action, "-", None, {"others": n, "clients": len(clients)}, None)

    def flush(self) -> None:
        """Write what the current minute has counted so far (the timer, the process's exit, tests)."""
        with self._lock:
            due = self._take()
            self._window = 0.0
        self._flush(due)

    def _start_timer(self) -> None:
        """Under the lock: a daemon thread that flushes a finished minute even when no refusal follows it
        (started in the process that counts: a forked worker starts its own)."""
        import os
        import threading

        if self._timer is not None and self._timer[0] == os.getpid() and self._timer[1].is_alive():
            return

        def tick():
            import time

            while True:
                time.sleep(self.FLUSH_SECONDS)
                with self._lock:
                    due = self._take() if time.time() - self._window >= self.WINDOW_SECONDS else None
                    if due is not None:
                        self._window = time.time()
                if due and (due[0] or due[1]):
                    self._flush(due)

        thread = threading.Thread(target=tick, name="perfcast-audit-repeats", daemon=True)
        thread.start()
        self._timer = (os.getpid(), thread)


class Dropped:
    """Audit events the database could not store (a full disk, a database that does not answer), counted per
    action in this process; the next event stored after them is followed by one event saying how many were
    dropped and of what follows it, so a gap in the trail is itself in the trail once space returns."""

    def __init__(self):
        import threading

        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._reporting = False

    def add(self, action: str) -> None:
        with self._lock:
            self._counts[action] = self._counts.get(action, 0) + 1

    def report(self) -> None:
        with self._lock:
            if not self._counts or self._reporting:
                return
            counts, self._counts, self._reporting = self._counts, {}, True
        try:
            ids = {"dropped": sum(counts.values()), **{f"of_{k.replace(' ', '_')}": v for k, v in
                                                        sorted(counts.items())[:20]}}
            log.warning("audit: audit events not stored %s", " ".join(f"{k}={_text(v)}" for k, v in ids.items()))
            for sink in _SINKS:
                try:
                    sink("audit events not stored", "-", None, ids, None)
                except Exception:  # noqa: BLE001 - still not stored: counted again for the next try
                    with self._lock:
                        for k, v in counts.items():
                            self._counts[k] = self._counts.get(k, 0) + v
                    return
        finally:
            with self._lock:
                self._reporting = False


REPEATS = Repeats()
DROPPED = Dropped()


def _flush_at_exit() -> None:
    try:
        REPEATS.flush()
    except Exception:  # noqa: BLE001 - a process ending never fails on the trail
        pass


atexit.register(_flush_at_exit)
