"""The access database: one SQLAlchemy engine per URL and process, and its migrations.

SQLite (the default, ``PERFCAST_VAR_DIR/perfcast.db``) runs in WAL mode with a busy timeout, so the web
workers, job processes and ``python -m dashboard.admin`` share it; PostgreSQL
(``postgresql+psycopg://...``) when several machines serve one site. The schema is created and upgraded by
the Alembic migrations shipped in ``migrations/`` (:func:`migrate`, run when the app starts), under a lock
(a file lock beside a SQLite file, an advisory lock on PostgreSQL) so workers starting together do not race.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from pathlib import Path

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_ENGINES: dict[str, tuple[Engine, sessionmaker]] = {}
_LOCK = threading.Lock()
_MIGRATION_LOCK_ID = 0x7065726663  # "perfc": the PostgreSQL advisory lock of migrations


def _reset_after_fork() -> None:
    """A forked process (a Celery prefork pool process, forked from the worker that imported the app) must not
    share the parent's connections: forget them (without closing)."""
    for engine, _ in _ENGINES.values():
        engine.dispose(close=False)


os.register_at_fork(after_in_child=_reset_after_fork)


def _sqlite_file(url: str) -> Path | None:
    if not url.startswith("sqlite:///"):
        return None
    path = url[len("sqlite:///"):].split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None


def engine(url: str | None = None) -> Engine:
    return _entry(url)[0]


def _entry(url: str | None):
    from dashboard import settings

    url = url or settings.DATABASE_URL
    with _LOCK:
        if url not in _ENGINES:
            if (path := _sqlite_file(url)) is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                eng = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

                @event.listens_for(eng, "connect")
                def _pragmas(dbapi_connection, _record):
                    cur = dbapi_connection.cursor()
                    cur.execute("PRAGMA journal_mode=WAL")
                    cur.execute("PRAGMA foreign_keys=ON")
                    cur.execute("PRAGMA busy_timeout=30000")
                    cur.close()
            else:
                eng = create_engine(url, pool_pre_ping=True)
            _ENGINES[url] = (eng, sessionmaker(eng, expire_on_commit=False))
        return _ENGINES[url]


def close(url: str) -> None:
    """Close the pooled connections to ``url`` and forget its engine (a database that is about to go away;
    each database's pool keeps up to five connections open, and a server allows about a hundred)."""
    with _LOCK:
        entry = _ENGINES.pop(url, None)
    if entry is not None:
        entry[0].dispose()


@contextlib.contextmanager
def session(url: str | None = None):
    """A transaction: committed when the block ends, rolled back if it raises."""
    db: Session = _entry(url)[1]()
    try:
        yield db
        db.commit()
    except BaseException:
        db.rollback()
        raise
    finally:
        db.close()


def alembic_config(url: str):
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str | None = None, revision: str = "head") -> None:
    """Bring the database at ``url`` (default: the configured one) up to ``revision``."""
    from alembic import command

    from dashboard import settings

    url = url or settings.DATABASE_URL
    with locked(url), engine(url).connect() as connection:
        cfg = alembic_config(url)
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, revision)
        connection.commit()


@contextlib.contextmanager
def locked(url: str | None = None):
    """One process at a time in this block, across workers and machines: a file lock beside a SQLite file,
    a session-level advisory lock on PostgreSQL (migrations, the first owner)."""
    from dashboard import settings

    url = url or settings.DATABASE_URL
    path = _sqlite_file(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            yield
        return
    eng = engine(url)
    if eng.dialect.name != "postgresql":
        yield
        return
    with eng.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _MIGRATION_LOCK_ID})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _MIGRATION_LOCK_ID})
            connection.commit()


def current_revision(url: str | None = None) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine(url).connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
