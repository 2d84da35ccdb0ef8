"""Password hashing with argon2id (argon2-cffi); the cost profile is ``PERFCAST_ARGON2_PROFILE``."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from modeling.parallel import ForkSafeLock

MIN_LENGTH = 10
MAX_LENGTH = 1024


@functools.cache
def hasher():
    import argon2

    from dashboard.settings import ARGON2_PROFILE

    profile = getattr(argon2.profiles, ARGON2_PROFILE, None)
    if profile is None:
        raise SystemExit(f"perfcast: PERFCAST_ARGON2_PROFILE={ARGON2_PROFILE!r} is not a profile of argon2-cffi "
                         "(e.g. RFC_9106_LOW_MEMORY)")
    return argon2.PasswordHasher.from_parameters(profile)


def weakness(password: str) -> str | None:
    """Why ``password`` cannot be used, or None."""
    if len(password) < MIN_LENGTH:
        return f"The password must have at least {MIN_LENGTH} characters."
    if len(password) > MAX_LENGTH:
        return f"The password must have at most {MAX_LENGTH} characters."
    return None


def hash_password(password: str) -> str:
    return hasher().hash(password)


def verify(stored: str | None, password: str) -> bool:
    """True when ``password`` matches the argon2 hash ``stored``; an account without a hash never matches."""
    import argon2

    if not stored or len(password) > MAX_LENGTH:
        hasher().hash("x" * MIN_LENGTH)  # the same cost as a check, so timing does not tell accounts apart
        return False
    try:
        return hasher().verify(stored, password)
    except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
        return False


def dummy_check() -> None:
    """Spend what a password check costs (an unknown account answers as slowly as a known one)."""
    verify(None, "")


_BACKGROUND: list[ThreadPoolExecutor] = []
_BACKGROUND_LOCK = ForkSafeLock()


def _lower_this_thread() -> None:
    """The hashing thread's (and so the argon2 lanes' threads it starts: Linux gives a new thread its creator's
    niceness) scheduling priority: ``LOGIN_CHECK_NICENESS`` below the web threads (and above jobs)."""
    from dashboard.settings import LOGIN_CHECK_NICENESS

    try:
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + LOGIN_CHECK_NICENESS))
    except (OSError, AttributeError):  # not Linux (a niceness per thread), or not allowed: normal priority
        pass


def _background() -> ThreadPoolExecutor:
    with _BACKGROUND_LOCK:
        if not _BACKGROUND:
            _BACKGROUND.append(ThreadPoolExecutor(1, "perfcast-signin-check", initializer=_lower_this_thread))
        return _BACKGROUND[0]


os.register_at_fork(after_in_child=_BACKGROUND.clear)  # a forked job has not the thread: it would start its own


def verify_below_members(stored: str | None, password: str) -> bool:
    """:func:`verify` (an unknown account: :func:`dummy_check`, False) on this process's sign-in thread, which
    runs at a lower scheduling priority than the web threads: a stranger's guesses take the cores that signed-in
    members leave, never theirs (a check of argon2's default profile runs 4 lanes at once: all of 2 cores)."""
    return _background().submit(verify, stored, password).result()


class Busy(Exception):
    """No sign-in slot: ``LOGIN_WAITING_AT_ONCE`` sign-ins of this process already wait for one, or none came
    free within ``LOGIN_CHECK_WAIT`` seconds."""


_SLOTS: dict[bool, threading.BoundedSemaphore] = {}
_SLOTS_LOCK = threading.Lock()


def _slots(known_device: bool = False) -> threading.BoundedSemaphore:
    from dashboard.settings import LOGIN_CHECKS_AT_ONCE

    with _SLOTS_LOCK:
        if known_device not in _SLOTS:
            _SLOTS[known_device] = threading.BoundedSemaphore(1 if known_device else LOGIN_CHECKS_AT_ONCE)
        return _SLOTS[known_device]


@contextlib.contextmanager
def _machine_slot(deadline: float):
    """This machine's one sign-in for browsers without a device cookie at a time (a lock file beside the var
    directory's state, shared by every web process here), waited for until ``deadline`` (monotonic), else
    :class:`Busy`: however many web processes run, a stranger's burst keeps at most one core hashing."""
    import fcntl
    import time

    from dashboard.settings import VAR_DIR

    VAR_DIR.mkdir(parents=True, exist_ok=True)
    with open(VAR_DIR / "signin.lock", "w") as fh:
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise Busy from None
                time.sleep(0.01)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


_WAITING = [0]  # sign-ins of browsers without a device cookie in this process, waiting or being checked
_WAITING_LOCK = ForkSafeLock()


@contextlib.contextmanager
def _admitted():
    """A place among this process's ``LOGIN_WAITING_AT_ONCE`` sign-ins of browsers without a device cookie, or
    :class:`Busy` at once: however many such sign-ins arrive, they hold at most that many of the web threads,
    and the rest answer in milliseconds."""
    from dashboard.settings import LOGIN_WAITING_AT_ONCE

    with _WAITING_LOCK:
        if _WAITING[0] >= LOGIN_WAITING_AT_ONCE:
            raise Busy
        _WAITING[0] += 1
    try:
        yield
    finally:
        with _WAITING_LOCK:
            _WAITING[0] -= 1


@contextlib.contextmanager
def check_slot(known_device: bool = False):
    """One of the process's sign-in slots for the block (a sign-in's writes and its password check), or
    :class:`Busy`. A browser without the account's device cookie first takes a place among the process's few
    waiting sign-ins (:func:`_admitted`: none free, it is answered at once), then waits up to
    ``LOGIN_CHECK_WAIT`` seconds for a slot and the machine's one slot for such browsers
    (:func:`_machine_slot`). A browser with the cookie has a slot of its own in each process, so a stranger's
    burst never keeps a member from signing in."""
    import time

    from dashboard.settings import LOGIN_CHECK_WAIT

    deadline = time.monotonic() + LOGIN_CHECK_WAIT
    with contextlib.nullcontext() if known_device else _admitted():
        slots = _slots(known_device)
        if not slots.acquire(timeout=LOGIN_CHECK_WAIT):
            raise Busy
        try:
            if known_device:
                yield
            else:
                with _machine_slot(deadline):
                    yield
        finally:
            slots.release()
