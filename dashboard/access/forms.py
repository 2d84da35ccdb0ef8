"""The sign-in and first-start pages: plain server-rendered HTML (no script at all, so they run under the
site's Content-Security-Policy unchanged), every value escaped."""

from __future__ import annotations

from markupsafe import escape

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - perfcast</title><link rel="stylesheet" href="/assets/style.css"></head>
<body class="signin-body"><main class="signin">
<p class="brand"><span class="brand-a">perf</span><span class="brand-b">cast</span></p>
<h1>{title}</h1>
{message}
{body}
</main></body></html>
"""


def page(title: str, body: str = "", message: str = "", error: bool = True) -> str:
    note = ""
    if message:
        note = f'<p class="signin-{"error" if error else "note"}" role="alert">{escape(message)}</p>'
    return _PAGE.format(title=escape(title), message=note, body=body)


def login_page(next_path: str = "/", name: str = "", message: str = "", error: bool = True, *,
               password: bool = True, sso: str | None = None) -> str:
    """The sign-in page: the password form (unless ``password`` is False) and, with ``sso`` (the provider's
    name), a "Sign in with <sso>" button that starts the OpenID Connect sign-in."""
    from urllib.parse import quote

    button = ""
    if sso:
        href = "/oidc/login?next=" + quote(next_path, safe="/")
        button = (f'<p class="signin-sso"><a class="signin-sso-button" id="signin-sso" href="{escape(href)}">'
                  f'Sign in with {escape(sso)}</a></p>')
    if not password:
        if not sso:
            return page("Sign in", "", message or "No way of signing in is configured on this server "
                        "(PERFCAST_PASSWORD_SIGNIN=0 and no OpenID Connect provider).", error)
        return page("Sign in", button, message, error)
    form = button + f"""<form method="post" action="/login" class="signin-form">
<input type="hidden" name="next" value="{escape(next_path)}">
<label for="signin-name">Name</label>
<input id="signin-name" name="name" autocomplete="username" required maxlength="64" value="{escape(name)}" autofocus>
<label for="signin-password">Password</label>
<input id="signin-password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit" id="signin-submit">Sign in</button>
</form>"""
    return page("Sign in", form, message, error)


def setup_page(token: str, name: str = "", display_name: str = "", message: str = "") -> str:
    form = f"""<p>perfcast has no user yet. Choose the first owner's name and password: this account owns the
first project, <code>default</code>, and adds everyone else (<code>python -m dashboard.admin</code>).</p>
<form method="post" action="/setup" class="signin-form">
<input type="hidden" name="token" value="{escape(token)}">
<label for="setup-name">Name</label>
<input id="setup-name" name="name" autocomplete="username" required maxlength="64" value="{escape(name)}" autofocus>
<label for="setup-display">Display name (optional)</label>
<input id="setup-display" name="display_name" maxlength="200" value="{escape(display_name)}">
<label for="setup-password">Password (at least 10 characters)</label>
<input id="setup-password" name="password" type="password" autocomplete="new-password" required maxlength="1024">
<label for="setup-again">Password again</label>
<input id="setup-again" name="again" type="password" autocomplete="new-password" required maxlength="1024">
<button type="submit" id="setup-submit">Create the first owner</button>
</form>"""
    return page("Set up perfcast", form, message)


def switch_page(project: str, current: str, link: str) -> str:
    """A share link to ``project`` opened while working in ``current``: a question, never a switch (a GET
    changes nothing). The button POSTs to ``/project`` and comes back to ``link``."""
    body = f"""<p>Opening it switches the project you work in, in every tab: what you upload, save or run
