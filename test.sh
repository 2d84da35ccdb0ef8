#!/usr/bin/env bash
# Installs everything the test suite needs (virtualenv, pinned packages, Debian's
# chromium + chromium-driver for the browser tests, gcc with gcov for the basic-block
# collector, redis-server for the redis job backend's tests, postgresql for the access database's tests) and
# runs the whole suite.
# Extra arguments go to pytest, e.g. ./test.sh -k ensemble
set -euo pipefail
cd "$(dirname "$0")"
scripts/ensure_env.sh requirements.txt requirements-test.txt
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
{ command -v gcc && command -v gcov && command -v gcov-dump; } >/dev/null 2>&1 || need+=(gcc)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  echo "[setup] installing Debian ${need[*]} (browser tests, basic-block collector, redis job backend, access database)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
export PERFCAST_VAR_DIR="${PERFCAST_VAR_DIR:-$(mktemp -d /tmp/perfcast-test.XXXXXX)}"
exec .venv/bin/python -m pytest "$@"
