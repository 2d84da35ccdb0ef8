"""Administration of sign-in and access from the server's shell (the same database as the server:
``PERFCAST_DATABASE_URL``, else ``PERFCAST_VAR_DIR/perfcast.db``)::

    python -m dashboard.admin user add NAME [--display-name TEXT] [--no-password]   # password from stdin
    python -m dashboard.admin user password NAME                                     # password from stdin
    python -m dashboard.admin user disable NAME | user enable NAME
    python -m dashboard.admin user list
    python -m dashboard.admin project add NAME
    python -m dashboard.admin member add PROJECT USER viewer|editor|owner
    python -m dashboard.admin session revoke USER
    python -m dashboard.admin setup-link [--site URL]
    python -m dashboard.admin audit export [--project NAME]   # CSV on stdout, oldest first, with the verdict
    python -m dashboard.admin audit verify                    # exit 0: the chain is intact; 3: altered
    python -m dashboard.admin audit prune                     # delete events older than PERFCAST_AUDIT_KEEP_DAYS

The first user added while there is none becomes owner of the ``default`` project, as the first-start link's
owner does. A password is read from standard input (one line; typed twice on a terminal, without echo).
"""

from __future__ import annotations

import argparse
import getpass
import sys

from dashboard.access.models import ROLES
from dashboard.settings import make_files_private


def _password(stdin=None) -> str:
    stdin = stdin or sys.stdin
    if stdin.isatty():
        first = getpass.getpass("Password: ")
        if first != getpass.getpass("Password again: "):
            raise SystemExit("perfcast: the two passwords differ")
        return first
    return stdin.readline().rstrip("\r\n")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dashboard.admin", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    user = sub.add_parser("user").add_subparsers(dest="action", required=True)
    add = user.add_parser("add", help="a new account (password from stdin)")
    add.add_argument("name")
    add.add_argument("--display-name", default="")
    add.add_argument("--no-password", action="store_true", help="an account that cannot sign in with a password")
    user.add_parser("password", help="set a new password (from stdin)").add_argument("name")
    user.add_parser("disable", help="refuse the account's sign-ins and end its sessions").add_argument("name")
    user.add_parser("enable").add_argument("name")
    user.add_parser("list")
    project = sub.add_parser("project").add_subparsers(dest="action", required=True)
    project.add_parser("add").add_argument("name")
    member = sub.add_parser("member").add_subparsers(dest="action", required=True)
    m = member.add_parser("add", help="add a member or change their role")
    m.add_argument("project")
    m.add_argument("user")
    m.add_argument("role", choices=ROLES)
    session = sub.add_parser("session").add_subparsers(dest="action", required=True)
    session.add_parser("revoke", help="end every session of a user, on every worker").add_argument("user")
    audit = sub.add_parser("audit").add_subparsers(dest="action", required=True)
    audit.add_parser("export", help="the audit trail as CSV (every event, or one project's)").add_argument(
        "--project", default=None)
    audit.add_parser("verify", help="recompute the audit trail's hash chain")
    audit.add_parser("prune", help="delete events older than PERFCAST_AUDIT_KEEP_DAYS (the chain re-anchored)")
    link = sub.add_parser("setup-link", help="a new one-time first-start link (only while there is no user)")
    link.add_argument("--site", default="http://127.0.0.1:8050")
    return p


def main(argv=None, stdin=None, out=None) -> int:
    from sqlalchemy import select

    from dashboard import audit_log
    from dashboard.access import accounts, database, first_start, sessions
    from dashboard.access.models import User

    out = out or sys.stdout
    args = _parser().parse_args(argv)
    make_files_private()  # the database and audit trail this command writes are the server's user's alone
    database.migrate()
    try:
        if args.what == "user" and args.action == "add":
            password = None if args.no_password else _password(stdin)
            first = not accounts.has_users()
            accounts.add_user(args.name, password, args.display_name)
            if first:
                with database.session() as db:
                    project = accounts.ensure_project(db, accounts.DEFAULT_PROJECT)
                db_user = args.name
                accounts.set_member(project.name, db_user, "owner")
                print(f"user {args.name} added, owner of project {accounts.DEFAULT_PROJECT}", file=out)
            else:
                print(f"user {args.name} added", file=out)
            audit_log.record("user added", "cli", account=args.name)
        elif args.what == "user" and args.action == "password":
            ended = accounts.set_password(args.name, _password(stdin))
            print(f"password of {args.name} changed; {ended} open session(s) of the account ended", file=out)
            audit_log.record("password changed", "cli", account=args.name, sessions_ended=ended)
        elif args.what == "user" and args.action in ("disable", "enable"):
            accounts.set_disabled(args.name, args.action == "disable")
            print(f"user {args.name} {args.action}d", file=out)
            audit_log.record(f"user {args.action}d", "cli", account=args.name)
        elif args.what == "user" and args.action == "list":
            with database.session() as db:
                for u in db.scalars(select(User).order_by(User.name)):
                    roles = ", ".join(f"{p}:{r}" for p, r in accounts.memberships(u.name).items())
                    print(f"{u.name}\t{'disabled' if u.disabled else 'active'}\t{roles}", file=out)
        elif args.what == "project":
            accounts.add_project(args.name)
            print(f"project {args.name} added", file=out)
            audit_log.record("project added", "cli", project=args.name)
        elif args.what == "member":
            accounts.set_member(args.project, args.user, args.role)
            print(f"{args.user} is {args.role} of {args.project}", file=out)
            from dashboard.access import projects
            from dashboard.access.models import Project

            with database.session() as db:
                pid = db.scalar(select(Project.id).where(Project.name == args.project))
            with projects.scope(pid):  # the event is in the project's trail, where its owners read it
                audit_log.record("member set", "cli", project=args.project, account=args.user, role=args.role)
        elif args.what == "session":
            n = sessions.revoke_user(args.user)
            print(f"{n} session(s) of {args.user} ended", file=out)
            audit_log.record("sessions revoked", "cli", account=args.user, sessions=n)
        elif args.what == "audit":
            return _audit(args, out)
        elif args.what == "setup-link":
            if accounts.has_users():
                print("perfcast has users already: add more with: user add NAME", file=out)
                return 1
            print(first_start.link(first_start.issue_token(), args.site), file=out)
    except accounts.AccessError as e:
        print(f"perfcast: {e}", file=sys.stderr)
        return 2
    return 0


def _audit(args, out) -> int:
    from sqlalchemy import select

    from dashboard.access import accounts, audit_chain, audit_trail, database
    from dashboard.access.models import Project

    if args.action == "verify":
        with database.session() as db:
            verdict = audit_chain.verify(db)
        print(verdict.sentence(), file=out)
        return 0 if verdict.intact else 3
    if args.action == "prune":
        with database.session() as db:
            n = audit_chain.prune_by_setting(db)
        print(f"{n} audit events older than the retention rule deleted", file=out)
        return 0
    project_id = None
    if args.project:
        with database.session() as db:
            project_id = db.scalar(select(Project.id).where(Project.name == args.project))
        if project_id is None:
            raise accounts.AccessError(f"There is no project {args.project}.")
    out.write(audit_trail.export_csv(project_id))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
