"""Redis stops or restarts mid-job (the redis backend): a persistent Redis of its own (AOF on, its own
directory and port), a Celery worker, a gunicorn web server and headless Chromium. A restart mid-job -> the
result on the page; Redis down for some seconds -> the page says the job service is unreachable, keeps
polling, and shows the result once Redis is back; the web server serves pages meanwhile."""

import subprocess
import time
import urllib.request

import pytest
from selenium.common.exceptions import TimeoutException

from testkit.servers import free_port, stop_group
from conftest import gunicorn_server
from dashboard.crossgen.kinds import SCENARIO
from pc_browser import fresh_browser, text_in
from test_scaleout import LINK, Worker, _run_enabled, cluster_env
from testkit.waiting import until

UNREACHABLE = "job service is unreachable"


class PersistentRedis:
    """redis-server with the persistence docs/deployment.md asks for (appendonly yes, appendfsync everysec), in
    ``folder``, on its own loopback port; stopped with SIGTERM (as systemd stops it) and started again."""

    def __init__(self, folder):
        self.folder, self.port, self.proc = folder, free_port(), None
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self):
        import redis

        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--dir", str(self.folder), "--appendonly", "yes", "--appendfsync", "everysec",
                                      "--save", ""], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        assert until(lambda: _answers(redis, self.url), 60, 0.05), "redis-server did not start"

    def stop(self):
        self.proc.terminate()  # SIGTERM: Redis flushes its append-only file and exits
        self.proc.wait(20)


