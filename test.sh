#!/usr/bin/env bash
# Installs everything the test suite needs (virtualenv, pinned packages, Debian's
# chromium + chromium-driver for the browser tests, gcc with gcov for the basic-block
# collector, redis-server for the redis job backend's tests, postgresql for the access database's tests,
# nginx-light for the buffering front ./run.sh starts (deploy/front.py), node and npm for the OpenID Connect
# provider of the single sign-on tests, installed from tests/oidc's lock file)
# and runs the whole suite.
# Extra arguments go to pytest, e.g. ./test.sh -k ensemble
#
# ./test.sh --fast [pytest arguments]: the fast tier only (no browser, no services, not the slowest tests;
# the markers are set by tests/conftest.py), with no installs and no services: it needs the .venv an
# earlier ./test.sh or ./run.sh made. See docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = "--fast" ]; then
  shift
  if [ ! -x .venv/bin/python ]; then
    echo "./test.sh --fast installs nothing and there is no .venv here: run ./test.sh once (it makes .venv" >&2
    echo "and installs the packages), or link an existing one: ln -s /path/to/perfcast/.venv .venv" >&2
    exit 2
  fi
  for f in requirements.txt requirements-test.txt; do
    if ! grep -qxF "$f $(sha256sum "$f" | cut -d' ' -f1)" .venv/.perfcast-installed 2>/dev/null; then
      echo "[fast] note: $f changed since .venv was installed (or was never installed there); run ./test.sh" \
        "once to install it if an import fails" >&2
    fi
  done
  export PERFCAST_VAR_DIR="${PERFCAST_VAR_DIR:-$(mktemp -d /tmp/perfcast-test.XXXXXX)}"
  exec .venv/bin/python -m pytest -m "not browser and not services and not slow" --ignore=tests/integration "$@"
fi
scripts/ensure_env.sh requirements.txt requirements-test.txt
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
{ command -v gcc && command -v gcov && command -v gcov-dump; } >/dev/null 2>&1 || need+=(gcc)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
{ command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null 2>&1 || need+=(nginx-light)
if [ ${#need[@]} -gt 0 ]; then
  echo "[setup] installing Debian ${need[*]} (browser tests, basic-block collector, redis job backend, access database, OIDC provider, the buffering front)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
# the test OpenID Connect provider (npm oidc-provider, pinned by tests/oidc/package-lock.json); again only when
# the lock file changed
oidc_stamp="tests/oidc/node_modules/.perfcast-lock-stamp"
oidc_want="$(sha256sum tests/oidc/package-lock.json | cut -d' ' -f1)"
if [ ! -f "$oidc_stamp" ] || [ "$(cat "$oidc_stamp")" != "$oidc_want" ]; then
  echo "[setup] installing the test OpenID Connect provider (npm ci in tests/oidc)"
  (cd tests/oidc && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$oidc_want" > "$oidc_stamp"
fi
# ./test.sh --install: only the installs above (CI runs them before the fast tier, whose collector tests use gcc)
[ "${1:-}" = "--install" ] && exit 0
export PERFCAST_VAR_DIR="${PERFCAST_VAR_DIR:-$(mktemp -d /tmp/perfcast-test.XXXXXX)}"
exec .venv/bin/python -m pytest "$@"
