#!/usr/bin/env bash
# Installs the pinned packages and starts the perfcast dashboard on
# http://127.0.0.1:8050 with the embedded data (gunicorn: 2 workers x 4 threads, gunicorn.conf.py).
set -euo pipefail
cd "$(dirname "$0")"
scripts/ensure_env.sh requirements.txt
export PORT="${PORT:-8050}"
echo "perfcast: http://127.0.0.1:${PORT}"
exec .venv/bin/gunicorn app:server -c gunicorn.conf.py
