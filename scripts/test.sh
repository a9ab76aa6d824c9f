#!/usr/bin/env bash
# `npm test`: installs what is missing, starts the real services the tests use, runs every test, stops them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh

export CI="${CI:-}" NEXT_TELEMETRY_DISABLED=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
results=test-results/summary
rm -rf "$results" && mkdir -p "$results"

ensure_node_modules
ensure_chromium
ensure_kafka_jars

stop_services() {
  local status=$?
  npx tsx scripts/kafka/clusters.ts stop >/dev/null 2>&1 || true
  exit "$status"
}
trap stop_services EXIT
trap 'exit 130' INT TERM

step() { echo; echo "==> $*"; }

step "typecheck"
npx tsc --noEmit
step "lint"
npx eslint . --max-warnings 0
step "unit tests"
npx vitest run --project unit --reporter=default --reporter=json --outputFile.json="$results/unit.json"
step "starting two Kafka clusters on loopback"
npx tsx scripts/kafka/clusters.ts start
step "integration tests (real Kafka brokers)"
npx vitest run --project integration --reporter=default --reporter=json --outputFile.json="$results/integration.json"
step "production build (type-checked above)"
MIRRORBOARD_BUILD_SKIP_TYPECHECK=1 npx next build
# The fuzzer and the clean-clone check share no port, file or timing-sensitive wait, so they run side by side
# (the fuzzer has a time budget of its own); the browser journeys, which wait on live state, run after them alone.
step "API fuzzing (schemathesis) beside the clean-clone check (npm ci --omit=dev && npm run build && npm start)"
bash scripts/fuzz/run.sh > "$results/fuzz.log" 2>&1 &
fuzz_pid=$!
clean_clone_status=0
bash scripts/test/clean-clone.sh || clean_clone_status=$?
fuzz_status=0
wait "$fuzz_pid" || fuzz_status=$?
echo "--- API fuzzing"
cat "$results/fuzz.log"
if [ "$clean_clone_status" != 0 ] || [ "$fuzz_status" != 0 ]; then
  echo "clean-clone check exit $clean_clone_status, API fuzzing exit $fuzz_status" >&2
  exit 1
fi
step "browser journeys (Debian chromium)"
PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e.json" npx playwright test --reporter=list,json
step "browser journeys in demo mode"
PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e-demo.json" npx playwright test -c playwright.demo.config.ts --reporter=list,json
step "summary"
node scripts/test/summary.mjs "$results"
