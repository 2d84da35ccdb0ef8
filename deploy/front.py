"""The served app behind a buffering front: ``./run.sh`` starts nginx in front of gunicorn and stops both.

gunicorn gives each connection a thread from the moment its request starts to arrive, so a few dozen clients
that send their headers a line every few seconds (or their body a byte at a time, or nothing at all) hold every
thread, and every member's page waits. nginx reads a whole request (headers and body, within time limits)
before it hands it to gunicorn, keeps thousands of slow or idle connections for little memory on one event
loop, and closes a client that does not finish in time:

* ``client_header_timeout`` (``PERFCAST_FRONT_HEADER_SECONDS``, 10): the whole request head must arrive in
  that time (408 and closed otherwise, however slowly it trickles);
* ``client_body_timeout`` (``PERFCAST_FRONT_BODY_SECONDS``, 30): at most that long between two reads of the
  body; the body is buffered (to a file beyond 1 MB) before gunicorn sees it, and bodies over the upload limit
  are refused by nginx;
* ``keepalive_timeout`` 15 s for an idle connection; ``send_timeout`` 60 s for a client that stops reading;
* at most ``PERFCAST_FRONT_CONNECTIONS_PER_CLIENT`` (64) requests in progress per client address (429 beyond).

gunicorn listens on loopback only (``PERFCAST_APP_PORT``, default: a free port) and trusts the front's
``X-Forwarded-For`` (``PERFCAST_TRUSTED_PROXIES`` gains 127.0.0.1), so sign-in limits and the audit trail see
each client's own address. The front listens on ``PERFCAST_HOST`` (127.0.0.1) : ``PORT`` (8050).

Without nginx on the machine (``./run.sh`` installs Debian's ``nginx-light`` when it may: as root or with
sudo) or with ``PERFCAST_FRONT=0``, gunicorn serves ``PORT`` directly and a warning says that slow clients can
then hold its threads. With ``PERFCAST_PROXY_USER_HEADER`` (sign-in by a team's own proxy) that proxy is the
front: gunicorn serves directly, and the team's proxy must buffer requests (docs/deployment.md).

``python deploy/front.py [--print-config]``: start both (the process stays in the foreground; SIGTERM or
Ctrl-C stops both), or print the nginx configuration it would use.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        raise SystemExit(f"front: {name} must be a whole number, not {os.environ.get(name)!r}") from None


def nginx_binary() -> str | None:
    for name in NGINX_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def max_body_bytes() -> int:
    """The largest request body the app accepts (app.py's MAX_CONTENT_LENGTH: an upload, base64 in a
    callback), so nginx refuses larger ones before buffering them."""
    mb = float(os.environ.get("PERFCAST_MAX_UPLOAD_MB", 50))  # dashboard/settings.py's default
    return int(mb * 2**20 * 1.4) + 2**20


def _workers_user() -> str:
    """Started as root, nginx runs its workers as ``nobody``, which cannot enter the private state directory
    holding the front's buffer files (bodies over 1 MB, answers over the memory buffers): every such request
    failed with 500. The workers then run as the user that runs the app (they read nothing the app cannot);
    started as anyone else, nginx cannot change user and this line is left out."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return ""
    import grp
    import pwd

    return f"user {pwd.getpwuid(os.geteuid()).pw_name} {grp.getgrgid(os.getegid()).gr_name};\n"


def too_large_json() -> str:
    """The front's own answer to a body over :func:`max_body_bytes` (over every sender's limit): the app's words
    for the largest limit (dashboard/access/body_limit.py), as JSON like the app's 413, instead of nginx's page."""
    import json

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from dashboard.access.body_limit import member_bytes, message

    return json.dumps({"message": message(member_bytes())}).replace("'", "\\'")


