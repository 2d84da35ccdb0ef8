"""Single sign-on through OpenID Connect (Authlib's Flask client, authorization-code flow).

``/oidc/login`` sends the browser to the provider's authorization endpoint (found by discovery from
``PERFCAST_OIDC_ISSUER``) with a fresh ``state``, ``nonce`` and PKCE ``code_challenge`` (S256); the three
secrets, the redirect URI and the page to return to are kept in a short-lived cookie of this flow only
(HttpOnly, SameSite=Lax, path ``/oidc/``, signed with the server's secret key, valid
``PERFCAST_OIDC_FLOW_SECONDS``), so the callback must come back to the browser that began the sign-in.
``/oidc/callback`` refuses any callback whose ``state`` is not one this browser's cookie holds, before
anything is sent to the provider; then it exchanges the code (with the PKCE verifier, client secret by HTTP
basic), and checks the ID token (signature by the provider's keys, issuer, audience, expiry, nonce,
``at_hash``) with Authlib. The user is the account whose ``oidc_subject`` is the issuer-qualified subject
(``<issuer>#<sub>``); nobody is ever matched by name or e-mail. An unknown subject gets an account (named from
``PERFCAST_OIDC_USERNAME_CLAIM``, a member of no project) unless ``PERFCAST_OIDC_CREATE_USERS=0``. The sign-in
is then the same server-side session as a password sign-in (dashboard/access/sessions.py).

``python -m dashboard.access.oidc link NAME SUBJECT`` links an existing account to a subject (the subject is
in the audit line of the refused sign-in).
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from urllib.parse import urlsplit

from dashboard import settings
from modeling.parallel import ForkSafeLock

_log = logging.getLogger("perfcast")
_CLIENT: list = []
_LOCK = ForkSafeLock()
FLOW_COOKIE_PATH = "/oidc/"
#: how many sign-ins begun in one browser (several tabs) may wait for their callback at once
MAX_PENDING = 3


class SignInError(Exception):
    """A sign-in through the provider that did not succeed: ``message`` for the person, ``why`` for the audit
    trail, ``status`` the HTTP status of the answer."""

    def __init__(self, message: str, why: str, status: int = 401, **detail):
        super().__init__(message)
        self.message, self.why, self.status, self.detail = message, why, status, detail


def enabled() -> bool:
    return bool(settings.OIDC_ISSUER and settings.OIDC_CLIENT_ID)


def issuer() -> str:
    return (settings.OIDC_ISSUER or "").rstrip("/")


def provider_name() -> str:
    return settings.OIDC_NAME or urlsplit(issuer()).hostname or "single sign-on"


def flow_cookie() -> str:
    return settings.SESSION_COOKIE + "_oidc"


def client():
    """This process's Authlib client (discovery is fetched on first use, then kept)."""
    with _LOCK:
        if not _CLIENT:
            from authlib.integrations.flask_client import FlaskIntegration, FlaskOAuth2App

            _CLIENT.append(FlaskOAuth2App(
                FlaskIntegration("perfcast"), name="perfcast", client_id=settings.OIDC_CLIENT_ID,
                client_secret=settings.OIDC_CLIENT_SECRET,
                server_metadata_url=issuer() + "/.well-known/openid-configuration",
                client_kwargs={"scope": "openid email profile", "code_challenge_method": "S256",
                               "default_timeout": 10}))
        return _CLIENT[0]


def reset() -> None:
    """Forget the client and its discovery document (tests; a changed provider)."""
    with _LOCK:
        _CLIENT.clear()


def metadata() -> dict:
    """The provider's discovery document, checked: its ``issuer`` must be the configured one (OpenID Connect
    Discovery 1.0, section 4.3), else a document served elsewhere could name another issuer's endpoints."""
    try:
        meta = client().load_server_metadata()
    except Exception as e:  # noqa: BLE001 - unreachable, not JSON, HTTP error: the provider cannot be used now
        reset()
        raise SignInError(f"The sign-in service {provider_name()} cannot be reached now. Try again in a minute.",
                          "provider unreachable", 502, error=type(e).__name__) from e
    if str(meta.get("issuer", "")).rstrip("/") != issuer():
        reset()
        raise SignInError(f"The sign-in service {provider_name()} is misconfigured (its discovery document names "
                          "another issuer). Tell the server's administrator.", "issuer mismatch", 502,
                          issuer=str(meta.get("issuer", ""))[:200])
    return meta


def subject_of(iss: str, sub: str) -> str:
    """The issuer-qualified subject kept in ``users.oidc_subject`` (a digest when it would not fit)."""
    text = f"{iss.rstrip('/')}#{sub}"
    return text if len(text) <= 255 else "sha256:" + hashlib.sha256(text.encode()).hexdigest()