afterwards goes to project <strong>{escape(project)}</strong>.</p>
<form method="post" action="/project" class="signin-form">
<input type="hidden" name="project" value="{escape(project)}">
<input type="hidden" name="next" value="{escape(link)}">
<button type="submit" id="share-switch">Switch to {escape(project)} and open the link</button>
</form>
<p><a href="/" id="share-stay">Stay in {escape(current)}</a></p>"""
    return page("Open in another project?", body, f"This link is to project {project}; you are working in project "
                f"{current}.", error=False)


def notice_page(title: str, message: str, link: str = "/login", link_text: str = "Sign in") -> str:
    return page(title, f'<p><a href="{escape(link)}">{escape(link_text)}</a></p>', message, error=False)


def invitation_page(token: str, project: str, role: str, invited_by: str, *, signed_in_as: str | None,
                    new_account: bool, name: str = "", display_name: str = "", message: str = "") -> str:
    """An invitation link opened: what it offers and, to accept, a button (signed in) or a sign-in link and,
    with ``new_account``, the form that creates an account and accepts at once. A GET changes nothing."""
    from urllib.parse import quote

    article = "an" if role[:1] in "aeiou" else "a"
    offer = (f"<p><strong>{escape(invited_by)}</strong> invites you to join project <strong>{escape(project)}"
             f"</strong> as {article} <strong>{escape(role)}</strong>. What you upload, save or run after joining "
             "goes to this project; you can switch projects with the menu at any time.</p>")
    if signed_in_as is not None:
        body = offer + f"""<form method="post" action="/invite" class="signin-form">
<input type="hidden" name="token" value="{escape(token)}">
<input type="hidden" name="action" value="accept">
<button type="submit" id="invite-accept">Join {escape(project)} as {escape(signed_in_as)}</button>
</form>
<p><a href="/" id="invite-decline">Not now</a> (the link stays valid until it expires)</p>"""
        return page("Join a project", body, message)
    back = "/invite?token=" + quote(token, safe="")
    body = offer + (f'<p><a href="/login?next={escape(quote(back, safe="/"))}" id="invite-signin">I have an account: '
                    "sign in to accept</a></p>")
    if new_account:
        body += f"""<p>New to perfcast? Create your account and join:</p>
<form method="post" action="/invite" class="signin-form">
<input type="hidden" name="token" value="{escape(token)}">
<input type="hidden" name="action" value="create">
<label for="invite-name">Name</label>
<input id="invite-name" name="name" autocomplete="username" required maxlength="64" value="{escape(name)}">
<label for="invite-display">Display name (optional)</label>
<input id="invite-display" name="display_name" maxlength="200" value="{escape(display_name)}">
<label for="invite-password">Password (at least 10 characters)</label>
<input id="invite-password" name="password" type="password" autocomplete="new-password" required maxlength="1024">
<label for="invite-again">Password again</label>
<input id="invite-again" name="again" type="password" autocomplete="new-password" required maxlength="1024">
<button type="submit" id="invite-create">Create my account and join</button>
</form>"""
    return page("Join a project", body, message)


def password_page(name: str, message: str = "", error: bool = True, done: bool = False) -> str:
    """Change one's own password: the current one, the new one twice. Every other session of the account ends
    with the change."""
    if done:
        return page("Password changed", '<p><a href="/" id="password-back">Back to perfcast</a></p>', message,
                    error=False)
    form = f"""<p>Signed in as <strong>{escape(name)}</strong>. Changing the password ends every other session of
this account (other browsers and devices sign in again); this one stays signed in.</p>
<form method="post" action="/password" class="signin-form">
<label for="password-current">Current password</label>
<input id="password-current" name="current" type="password" autocomplete="current-password" required
 maxlength="1024" autofocus>
<label for="password-new">New password (at least 10 characters)</label>
<input id="password-new" name="password" type="password" autocomplete="new-password" required maxlength="1024">
<label for="password-again">New password again</label>
<input id="password-again" name="again" type="password" autocomplete="new-password" required maxlength="1024">
<button type="submit" id="password-submit">Change password</button>
</form>
<p><a href="/">Back to perfcast</a></p>"""
    return page("Change your password", form, message, error)