def config(run_dir: Path, host: str, port: int, app_port: int) -> str:
    """The nginx configuration of the front (every path under ``run_dir``, nothing of the system's)."""
    header = _env_int("PERFCAST_FRONT_HEADER_SECONDS", 10)
    body = _env_int("PERFCAST_FRONT_BODY_SECONDS", 30)
    per_client = _env_int("PERFCAST_FRONT_CONNECTIONS_PER_CLIENT", 64)
    listen = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    temp = "\n".join(f"    {kind}_temp_path {run_dir / kind};" for kind in
                     ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""# made by deploy/front.py: the buffering front of perfcast (see its docstring)
daemon off;
{_workers_user()}worker_processes 1;
worker_rlimit_nofile 16384;
pid {run_dir / 'nginx.pid'};
error_log {run_dir / 'error.log'} warn;
events {{
    worker_connections 8192;
}}
http {{
    access_log off;
    server_tokens off;
{temp}
    client_header_timeout {header}s;
    client_body_timeout {body}s;
    send_timeout 60s;
    keepalive_timeout 15s;
    reset_timedout_connection on;
    client_header_buffer_size 4k;
    large_client_header_buffers 8 16k;
    client_body_buffer_size 1m;
    client_max_body_size {max_body_bytes()};
    limit_conn_zone $binary_remote_addr zone=perclient:10m;
    limit_conn_status 429;
    upstream perfcast_app {{
        server 127.0.0.1:{app_port};
        keepalive 16;
    }}
    server {{
        listen {listen} backlog=4096;
        limit_conn perclient {per_client};
        error_page 413 @too_large;
        location @too_large {{
            default_type application/json;
            add_header Cache-Control no-store always;
            return 413 '{too_large_json()}';
        }}
        location / {{
            proxy_pass http://perfcast_app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_request_buffering on;
            proxy_buffering on;
            proxy_buffers 32 64k;
            proxy_read_timeout 330s;
            proxy_send_timeout 60s;
        }}
    }}
}}
"""


def _wait_listening(port: int, proc: subprocess.Popen, limit: float = 180.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"front: gunicorn stopped before it listened (exit {proc.returncode})")
        with socket.socket() as s:
            s.settimeout(1.0)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"front: gunicorn did not listen on 127.0.0.1:{port} within {limit:.0f} s")


def _gunicorn() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "gunicorn"
    return [str(exe) if exe.exists() else "gunicorn", "app:server", "-c", str(ROOT / "gunicorn.conf.py")]


def _stop(*procs: subprocess.Popen) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 30
    for p in procs:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    host = os.environ.get("PERFCAST_HOST", "127.0.0.1")
    port = _env_int("PORT", 8050)
    var = Path(os.environ.get("PERFCAST_VAR_DIR", ROOT / "var"))
    run_dir = var / "front"
    nginx = nginx_binary()
    why_direct = ("PERFCAST_FRONT=0" if os.environ.get("PERFCAST_FRONT", "1") == "0"
                  else "PERFCAST_PROXY_USER_HEADER is set: the team's proxy is the front"
                  if os.environ.get("PERFCAST_PROXY_USER_HEADER", "").strip()
                  else "nginx is not installed (as root: apt-get install nginx-light)" if nginx is None else None)
    if "--print-config" in argv:
        print(config(run_dir, host, port, _env_int("PERFCAST_APP_PORT", port + 1)))
        return 0
    env = dict(os.environ)
    if why_direct:
        print(f"perfcast: serving {host}:{port} with gunicorn directly ({why_direct}); slow or idle clients "
              "can then hold its threads: put a buffering proxy in front (docs/deployment.md)", file=sys.stderr,
              flush=True)
        env["PERFCAST_BIND_HOST"] = host
        cmd = _gunicorn()
        os.execvpe(cmd[0], cmd, env)
    app_port = _env_int("PERFCAST_APP_PORT", 0) or free_port()
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (run_dir / kind).mkdir(parents=True, exist_ok=True)
    conf = run_dir / "nginx.conf"
    conf.write_text(config(run_dir, host, port, app_port))
    env.update(PORT=str(app_port), PERFCAST_BIND_HOST="127.0.0.1", PERFCAST_FRONT_PORT=str(port),
               PERFCAST_FRONT_HOST=host,
               PERFCAST_TRUSTED_PROXIES=",".join(p for p in (os.environ.get("PERFCAST_TRUSTED_PROXIES", ""),
                                                             "127.0.0.1") if p))
    app = subprocess.Popen(_gunicorn(), env=env, cwd=ROOT)
    front = None
    stopping = []

    def on_signal(signum, _frame):
        stopping.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        _wait_listening(app_port, app)
        test = subprocess.run([nginx, "-t", "-q", "-c", str(conf), "-p", str(run_dir)], capture_output=True,
                              text=True)
        if test.returncode != 0:
            raise SystemExit(f"front: nginx refused its configuration: {test.stderr.strip()}")
        front = subprocess.Popen([nginx, "-c", str(conf), "-p", str(run_dir)], cwd=run_dir)
        print(f"perfcast: http://{host}:{port} (nginx in front of gunicorn on 127.0.0.1:{app_port})",
              file=sys.stderr, flush=True)
        while not stopping and app.poll() is None and front.poll() is None:
            time.sleep(0.5)
    finally:
        _stop(*(p for p in (front, app) if p is not None))
    return 0 if stopping else (app.returncode or (front.returncode if front else 1) or 1)


if __name__ == "__main__":
    raise SystemExit(main())
