#!/usr/bin/env bash
# Shared set-up for run.sh and test.sh: a project virtualenv with pinned packages.
# Usage: scripts/ensure_env.sh requirements.txt [more requirement files]
# One stamp for the virtualenv (.venv/.perfcast-installed: a line "FILE SHA256" per requirement file
# installed), so ./run.sh finds requirements.txt installed by ./test.sh and installs nothing, and a file is
# installed again only when its content changed.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
stamp=".venv/.perfcast-installed"
touch "$stamp"
todo=()
for f in "$@"; do
  grep -qxF "$f $(sha256sum "$f" | cut -d' ' -f1)" "$stamp" || todo+=("$f")
done
if [ ${#todo[@]} -gt 0 ]; then
  echo "[setup] installing Python packages from ${todo[*]}"
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
  for f in "${todo[@]}"; do
    .venv/bin/python -m pip install --quiet -r "$f"
    { grep -v "^$f " "$stamp" || true; echo "$f $(sha256sum "$f" | cut -d' ' -f1)"; } > "$stamp.new"
    mv "$stamp.new" "$stamp"
  done
fi
# compile the kernels now (kept next to the source), not in the first job: the forest, the stepwise
# updates and the regularized paths (cross-generation), the neighbourhood systems and the active-set solver (phases)
PYTHONPATH="$here" .venv/bin/python -c "
from modeling.crossgen import forest_trees, inplace, regularized
from modeling.phases import active_set, neighbourhoods
for kernels in (forest_trees, inplace, regularized, active_set, neighbourhoods):
    kernels.warm_up()"
