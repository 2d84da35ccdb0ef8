#!/usr/bin/env bash
# Vendors the partial plotly.js bundle the dashboard serves instead of the full one (4.8 MB):
# npm's plotly.js-cartesian-dist-min at the version of plotly.js the installed Python plotly ships,
# so figures behave the same, its factory parenthesized (eager compilation; dashboard/ui/plotly_bundle.py).
# Run after changing the plotly pin; commit the file it writes.
#   scripts/vendor_plotly.sh
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ver="$("$here/.venv/bin/python" -c 'from plotly.offline import get_plotlyjs_version; print(get_plotlyjs_version())')"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "plotly.js-cartesian-dist-min@$ver" >/dev/null && tar xzf ./*.tgz)
rm -f "$here"/assets/vendor/plotly-cartesian-*.min.js
cp "$tmp/package/plotly-cartesian.min.js" "$here/assets/vendor/plotly-cartesian-$ver.min.js"
cp "$tmp/package/LICENSE" "$here/assets/vendor/plotly-LICENSE.txt"
# its factory parenthesized, so that browsers compile it off the main thread (dashboard/ui/plotly_bundle.py)
PYTHONPATH="$here" "$here/.venv/bin/python" -c '
import sys
from pathlib import Path
from dashboard.ui.plotly_bundle import eager_factory
f = Path(sys.argv[1])
f.write_text(eager_factory(f.read_text()))' "$here/assets/vendor/plotly-cartesian-$ver.min.js"
echo "vendored plotly.js-cartesian-dist-min $ver -> assets/vendor/plotly-cartesian-$ver.min.js"
