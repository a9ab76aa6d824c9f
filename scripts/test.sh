#!/usr/bin/env bash
# `npm test`: installs what is missing, starts the real services the tests use, runs every test, stops them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
started_at=$SECONDS

# E2E_TRACE=off: a trace of every browser journey (kept for failures) is 40 % of the journeys' CPU, and no one
# opens one from a clean clone's run (playwright.config.ts).
export CI="${CI:-}" NEXT_TELEMETRY_DISABLED=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 E2E_TRACE="${E2E_TRACE:-off}"
results=test-results/summary
rm -rf "$results" && mkdir -p "$results"

# Chromium for the browser journeys, Prometheus and Alertmanager for the alerting checks, zsh for the command line's
# completion test (cli/completion.test.ts), openssl for the brokers' TLS material, Kafka's jars from Maven.
ensure_everything_for_tests

kafka_pid=
integration_pid=
side_pid=
stop_services() {
  local status=$?
  # The suites beside the demo journeys, when the run is stopped while they go on.
  if [ -n "$side_pid" ]; then kill "$side_pid" 2>/dev/null || true; wait "$side_pid" 2>/dev/null || true; fi
  # Integration tests still running when a step before them failed: stopped before their brokers are.
  if [ -n "$integration_pid" ]; then kill "$integration_pid" 2>/dev/null || true; wait "$integration_pid" 2>/dev/null || true; fi
  # A start still under way is waited for, so its brokers are there to be stopped.
  [ -n "$kafka_pid" ] && wait "$kafka_pid" 2>/dev/null
  npx tsx scripts/kafka/clusters.ts stop >/dev/null 2>&1 || true
  exit "$status"
}
trap stop_services EXIT
trap 'exit 130' INT TERM

