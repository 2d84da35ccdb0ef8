"""Who did what, in the server's log: one line (logger ``perfcast.audit``) per state change and per refused
request, e.g. ``audit: dataset deleted from=127.0.0.1 dataset=ds-0123456789abcdef``.

The client's address is derived on the server (the connection's peer address, ``request.remote_addr``;
in a job process the one Dash recorded from the request that started it), never from anything the browser
sends. Behind a proxy it is the proxy's address: the proxy's own access log has the client's. Sign-in will
add the user to :func:`actor`.
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger("perfcast.audit")

_UNSAFE = re.compile(r"[^\w.:@/+-]")


def client_address() -> str:
    """The address of the client this code is serving: the request's peer address, or in a background job
    the address of the request that started it; "-" outside both (a command, a warm-up)."""
    from flask import has_request_context, request

    if has_request_context():
        return request.remote_addr or "-"
    try:  # a background job: Dash passes the starting request's context (request.remote_addr) to the job
        from dash._callback_context import context_value

        return str(getattr(context_value.get(), "remote", "") or "-")
    except LookupError:
        return "-"


def actor(address: str | None = None) -> dict:
    """Who acts: for now the client's address."""
    return {"from": address or client_address()}


def _text(value) -> str:
    """A value as one log token: at most 200 characters, anything but word characters and ``.:@/+-`` as ``?``
    (a name or path typed by a user cannot forge a line or a field)."""
    return _UNSAFE.sub("?", str(value))[:200] or '""'


def record(action: str, address: str | None = None, **ids) -> None:
    """Log ``action`` (a few words: "dataset saved") with who did it and the ids involved."""
    fields = {**actor(address), **ids}
    log.info("audit: %s %s", action, " ".join(f"{k}={_text(v)}" for k, v in fields.items()))