# ----------------------------------------------------------------- the pending sign-in, in a cookie of its own


def _serializer():
    from itsdangerous import URLSafeTimedSerializer

    from dashboard.access.gate import secret

    return URLSafeTimedSerializer(secret(), salt="perfcast-oidc-flow")


def pending(cookie: str | None) -> list[dict]:
    """The sign-ins this browser began and has not finished (none when the cookie is missing, forged or old)."""
    if not cookie or len(cookie) > 4000:
        return []
    from itsdangerous import BadData

    try:
        flows = _serializer().loads(cookie, max_age=settings.OIDC_FLOW_SECONDS)
    except BadData:
        return []
    return [f for f in flows if isinstance(f, dict)] if isinstance(flows, list) else []


def begin(redirect_uri: str, next_path: str, cookie: str | None) -> tuple[str, str]:
    """Start a sign-in: (the provider's authorization URL, the new value of the flow cookie)."""
    meta = metadata()
    if not meta.get("authorization_endpoint"):
        raise SignInError(f"The sign-in service {provider_name()} has no authorization endpoint.",
                          "no authorization endpoint", 502)
    rv = client().create_authorization_url(redirect_uri)  # state, nonce and code_verifier: fresh, random
    flow = {"state": rv["state"], "nonce": rv["nonce"], "code_verifier": rv["code_verifier"],
            "redirect_uri": redirect_uri, "next": next_path}
    flows = [flow, *pending(cookie)][:MAX_PENDING]
    return rv["url"], _serializer().dumps(flows)


def finish(args, cookie: str | None) -> tuple[dict, str]:
    """Finish a sign-in from the callback's query ``args``: (the ID token's verified claims, the page to
    return to). Raises :class:`SignInError`."""
    from authlib.integrations.base_client import OAuthError

    state = args.get("state") or ""
    flows = pending(cookie)
    flow = next((f for f in flows if isinstance(f.get("state"), str) and _same(f["state"], state)), None)
    if flow is None:  # a forged or replayed callback, another browser's, or one older than the flow's limit
        raise SignInError("This sign-in was not started in this browser, or took too long. Sign in again.",
                          "state mismatch", 400)
    if args.get("error"):
        raise SignInError(f"{provider_name()} did not sign you in ({str(args.get('error'))[:100]}).",
                          "provider refused", 401, error=str(args.get("error"))[:100])
    code = args.get("code")
    if not code:
        raise SignInError("The sign-in service sent no code. Sign in again.", "no code", 400)
    metadata()
    c = client()
    try:
        token = c.fetch_access_token(redirect_uri=flow["redirect_uri"], code=code,
                                     code_verifier=flow["code_verifier"])
        if "id_token" not in token:
            raise SignInError("The sign-in service sent no ID token.", "no id_token", 401)
        claims = dict(c.parse_id_token(token, nonce=flow["nonce"]))
    except SignInError:
        raise
    except OAuthError as e:
        raise SignInError(f"{provider_name()} refused the sign-in ({e.error or 'error'}). Sign in again.",
                          "token refused", 401, error=str(e.error)[:100]) from e
    except Exception as e:  # noqa: BLE001 - a bad signature, nonce, audience, expiry; the provider unreachable
        raise SignInError("The sign-in could not be verified. Sign in again.", "id_token invalid", 401,
                          error=f"{type(e).__name__}: {e}"[:200]) from e
    if not claims.get("sub"):
        raise SignInError("The sign-in service named no user.", "no sub", 401)
    if not claims.get(settings.OIDC_USERNAME_CLAIM) and token.get("access_token"):
        claims = {**_userinfo(c, token, claims["sub"]), **claims}
    return claims, flow["next"]


def _userinfo(c, token: dict, sub: str) -> dict:
    """The userinfo endpoint's claims (when the ID token lacks the name claim), only if they are the same
    subject's; {} when there is none or it fails."""
    if not metadata().get("userinfo_endpoint"):
        return {}
    try:
        info = dict(c.userinfo(token=token))
    except Exception:  # noqa: BLE001 - the name is then taken from another claim
        return {}
    return info if info.get("sub") == sub else {}


def _same(a: str, b: str) -> bool:
    import hmac

    return hmac.compare_digest(a.encode(), b.encode())


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def sign_out_origin() -> str | None:
    """The origin sign-out may send the browser to (the issuer's; the Content-Security-Policy's form-action
    names it), or None when sign-out stays on this site."""
    if not (enabled() and settings.OIDC_PROVIDER_SIGNOUT):
        return None
    return _origin(issuer())


