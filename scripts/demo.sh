#!/usr/bin/env bash
# `npm run demo`: installs what is missing, builds what changed, and serves the demo environment (two embedded
# clusters, a mirror, live workloads, fault injection and scenarios). `npm run demo -- --reset` starts from an
# empty data dir; without it an existing data dir resumes where it was.
#
# It runs what `npm start` runs (dist/main.js over the production build), from a production install where
# nothing is installed yet: the demo needs no dev dependency. A build is skipped when the sources are those
# of the last one (scripts/lib/build-stamp.sh), so a second `npm run demo` starts in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
source scripts/lib/build-stamp.sh
export NEXT_TELEMETRY_DISABLED=1

reset=0
for arg in "$@"; do
  case "$arg" in
    --reset) reset=1 ;;
    *) echo "usage: npm run demo [-- --reset]" >&2; exit 2 ;;
  esac
done

data_dir="${MIRRORBOARD_DATA_DIR:-./data}"
if [ "$reset" = 1 ] && [ -d "$data_dir" ]; then
  # Only a directory Mirrorboard wrote is removed: a mistyped MIRRORBOARD_DATA_DIR must not cost anyone a folder.
  if [ -f "$data_dir/clusters.json" ] || [ -f "$data_dir/tokens.json" ] || [ -d "$data_dir/audit" ]; then
    echo "==> --reset: removing $data_dir"
    rm -rf -- "$data_dir"
  elif [ -n "$(ls -A -- "$data_dir")" ]; then
    echo "refusing to reset $data_dir: it does not look like a Mirrorboard data dir" >&2
    exit 1
  fi
fi

# What `npm run build` does (next build, the server entry dist/main.js, the drill sandbox), side by side: they are
# independent, and the server entry's tsc (a compiler start and a type check) no longer waits for next build.
# MIRRORBOARD_DEMO_BUILD=1: next.config.ts skips the build's own type check and its Turbopack cache.
build() {
  MIRRORBOARD_DEMO_BUILD=1 npx next build &
  local next_build=$!
  npx tsc -p tsconfig.server.json &
  local server_entry=$!
  # A drill's sandbox process (dist/sandbox/): forked by the server where tsx, a dev dependency, is not installed.
  node cli/build.mjs tsconfig.sandbox.json &
  local sandbox=$!
  local failed=0
  wait "$next_build" || failed=1
  wait "$server_entry" || failed=1
  wait "$sandbox" || failed=1
  return "$failed"
}

ensure_node_modules --production
if build_is_current; then
  echo "==> the build is current (sources unchanged since it was made): not building"
else
  echo "==> building"
  build
  save_build_stamp
fi
port="${PORT:-3000}"
host="${HOST:-127.0.0.1}"
echo
echo "==> starting the demo on http://${host}:${port}  (data in ${data_dir}; the banner below gives the tokens)"
MIRRORBOARD_DEMO=1 MIRRORBOARD_URL="http://${host}:${port}" exec node dist/main.js -H "$host" -p "$port"
