#!/usr/bin/env bash
# Starts a perfcast job worker (Celery) for the redis job backend: the same code and environment as the
# web servers (./run.sh), in particular PERFCAST_REDIS_URL, PERFCAST_SECRET_KEY and PERFCAST_VAR_DIR.
# Pool and concurrency: PERFCAST_WORKER_POOL (prefork | threads, default prefork) and
# PERFCAST_WORKER_CONCURRENCY (default PERFCAST_MAX_JOBS, 2). The worker runs niced below web servers
# on the same machine (PERFCAST_JOB_NICENESS, default 10). Extra arguments go to `celery worker`.
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${PERFCAST_REDIS_URL:-}" ]; then
  echo "worker.sh: set PERFCAST_REDIS_URL (e.g. redis://:password@redis-host:6379/0) to the Redis the web servers use" >&2
  exit 2
fi
if [ -z "${PERFCAST_SECRET_KEY:-}" ]; then
  echo "worker.sh: set PERFCAST_SECRET_KEY to the same value as on the web servers" >&2
  exit 2
fi
scripts/ensure_env.sh requirements.txt
pool="${PERFCAST_WORKER_POOL:-prefork}"
concurrency="${PERFCAST_WORKER_CONCURRENCY:-${PERFCAST_MAX_JOBS:-2}}"
exec nice -n "${PERFCAST_JOB_NICENESS:-10}" .venv/bin/celery -A app:celery_app worker \
  --pool "$pool" --concurrency "$concurrency" --hostname "perfcast@%h" --loglevel INFO "$@"