# Each step says when it starts, counted from the start of the run, so a slow phase shows in any CI log.
# And how busy the machine's cores were during the step before (from /proc/stat): a phase that waits leaves them
# idle, one that computes fills them, which says whether running it beside another would gain anything.
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8, $5 + $6 }' /proc/stat 2>/dev/null || echo "0 0"; }
# And how much of that was this run's own work: the CPU seconds of the processes it started and waited for (bash's
# `times`, children's line), so a busy machine is told apart from a heavy step.
# (`times` runs in this shell, not in a $(...) subshell, whose children are its own.)
children_cpu_file="$results/.times"
children_cpu() { awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$children_cpu_file"; }
step_ticks=
step_children_cpu=0
step() {
  local now idle_now busy="" own
  read -r now idle_now < <(cpu_ticks)
  times > "$children_cpu_file"
  own=$(children_cpu)
  if [ -n "$step_ticks" ]; then
    local total=$((now - ${step_ticks% *})) idle=$((idle_now - ${step_ticks#* }))
    [ "$total" -gt 0 ] && busy=" (cores busy $(( 100 * (total - idle) / total )) % during the step before; its own processes used $((own - step_children_cpu)) CPU s)"
  fi
  step_ticks="$now $idle_now"
  step_children_cpu=$own
  echo; echo "==> $* (at $(( (SECONDS - started_at) / 60 ))m$(( (SECONDS - started_at) % 60 ))s)$busy"
}
# A port nothing listens on now: a server left over from an interrupted run must not fail this one (Playwright
# refuses a taken port rather than test someone else's server).
# `free_ports N` prints N different ones (bound at the same time, so never the same port twice).
free_ports() { python3 -c 'import socket, sys; s = [socket.socket() for _ in range(int(sys.argv[1]))]; [x.bind(("127.0.0.1", 0)) for x in s]; print(" ".join(str(x.getsockname()[1]) for x in s))' "$1"; }

# The brokers take half a minute to come up; they start now, beside the checks, and are waited for before the
# integration tests that need them.
step "starting two Kafka clusters on loopback (in the background)"
npx tsx scripts/kafka/clusters.ts start > "$results/kafka-start.log" 2>&1 &
kafka_pid=$!
# Type check and lint are one thread each: side by side on a machine of two cores or more.
step "typecheck beside lint"
npx tsc --noEmit > "$results/typecheck.log" 2>&1 &
typecheck_pid=$!
lint_status=0
# ESLint, then the layer rules over resolved imports (.dependency-cruiser.cjs).
npm run --silent lint || lint_status=$?
typecheck_status=0
wait "$typecheck_pid" || typecheck_status=$?
echo "--- typecheck"
cat "$results/typecheck.log"
if [ "$typecheck_status" != 0 ] || [ "$lint_status" != 0 ]; then
  echo "typecheck exit $typecheck_status, lint exit $lint_status" >&2
  exit 1
fi
# High or critical advisories in production dependencies fail the run (scripts/test/dependency-audit.ts says when
# no advisory source answers, as this workplace's registry mirror does not).
step "dependency audit (npm audit --omit=dev)"
npx tsx scripts/test/dependency-audit.ts
# The integration tests mostly wait (on the brokers, on fsync, on session timeouts): 30 % of the cores in a run of
# their own, and the longest phase of the run (about 9 minutes). They run in the background from the moment the
# brokers are up: first beside the unit tests, which fill the cores, then beside the production build, the
# clean-clone check and the fuzzer, which need no broker. Each phase's output is printed when it is waited for.
step "unit tests beside the integration tests (real Kafka brokers, once they are up)"
npx vitest run --project unit --reporter=default --reporter=json --outputFile.json="$results/unit.json" > "$results/unit.log" 2>&1 &
unit_pid=$!
kafka_status=0
wait "$kafka_pid" || kafka_status=$?
kafka_pid=
cat "$results/kafka-start.log"
if [ "$kafka_status" = 0 ]; then
  npx vitest run --project integration --reporter=default --reporter=json --outputFile.json="$results/integration.json" > "$results/integration.log" 2>&1 &
  integration_pid=$!
else
  echo "the Kafka clusters did not start (exit $kafka_status)" >&2
fi
unit_status=0
wait "$unit_pid" || unit_status=$?
echo "--- unit tests"
cat "$results/unit.log"
if [ "$kafka_status" != 0 ] || [ "$unit_status" != 0 ]; then
  echo "unit tests exit $unit_status, Kafka clusters exit $kafka_status" >&2
  exit 1
fi
step "production build (type-checked above), and the command line's (dist/cli/), the integration tests still running"
MIRRORBOARD_BUILD_SKIP_TYPECHECK=1 npx next build
node cli/build.mjs
# The fuzzer has a time budget of its own and shares no port, file or timing-sensitive wait with the others, so it
# runs beside the clean-clone check and then the demo-mode journeys (their own server, port and data dir). The demo
# journeys wait for the clean clone, whose npm ci and build would take the cores from under their live waits, and
# for the integration tests, for the same reason.
step "API fuzzing (schemathesis) beside the clean-clone check (npm ci --omit=dev && npm run build && npm start), the integration tests still running"
bash scripts/fuzz/run.sh > "$results/fuzz.log" 2>&1 &
fuzz_pid=$!
clean_clone_status=0
bash scripts/test/clean-clone.sh || clean_clone_status=$?
step "the integration tests finish"
integration_status=0
wait "$integration_pid" || integration_status=$?
integration_pid=
echo "--- integration tests"
cat "$results/integration.log"
demo_status=0
side_status=0
if [ "$clean_clone_status" = 0 ] && [ "$integration_status" = 0 ]; then
  # The demo journeys mostly wait on their live scenarios (the cores were 40-50 % busy through them), so the suites
  # that bring servers of their own run beside them, one after another: four minutes off the run. Each keeps its
  # own port, data dir and log; every one runs even when one before it failed, so no failure hides another.
  read -r oidc_port oidc_provider_port ha_port ha_other_port ha_control_port ha_control_admin_port <<< "$(free_ports 6)"
  side_suites() {
    local status=0
    # Attacks as issue #41 found them, each against a production server over loopback, bounded in count and time.
    echo "==> hostile-input suite (a production server over loopback)"
    npx vitest run --config scripts/hostile/vitest.config.mts || status=1
    # The built `mirrorboard` as a user runs it, against a production server of its own (cli/e2e/README.md): the
    # KIP's worked example end to end, every action, the exit codes, the terminal's confirmation.
    echo "==> command line against a production server (cli/e2e/)"
    npx vitest run --config cli/e2e/vitest.config.mts --reporter=default --reporter=json --outputFile.json="$results/cli-e2e.json" || status=1
    # Signing in through the company's identity provider: the server configured for OpenID Connect against the
    # test provider of server/testing/oidc-test-provider.ts on a port of its own (issue #39).
    echo "==> browser journeys through the test identity provider (Debian chromium)"
    E2E_PORT="$oidc_port" E2E_OIDC_PORT="$oidc_provider_port" PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e-oidc.json" \
      npx playwright test -c playwright.oidc.config.ts --reporter=list,json || status=1
    # Several instances sharing the work (issue #40): a production server and a second instance in one group on
    # the Kafka clusters started above (free now the integration tests are done), their control cluster a broker
    # of its own behind a proxy a journey cuts.
    echo "==> browser journeys of a group of instances (Debian chromium, the Kafka clusters above)"
    E2E_PORT="$ha_port" E2E_HA_OTHER_PORT="$ha_other_port" E2E_HA_CONTROL_PORT="$ha_control_port" E2E_HA_CONTROL_ADMIN_PORT="$ha_control_admin_port" \
      PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e-ha.json" \
      npx playwright test -c playwright.ha.config.ts --reporter=list,json || status=1
    return "$status"
  }
  step "browser journeys in demo mode (Debian chromium), the fuzzer still running; beside them the hostile-input suite, the command line, the identity provider's and the group of instances' journeys"
  side_suites > "$results/side-suites.log" 2>&1 &
  side_pid=$!
  E2E_DEMO_PORT="$(free_ports 1)" PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e-demo.json" \
    npx playwright test -c playwright.demo.config.ts --reporter=list,json || demo_status=$?
  step "the suites beside the demo journeys finish"
  wait "$side_pid" || side_status=$?
  side_pid=
  echo "--- hostile-input suite, command line, identity provider's and group of instances' journeys"
  cat "$results/side-suites.log"
fi
fuzz_status=0
wait "$fuzz_pid" || fuzz_status=$?
echo "--- API fuzzing"
cat "$results/fuzz.log"
if [ "$integration_status" != 0 ] || [ "$clean_clone_status" != 0 ] || [ "$fuzz_status" != 0 ] || [ "$demo_status" != 0 ] || [ "$side_status" != 0 ]; then
  echo "integration tests exit $integration_status, clean-clone check exit $clean_clone_status, API fuzzing exit $fuzz_status, demo journeys exit $demo_status, suites beside them exit $side_status" >&2
  exit 1
fi
# One worker: both projects side by side (a server each) took as long on two cores as one after the other (the
# journeys are CPU-bound here) and made a 2,000-partition failover's page time out. But each project gets a server
# and data dir of its own: every journey leaves its clusters and mirrors behind, still mirroring, and the phone
# journeys ran after all the desktop ones on a server holding twice as many (overview, mirror list and axe over
# all of them), and a journey's screens are then what its own project made, not the other's leftovers.
step "browser journeys at 1440x900 (Debian chromium)"
desktop_status=0
E2E_PORT="$(free_ports 1)" PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e.json" npx playwright test --project=desktop --reporter=list,json || desktop_status=$?
# Run whatever the desktop journeys said, so one failure does not hide the other size's.
step "browser journeys at 390x844 (Debian chromium), on a server of their own"
E2E_PORT="$(free_ports 1)" PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e-phone.json" npx playwright test --project=phone --reporter=list,json
if [ "$desktop_status" != 0 ]; then
  echo "the browser journeys at 1440x900 failed (exit $desktop_status)" >&2
  exit 1
fi
step "summary"
node scripts/test/summary.mjs "$results"
