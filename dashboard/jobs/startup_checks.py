"""Checks a server makes before it serves anyone, so that a misconfigured one refuses to start with the
reason instead of starting and failing quietly.

* With the redis job backend (``PERFCAST_REDIS_URL``) every web server and worker must share one
  ``PERFCAST_SECRET_KEY``: servers with different keys sign job handles the others reject, so a job started
  through one server and polled through another just stops. The first server to start keeps a digest of its
  key in Redis (``perfcast:secret-key-digest``, never the key itself); a server whose key has another digest
  refuses to start and says so. (To change the key on purpose: stop every server, delete that Redis key.)
* The agreement is checked again for every job, where it matters (:func:`job_key_refusal`): the web server
  before it submits one and the worker before it computes one. A server started while Redis was down (it could
  not check), or one whose Redis lost the digest and then recorded another server's, refuses its jobs with the
  reason instead of running them with no project ("dataset not found", which looked like data loss).
* gunicorn's master runs :func:`check_before_workers` before it forks: a missing key then stops the master
  with the reason, instead of each worker failing to load the app and the master starting new ones forever.
"""

from __future__ import annotations

import hashlib

DIGEST_KEY = "perfcast:secret-key-digest"


class StartupRefused(SystemExit):
    """The server must not start; the message says why and what to do."""

    def __init__(self, message: str):
        super().__init__(f"perfcast: {message}")


def key_digest(key: str) -> str:
    return hashlib.sha256(b"perfcast secret key\0" + key.encode()).hexdigest()


def shared_key_problem(redis_url: str, key: str) -> str | None:
    """Record this server's key digest in Redis, or compare with the one recorded; the problem, or None.

    An unreachable Redis is not a reason to refuse here: the job layer reports it on the pages."""
    import redis

    try:
        client = redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=3)
        mine = key_digest(key)
        client.set(DIGEST_KEY, mine, nx=True)
        theirs = client.get(DIGEST_KEY)
    except redis.RedisError:
        return None
    if theirs is not None and theirs.decode() != mine:
        return ("PERFCAST_SECRET_KEY differs from the key of the servers already using this Redis "
                f"({redis_url.split('@')[-1]}): they would reject each other's jobs. Give every web server and "
                f"worker the same key (or, to change it for all of them, stop them all and delete the Redis key "
                f"{DIGEST_KEY}).")
    return None


def check_before_workers() -> None:
    """The checks gunicorn's master makes before it starts workers (raises :class:`StartupRefused`)."""
    from dashboard import settings

    redis_url = settings.REDIS_URL
    if not redis_url:
        return
    key = settings.SECRET_KEY
    if not key:
        raise StartupRefused("PERFCAST_REDIS_URL is set, so PERFCAST_SECRET_KEY must be set too, to the same value "
                             "on every web server and worker (e.g. the output of: python -c 'import secrets; "
                             "print(secrets.token_hex(32))').")
    problem = shared_key_problem(redis_url, key)
    if problem:
        raise StartupRefused(problem)


def job_key_refusal() -> str | None:
    """With the redis job backend: why this process must not submit or compute a job (its key is not the one
    the other servers and workers use), or None. Records the digest when Redis has none (the first server
    after Redis lost its data); an unreachable Redis is the job layer's outage, reported as such."""
    from dashboard import settings

    if not settings.REDIS_URL:
        return None
    from dashboard.access.gate import secret

    problem = shared_key_problem(settings.REDIS_URL, secret())
    return f"No job is run: {problem}" if problem else None
