#!/usr/bin/env bash
# The production install a new user or a deployment does, from the repository's files alone:
# `npm ci --omit=dev && npm run build && npm start`, then GET /api/v1/health. Run by scripts/test.sh.
#
# The copy holds the files git would give a clone (tracked and not ignored, uncommitted edits included), so a
# file that .gitignore hides, or a dependency left in devDependencies, fails here and not on someone's server.
# npm's cache is shared with the main install (--prefer-offline): the install takes seconds, not a download.
set -euo pipefail
cd "$(dirname "$0")/../.."

port="${CLEAN_CLONE_PORT:-3399}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mirrorboard-clean-clone.XXXXXX")"
server_pid=""
cleanup() {
  local status=$?
  if [ -n "$server_pid" ]; then kill -- "-$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

started=$SECONDS
git ls-files -z --cached --others --exclude-standard | tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$work"
cd "$work"
echo "clean copy in $work"

phase=$SECONDS
npm ci --omit=dev --prefer-offline --no-audit --no-fund --loglevel=error
echo "npm ci --omit=dev: $((SECONDS - phase)) s"
# The point of the check: nothing below may lean on a dev dependency. (@playwright/test is installed all the
# same: it is an optional peer of next, and optional packages stay in a production install.)
for dev in tsx vitest eslint fast-check; do
  if [ -e "node_modules/$dev" ]; then echo "node_modules/$dev is installed: not a production install" >&2; exit 1; fi
done

phase=$SECONDS
NEXT_TELEMETRY_DISABLED=1 npm run build --silent > build.log 2>&1 || { cat build.log >&2; exit 1; }
echo "npm run build: $((SECONDS - phase)) s"
phase=$SECONDS

# A process group of its own, so the EXIT trap stops npm and the node it started together.
MIRRORBOARD_DATA_DIR="$work/data" PORT="$port" HOST=127.0.0.1 setsid npm start --silent > server.log 2>&1 &
server_pid=$!
for _ in $(seq 1 180); do
  if body="$(curl -fsS -D headers.txt "http://127.0.0.1:$port/api/v1/health" 2>/dev/null)"; then
    echo "npm start → GET /api/v1/health in $((SECONDS - phase)) s: $body"
    # The compiled entry (dist/main.js) is what sets them in production; the journeys run server/main.ts.
    if ! grep -qi '^content-security-policy: .*frame-ancestors' headers.txt; then
      echo "the answer has no Content-Security-Policy:" >&2; cat headers.txt >&2; exit 1
    fi
    # The `mirrorboard` bin of the production install: the build (dist/cli/), with no tsx to fall back on.
    if ! version="$(node cli/bin.js --version --server "http://127.0.0.1:$port" 2>&1)"; then
      echo "the command line of the production install failed: $version" >&2; exit 1
    fi
    echo "mirrorboard --version: ${version//$'\n'/; }"
    echo "clean-clone check passed in $((SECONDS - started)) s"
    exit 0
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.5
done
echo "npm start did not serve /api/v1/health on port $port:" >&2
cat server.log >&2
exit 1
