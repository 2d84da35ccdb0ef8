#!/usr/bin/env bash
# Installs everything the test suite needs (virtualenv, pinned packages, Debian's
# chromium + chromium-driver for the browser tests) and runs the whole suite.
# Extra arguments go to pytest, e.g. ./test.sh -k ensemble
set -euo pipefail
cd "$(dirname "$0")"
scripts/ensure_env.sh requirements.txt requirements-test.txt
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  echo "[setup] installing Debian chromium and chromium-driver for browser tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
export PERFCAST_VAR_DIR="${PERFCAST_VAR_DIR:-$(mktemp -d /tmp/perfcast-test.XXXXXX)}"
exec .venv/bin/python -m pytest "$@"