def logout_url(post_logout_redirect_uri: str) -> str | None:
    """Where the browser goes to end its session at the provider, or None (no end_session_endpoint, the
    provider unreachable, or PERFCAST_OIDC_PROVIDER_SIGNOUT=0)."""
    if not (enabled() and settings.OIDC_PROVIDER_SIGNOUT):
        return None
    try:
        endpoint = metadata().get("end_session_endpoint")
        if not endpoint:
            return None
        if _origin(endpoint) != sign_out_origin():  # the browser would refuse it (form-action): stay here
            _log.warning("OpenID Connect end_session_endpoint %s is not on the issuer's origin: sign-out ends "
                         "the perfcast session only", endpoint)
            return None
        return client().create_logout_url(post_logout_redirect_uri=post_logout_redirect_uri,
                                          client_id=settings.OIDC_CLIENT_ID)["url"]
    except SignInError:
        return None


# ----------------------------------------------------------------- accounts


_BAD = re.compile(r"[^A-Za-z0-9._@-]+")


def _name_from(claims: dict) -> str:
    for claim in (settings.OIDC_USERNAME_CLAIM, "email", "sub"):
        value = claims.get(claim)
        if isinstance(value, str) and value.strip():
            name = _BAD.sub("-", value.strip()).strip("-._@")[:56]
            if name:
                return name
    return "user"


def _free_name(db, base: str) -> str:
    """``base``, or ``base-2``, ``base-3``... when that name is someone else's (never their account)."""
    from dashboard.access import accounts

    name, n = base, 1
    while accounts.find_user(db, name) is not None:
        n += 1
        name = f"{base}-{n}"
    return name


def user_for(claims: dict, iss: str | None = None, create: bool | None = None, url: str | None = None):
    """The account of the verified ``claims``: (user id, name, created?). Raises :class:`SignInError` for a
    disabled account, or an unknown subject when accounts are not created."""
    from sqlalchemy import select
    from sqlalchemy.exc import IntegrityError

    from dashboard.access import database
    from dashboard.access.models import User

    subject = subject_of(iss or issuer(), str(claims["sub"]))
    create = settings.OIDC_CREATE_USERS if create is None else create
    display = claims.get("name") if isinstance(claims.get("name"), str) else None
    for _attempt in range(3):  # two first sign-ins of one person at once: the loser finds the winner's row
        try:
            with database.session(url) as db:
                user = db.scalar(select(User).where(User.oidc_subject == subject))
                created = False
                if user is None:
                    if not create:
                        raise SignInError("You have no perfcast account yet: ask an owner of perfcast to add you.",
                                          "unknown subject", 403, subject=subject)
                    base = _name_from(claims)
                    user = User(name=_free_name(db, base), display_name=(display or base)[:200],
                                password_hash=None, oidc_subject=subject)
                    db.add(user)
                    db.flush()
                    created = True
                elif display and display[:200] != user.display_name:
                    user.display_name = display[:200]
                if user.disabled:
                    raise SignInError("This account is disabled.", "disabled", 403, account=user.name)
                return user.id, user.name, created
        except IntegrityError:
            time.sleep(0.05)
    raise SignInError("The sign-in could not be completed. Sign in again.", "account conflict", 409)


def link(name: str, subject: str, url: str | None = None) -> None:
    """Link the existing account ``name`` to ``subject`` (``<issuer>#<sub>``, as the audit trail names it)."""
    from dashboard.access import accounts, database

    with database.session(url) as db:
        user = accounts.find_user(db, name)
        if user is None:
            raise accounts.AccessError(f"There is no user {name}.")
        user.oidc_subject = subject[:255]


def main(argv=None) -> int:
    import argparse
    import sys

    from dashboard import audit_log
    from dashboard.access import accounts, database

    p = argparse.ArgumentParser(prog="python -m dashboard.access.oidc")
    sub = p.add_subparsers(dest="what", required=True)
    ln = sub.add_parser("link", help="let an existing account sign in through the OpenID Connect provider")
    ln.add_argument("name")
    ln.add_argument("subject", help="<issuer>#<sub>, as the audit line of the refused sign-in names it")
    args = p.parse_args(argv)
    database.migrate()
    try:
        link(args.name, args.subject)
    except accounts.AccessError as e:
        print(f"perfcast: {e}", file=sys.stderr)
        return 2
    audit_log.record("account linked to single sign-on", "cli", account=args.name)
    print(f"{args.name} signs in as {args.subject}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
