#!/usr/bin/env bash
# Shared set-up for run.sh and test.sh: a project virtualenv with pinned packages.
# Usage: scripts/ensure_env.sh requirements.txt [more requirement files]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
# one stamp per set of requirement files: run.sh and test.sh do not undo each other's
stamp=".venv/.requirements-stamp-$(echo "$*" | sha256sum | cut -c1-12)"
want="$(cat "$@" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[setup] installing Python packages from $*"
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
  for f in "$@"; do .venv/bin/python -m pip install --quiet -r "$f"; done
  echo "$want" > "$stamp"
fi
# compile the kernels now (kept next to the source), not in the first job: the forest, the stepwise
# updates and the regularized paths (cross-generation), the neighbourhood systems and the active-set solver (phases)
PYTHONPATH="$here" .venv/bin/python -c "
from modeling.crossgen import forest_trees, inplace, regularized
from modeling.phases import active_set, neighbourhoods
for kernels in (forest_trees, inplace, regularized, active_set, neighbourhoods):
    kernels.warm_up()"
