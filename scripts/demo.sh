#!/usr/bin/env bash
# `npm run demo`: installs what is missing, builds, and serves the demo on the embedded default.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
export NEXT_TELEMETRY_DISABLED=1

ensure_node_modules
echo "==> building"
npx next build
port="${PORT:-3000}"
host="${HOST:-127.0.0.1}"
echo
echo "==> Mirrorboard demo: http://${host}:${port}  (data in ${MIRRORBOARD_DATA_DIR:-./data})"
MIRRORBOARD_DEMO=1 exec node --import tsx server/main.ts -H "$host" -p "$port"
