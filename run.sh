#!/usr/bin/env bash
# Installs the pinned packages and starts the perfcast dashboard on http://127.0.0.1:8050 with the embedded
# data: nginx in front (it reads whole requests before the app sees them, so slow or idle clients cannot hold
# the app's threads; installed from Debian when missing and this user may), gunicorn behind it on loopback
# (2 workers x 16 threads, gunicorn.conf.py). deploy/front.py starts and stops both; docs/deployment.md.
set -euo pipefail
cd "$(dirname "$0")"
scripts/ensure_env.sh requirements.txt
if [ "${PERFCAST_FRONT:-1}" != "0" ] && ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
  if [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; then
    echo "[setup] installing Debian nginx-light (the buffering front)"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx-light >/dev/null \
      || echo "[setup] nginx-light could not be installed: gunicorn serves directly" >&2
  fi
fi
export PORT="${PORT:-8050}"
exec .venv/bin/python deploy/front.py