def _answers(redis, url) -> bool:
    try:
        return bool(redis.Redis.from_url(url).ping())
    except redis.exceptions.RedisError:
        return False


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A persistent Redis, worker w1, web server A; this test process reads the same Redis."""
    folder = tmp_path_factory.mktemp("redis-aof")
    redis_server = PersistentRedis(folder)
    var = tmp_path_factory.mktemp("outage-var")
    env = cluster_env(redis_server.url, var)
    mp = pytest.MonkeyPatch()
    for k, v in (("REDIS_URL", redis_server.url), ("LEASE_SECONDS", 3.0), ("VAR_DIR", var)):
        mp.setattr(f"dashboard.settings.{k}", v)
    from dashboard.jobs import backend

    mp.setattr(backend, "_active", None)
    backend.use("redis")
    worker = Worker(env, "w1", var.parent / "w1.log")
    try:
        with gunicorn_server(var, "web-a.log", **env) as a:
            yield {"redis": redis_server, "a": a[0], "log": a[2], "worker": worker, "worker_log": var.parent / "w1.log"}
    finally:
        worker.stop()
        stop_group(redis_server.proc)
        mp.undo()


def _key(seed):
    return SCENARIO.request({"dataset": "rodinia", "host": "GTX-680", "target": "Tesla-P100", "preset": "rastsim",
                             "transform": "log", "seed": str(seed)})["key"]


def _state(key):
    from dashboard import jobs

    try:
        return (jobs.status(key) or {}).get("state")
    except Exception:  # noqa: BLE001 - Redis down
        return None


def _what_happened(d, service, key) -> str:
    """For a failure message: the page's job lines, the job's status, and the ends of the server's and the
    worker's logs (the test's temporary folder is gone by the time anyone reads a CI log)."""
    def tail(path, n=30):
        try:
            lines = [x for x in path.read_text(errors="replace").splitlines() if "GET /" not in x and "POST /" not in x]
        except OSError as exc:
            return f"({exc})"
        return "\n".join(lines[-n:])
    page = {i: (d.find_elements("id", i)[0].text if d.find_elements("id", i) else None)
            for i in ("scenario-job-status", "scenario-service", "scenario-progress-label")}
    return (f"no result on the page; page: {page}; status: {_state(key)}\n--- web server log ---\n"
            f"{tail(service['log'])}\n--- worker log ---\n{tail(service['worker_log'])}")


def test_a_redis_restart_mid_job_keeps_the_result(service):
    d = fresh_browser()
    try:
        d.get(service["a"] + LINK.format(seed=41))
        assert until(lambda: _state(_key(41)) == "running", 60)
        time.sleep(1.0)
        service["redis"].stop()
        time.sleep(2.0)
        service["redis"].start()
        t0 = time.time()
        try:
            assert text_in(d, "#scenario-best-eout", 300).endswith("%")
        except TimeoutException:  # say what the page, the job's status and the logs show
            raise AssertionError(_what_happened(d, service, _key(41))) from None
        print(f"\nredis restarted mid-job -> result on the page {time.time() - t0:.1f} s later")
        assert "failed" not in d.find_element("id", "scenario-job-status").text
        assert _state(_key(41)) == "done"
    finally:
        d.quit()


def test_redis_down_for_seconds_says_so_then_shows_the_result(service):
    d = fresh_browser()
    try:
        d.get(service["a"] + LINK.format(seed=42))
        assert until(lambda: _state(_key(42)) == "running", 60)
        service["redis"].stop()
        t0 = time.time()
        said = text_in(d, "#scenario-service", 15)
        print(f"\nredis stopped -> the page says so after {time.time() - t0:.1f} s: {said!r}")
        assert UNREACHABLE in said
        # the web server keeps serving pages meanwhile
        with urllib.request.urlopen(service["a"] + "/scenario", timeout=10) as r:
            assert r.status == 200
        time.sleep(max(0.0, 10.0 - (time.time() - t0)))  # ten seconds without Redis: the job's leases ran out
        assert "failed" not in d.find_element("id", "scenario-job-status").text
        service["redis"].start()
        t1 = time.time()
        assert text_in(d, "#scenario-best-eout", 300).endswith("%")
        print(f"redis back -> result on the page {time.time() - t1:.1f} s later")
        assert until(lambda: not d.find_element("id", "scenario-service").text, 60)  # the note is gone
        assert "failed" not in d.find_element("id", "scenario-job-status").text
    finally:
        d.quit()


def _notice_shown(d) -> bool:
    """The app's notice (dashboard/ui/service_notice.py) or the job panel's own line says the service is down."""
    for el in d.find_elements("css selector", "#service-notice, #scenario-service"):
        if el.is_displayed() and UNREACHABLE in el.text:
            return True
    return False


def test_save_and_a_cached_link_while_redis_is_down_are_never_silent_and_recover(service):
    """While Redis is down: Save on a page whose result this server holds in memory either saves or shows the
    notice, never nothing; a cached link whose result only Redis holds shows the notice within seconds. Redis
    back: the notice goes by itself and the link opens."""
    from dashboard import jobs

    d, other = fresh_browser(), None
    try:
        d.get(service["a"] + LINK.format(seed=43))
        assert text_in(d, "#scenario-best-eout", 300).endswith("%")
        jobs.put_result(_key(44), jobs.get_result(_key(43)))  # in Redis only: no web server has read it
        service["redis"].stop()
        t0 = time.time()
        d.find_element("id", "scenario-save").click()
        assert until(lambda: _notice_shown(d) or "Saved as" in d.find_element("id", "scenario-save-status").text,
                     20), "Save while Redis is down said nothing"
        print(f"\nSave while redis is down -> {'notice' if _notice_shown(d) else 'saved'} after "
              f"{time.time() - t0:.1f} s")
        other = fresh_browser()
        t1 = time.time()
        other.get(service["a"] + LINK.format(seed=44))
        assert until(lambda: _notice_shown(other), 30), "no notice on a cached link while Redis is down"
        print(f"cached link while redis is down -> the notice after {time.time() - t1:.1f} s")
        said = " ".join(e.text for e in other.find_elements("css selector", "#service-notice, #scenario-service")
                        if e.is_displayed())
        print(f"it says: {said!r}")
        service["redis"].start()
        t2 = time.time()
        if "run again" in said:  # the panel asked for a new run: Run, now that Redis answers, shows the result
            assert until(lambda: _run_enabled(other), 60)
            other.find_element("id", "scenario-run").click()
        else:  # the app's notice: it goes by itself
            assert until(lambda: not _notice_shown(other), 30), "the notice stayed after Redis returned"
            other.refresh()
        assert text_in(other, "#scenario-best-eout", 60).endswith("%")
        print(f"redis back -> the result on the page {time.time() - t2:.1f} s later")
        assert not _notice_shown(other)
    finally:
        d.quit()
        if other is not None:
            other.quit()


def test_a_job_whose_redis_data_is_lost_ends_with_its_result_or_run_again_never_a_spinner(service):
    """Redis restarted without its data mid-job (a restart with persistence off, or its files lost): every key
    of the job is gone. The job still runs on its worker: the page must end with the result or with "run
    again", within a bounded time, never keep polling for ever."""
    import shutil

    d = fresh_browser()
    try:
        d.get(service["a"] + LINK.format(seed=45))
        assert until(lambda: _state(_key(45)) == "running", 60)
        service["redis"].stop()
        for f in service["redis"].folder.iterdir():  # its data gone
            shutil.rmtree(f) if f.is_dir() else f.unlink()
        service["redis"].start()
        t0 = time.time()

        def ended():
            if d.find_elements("css selector", "#scenario-best-eout") and \
                    d.find_element("css selector", "#scenario-best-eout").text.endswith("%"):
                return "result"
            status = d.find_element("id", "scenario-job-status").text.lower()
            return "run again" if ("run again" in status and _run_enabled(d)) else False

        assert until(ended, 300), "the page kept waiting after the job's data was lost"
        print(f"\nredis data lost mid-job -> {ended()} on the page {time.time() - t0:.1f} s later")
    finally:
        d.quit()
