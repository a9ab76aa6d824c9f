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
step "production build"
npx next build
step "clean clone: npm ci --omit=dev && npm run build && npm start serves /api/v1/health"
bash scripts/test/clean-clone.sh
step "browser journeys (Debian chromium)"
PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e.json" npx playwright test --reporter=list,json
step "browser journeys in demo mode"
PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e-demo.json" npx playwright test -c playwright.demo.config.ts --reporter=list,json
step "API fuzzing (schemathesis)"
bash scripts/fuzz/run.sh
step "summary"
node scripts/test/summary.mjs "$results"
