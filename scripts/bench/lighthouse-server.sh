#!/usr/bin/env bash
# The Lighthouse bench's target (scripts/bench/lighthouse.ts): a production server in demo mode with a
# 2,000-partition mirror `big-2000`, started in the background; prints the viewer token and the pages to score.
# It builds nothing: build first, e.g.
#
#   npx next build --webpack && npx tsc -p tsconfig.server.json
#   bash scripts/bench/lighthouse-server.sh 3931            # port (3931), data dir (/tmp/mirrorboard-lighthouse-<port>)
#   LIGHTHOUSE_BASE=http://127.0.0.1:3931 LIGHTHOUSE_TOKEN=<printed> LIGHTHOUSE_PAGES=<printed> npm run bench -- lighthouse
#   bash scripts/bench/lighthouse-server.sh 3931 stop        # stops the server this script started on that port
#
# A data dir kept from an earlier start resumes (the demo's logs and the mirror are still there), so two builds can be
# compared on the same data: stop, rebuild, start again. MIRRORBOARD_LIGHTHOUSE_RESET=1 starts from an empty one.
# The tokens are fixed (MIRRORBOARD_*_TOKEN) so a restarted server signs in with the same viewer token.
set -euo pipefail
cd "$(dirname "$0")/../.."

port="${1:-3931}"
data_dir="${MIRRORBOARD_DATA_DIR:-/tmp/mirrorboard-lighthouse-$port}"
pid_file="$data_dir/server.pid"
base="http://127.0.0.1:$port"
operator="lighthouse-operator-token-$port"
viewer="lighthouse-viewer-token-$port"
mirror=big-2000

if [ "${2:-}" = stop ]; then
  if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    pid=$(cat "$pid_file")
    kill "$pid"
    # A graceful shutdown may wait on open event streams: 15 s, then for good.
    for _ in $(seq 15); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; fi
    echo "stopped the server on port $port (pid $pid)"
  else
    echo "no server of this script runs on port $port"
  fi
  rm -f "$pid_file"
  exit 0
fi

if [ ! -f dist/main.js ] || [ ! -f .next/BUILD_ID ]; then
  echo "build first: npx next build --webpack && npx tsc -p tsconfig.server.json (dist/main.js and .next/BUILD_ID)" >&2
  exit 1
fi
if curl -sf "$base/api/v1/health" >/dev/null 2>&1; then
  echo "something already answers on port $port: stop it first (bash $0 $port stop)" >&2
  exit 1
fi
if [ "${MIRRORBOARD_LIGHTHOUSE_RESET:-0}" = 1 ] && [ -d "$data_dir" ]; then rm -rf -- "$data_dir"; fi
mkdir -p "$data_dir"

echo "==> starting node dist/main.js on $base (demo mode, data dir $data_dir, log $data_dir/server.log)"
MIRRORBOARD_DEMO=1 MIRRORBOARD_URL="$base" MIRRORBOARD_DATA_DIR="$data_dir" \
  MIRRORBOARD_OPERATOR_TOKEN="$operator" MIRRORBOARD_VIEWER_TOKEN="$viewer" \
  nohup node dist/main.js -H 127.0.0.1 -p "$port" >"$data_dir/server.log" 2>&1 &
echo $! >"$pid_file"

# curl with the operator's bearer; prints the body, fails on an HTTP error.
api() {
  local method=$1 url=$2
  shift 2
  curl -sS --fail-with-body -X "$method" -H "Authorization: Bearer $operator" -H 'content-type: application/json' "$base$url" "$@"
}

wait_for() {
  local what=$1 seconds=$2 check=$3
  for _ in $(seq "$seconds"); do
    if eval "$check"; then return 0; fi
    if ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then
      echo "the server exited: see $data_dir/server.log" >&2
      exit 1
    fi
    sleep 1
  done
  echo "timed out waiting for $what: see $data_dir/server.log" >&2
  exit 1
}

wait_for 'the server' 120 "curl -sf '$base/api/v1/health' >/dev/null"
wait_for 'the demo clusters' 180 "api GET /api/v1/demo 2>/dev/null | grep -q '\"status\":\"ready\"'"

if api GET "/api/v1/mirrors/$mirror" >/dev/null 2>&1; then
  echo "==> $mirror exists (resumed data dir)"
else
  echo "==> creating $mirror: topics big-a and big-b (1,000 partitions each) on us-east, mirrored to eu-west"
  for topic in big-a big-b; do
    api GET "/api/v1/clusters/us-east/topics/$topic/partitions" >/dev/null 2>&1 || api POST /api/v1/clusters/us-east/topics -d "{\"name\":\"$topic\",\"partitions\":1000}" >/dev/null
  done
  api POST /api/v1/mirrors --max-time 300 -d "{\"name\":\"$mirror\",\"sourceCluster\":\"us-east\",\"destinationCluster\":\"eu-west\",\"topics\":[\"big-a\",\"big-b\"]}" >/dev/null
fi
wait_for "$mirror's 2,000 partitions MIRRORING" 240 "api GET /api/v1/mirrors/$mirror | grep -q '\"MIRRORING\":2000'"

cat <<EOF
==> ready (server pid $(cat "$pid_file"); stop it with: bash $0 $port stop)
LIGHTHOUSE_BASE=$base
LIGHTHOUSE_TOKEN=$viewer
LIGHTHOUSE_PAGES=/,/mirrors/$mirror,/mirrors/us-east-to-eu-west/partitions/orders/0,/audit
EOF
