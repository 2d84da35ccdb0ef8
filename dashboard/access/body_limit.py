"""How large a request body the server reads, by who sends it: refused with HTTP 413 before anything parses it.

Dash sends every callback as one JSON body, and an upload travels inside it, base64-encoded. Parsing such a
body costs a worker about ten times its size in memory and seconds of CPU, so the limit depends on what the
sender can legitimately send:

* **a member of a project**: one upload of the largest accepted file (``PERFCAST_MAX_UPLOAD_MB``, checked
  again per file by ``dashboard.state.uploads.decode_upload``) as base64, plus room for the callback's other
  inputs (:func:`member_bytes`);
* **a signed-in account in no project** (any new single sign-on or proxy user): it can upload nothing, so
  its callbacks are small (:data:`NO_PROJECT_BYTES`);
* **without a session** (the sign-in and first-start forms): :data:`ANONYMOUS_BYTES`.

The ``Content-Length`` a request declares is checked at once; a body without one (chunked) is read through
Werkzeug's bounded stream (``request.max_content_length``), which stops at the same limit. Each refusal is in
the audit log with the size and the limit.

A refused body is nothing parsed, but it is read and dropped (:func:`_discard`, 64 KB at a time) when it is no
larger than the server's cap (``MAX_CONTENT_LENGTH``, which the buffering front of deploy/front.py also
enforces): gunicorn otherwise closed the connection while the sender was still sending the body, and the front
then answered 502 instead of these words (on that post, or on its next request over the same connection to
gunicorn), and a client served directly lost its kept connection without being told. A body over the cap is
refused without reading (the front refuses it itself, with the same words).
"""

from __future__ import annotations

from flask import jsonify, request

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: the sign-in form (a name, a password of at most 1,024 characters, the page to go back to) and the like
ANONYMOUS_BYTES = 64 * 1024
#: an account in no project: no upload, every other callback (its inputs and stored states) is far smaller
NO_PROJECT_BYTES = 2**20
#: what a callback carries besides one upload's base64 text (its other inputs and states, the JSON around)
CALLBACK_ROOM_BYTES = 2**20


def member_bytes() -> int:
    """The largest body a project member's callback can need: one file of ``MAX_UPLOAD_BYTES`` as a base64 data
    URL (4 characters per 3 bytes, rounded up) and :data:`CALLBACK_ROOM_BYTES`."""
    from dashboard.settings import MAX_UPLOAD_BYTES

    return 4 * -(-MAX_UPLOAD_BYTES // 3) + CALLBACK_ROOM_BYTES


def _in_a_project() -> bool:
    from dashboard.access import projects

    return bool(projects.my_projects())


def limit_for(signed_in: bool, declared: int | None) -> int:
    """The body limit of this request: anonymous, no project, or member. The memberships are looked up only
    when the body may be larger than an account in no project may send."""
    if not signed_in:
        return ANONYMOUS_BYTES
    if declared is not None and declared <= NO_PROJECT_BYTES:
        return NO_PROJECT_BYTES  # (within every signed-in limit: no lookup)
    return member_bytes() if _in_a_project() else NO_PROJECT_BYTES


def message(limit: int) -> str:
    size = f"{limit / 2**20:,.0f} MB" if limit >= 2**20 else f"{limit // 1024} KB"
    return (f"The request is larger than the server accepts from you ({size}): upload a smaller file, or ask an "
            "owner of a project for an invitation link to it." if limit == NO_PROJECT_BYTES
            else f"The request is larger than the server accepts ({size}). Upload a smaller file.")


def _discard(declared: int) -> None:
    """Read and drop a refused body of ``declared`` bytes when it is within the server's cap, so the connection
    stays in step and the sender gets the answer (see the module's docstring)."""
    from flask import current_app

    cap = current_app.config.get("MAX_CONTENT_LENGTH") or 0
    stream = request.environ.get("wsgi.input")
    if declared > cap or stream is None:
        return
    left = declared
    try:
        while left > 0:
            chunk = stream.read(min(left, 1 << 16))
            if not chunk:
                return
            left -= len(chunk)
    except (OSError, ValueError):  # the sender went away: nothing to answer on
        return


def check(signed_in: bool):
    """Before anything reads the body of a state-changing request: the 413 answer when it declares more than
    its sender's limit, else None, with the limit set on the request's stream for a body of undeclared size."""
    if request.method not in STATE_CHANGING:
        return None
    declared = request.content_length
    limit = limit_for(signed_in, declared)
    request.max_content_length = limit
    if declared is not None and declared > limit:
        from dashboard import audit_log

        audit_log.record("refused body", path=request.path[:200], bytes=declared, limit=limit)
        _discard(declared)
        response = jsonify(message=message(limit))
        response.status_code = 413
        response.headers["Cache-Control"] = "no-store"
        return response
    return None


def before_request():
    """The hook right after the gate (which has refused strangers already): the sign-in forms get the
    stranger's limit, everything else its sender's."""
    from dashboard.access import gate

    if request.method not in STATE_CHANGING or request.environ.get(gate.INTERNAL) is True:
        return None  # (a GET has no body to limit, and needs no session lookup here)
    if request.endpoint in gate.PUBLIC_ENDPOINTS:
        return check(signed_in=False)
    return check(signed_in=gate.signed_in_user() is not None)


def install(server) -> None:
    """Run :func:`before_request` right after the gate (dashboard/access/gate.py puts itself first)."""
    from dashboard.access import gate

    funcs = server.before_request_funcs.setdefault(None, [])
    at = funcs.index(gate.check) + 1 if gate.check in funcs else len(funcs)
    funcs.insert(at, before_request)
