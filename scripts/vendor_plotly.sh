#!/usr/bin/env bash
# Vendors the partial plotly.js bundle the dashboard serves instead of the full one (4.8 MB):
# npm's plotly.js-cartesian-dist-min at the version of plotly.js the installed Python plotly ships,
# so figures behave the same. Run after changing the plotly pin; commit the file it writes.
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
echo "vendored plotly.js-cartesian-dist-min $ver -> assets/vendor/plotly-cartesian-$ver.min.js"
