"""The job backends' one interface (dashboard/jobs/backend.py): both backends implement every name of
``JobBackend``, and a backend that leaves one out cannot be made."""

import inspect

import pytest

from dashboard.jobs import backend
from dashboard.jobs.distributed import RedisBackend
from dashboard.jobs.local import LocalBackend


@pytest.mark.parametrize("cls", [LocalBackend, RedisBackend])
def test_both_backends_implement_every_name_of_the_interface(cls):
    made = cls()  # an abstract name left out would raise TypeError here
    assert isinstance(made, backend.JobBackend)
    assert "ping" in backend.JobBackend.__abstractmethods__  # no name keeps a default a backend could forget
    for name in backend.JobBackend.__abstractmethods__:
        assert callable(getattr(made, name)), name


@pytest.mark.parametrize("cls", [LocalBackend, RedisBackend])
def test_every_name_is_a_method_written_in_the_backend_class(cls):
    """Go-to-definition leads from a backend's name to its code: each name of the interface is a plain function
    written in the class's own body (in the backend's module, at its own line), not a module function bound to
    the class when it is made."""
    assert "__init_subclass__" not in vars(backend.JobBackend)
    source = inspect.getsource(cls)
    for name in backend.JobBackend.__abstractmethods__:
        method = vars(cls)[name]
        assert inspect.isfunction(method), name
        assert method.__qualname__ == f"{cls.__name__}.{name}", name
        assert inspect.getmodule(method) is inspect.getmodule(cls), name
        assert f"    def {name}(self" in source, name


def test_a_backend_missing_a_name_cannot_be_made():
    class Partial(backend.JobBackend):
        name = "partial"

        def get_result(self, key):
            return None

    with pytest.raises(TypeError, match="abstract"):
        Partial()

    class WithoutPing(LocalBackend):
        ping = backend.JobBackend.ping  # a backend that left out ping (as one once did)

    with pytest.raises(TypeError, match="ping"):
        WithoutPing()


def test_use_returns_the_named_backend(monkeypatch):
    monkeypatch.setattr(backend, "_active", None)
    assert backend.use("local").name == "local" and backend.name() == "local"
    assert isinstance(backend.active(), LocalBackend)


def test_the_redis_backend_asks_redis_whether_it_answers(monkeypatch):
    """The service notice's check asks ``active().ping()``: the local backend always answers; the redis backend
    asks Redis, and a Redis nobody serves is an outage, not an answer (the class once lacked ``ping``, and
    the check then hid the notice while Redis was down)."""
    from dashboard.jobs.outage import is_outage
    from testkit.servers import free_port

    assert LocalBackend().ping() is True
    assert RedisBackend.ping is not backend.JobBackend.ping
    monkeypatch.setattr("dashboard.settings.REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")
    with pytest.raises(Exception) as refused:
        RedisBackend().ping()
    assert is_outage(refused.value)
