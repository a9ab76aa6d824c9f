#!/usr/bin/env bash
# API fuzzing: schemathesis against the served OpenAPI document of a production server (server/main.ts), with
# real clusters, topics, a producer, a group and (when the mirror endpoints are served) a mirror seeded first,
# so generated requests reach real resources and not only 404s. Fails on any 5xx or a response that breaks
# its declared schema. Needs the production build (`npx next build`); run by `npm test` after it.
#
#   bash scripts/fuzz/run.sh                 # bounded: ~30 examples per operation, a few minutes on 2 cores
#   FUZZ_MAX_EXAMPLES=100 FUZZ_MAX_TIME=600 FUZZ_SEED=7 bash scripts/fuzz/run.sh
#   FUZZ_HAR=1 bash scripts/fuzz/run.sh      # also records every request (~100 MB) in test-results/fuzz/requests.har
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

SCHEMATHESIS_VERSION=4.32.5
venv=.tmp/venv
out=test-results/fuzz
max_examples="${FUZZ_MAX_EXAMPLES:-30}"
# schemathesis's own budget; the seeding and server start add well under a minute.
max_time="${FUZZ_MAX_TIME:-150}"
operator_token=fuzz-operator-token
viewer_token=fuzz-viewer-token

if [ ! -f .next/BUILD_ID ]; then
  echo "fuzz: no production build (.next/BUILD_ID); run 'npx next build' first" >&2
  exit 1
fi

if [ "$("$venv/bin/schemathesis" --version 2>/dev/null || true)" != "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
  echo "fuzz: installing schemathesis $SCHEMATHESIS_VERSION into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

rm -rf "$out" && mkdir -p "$out"
data_dir=$(mktemp -d "${TMPDIR:-/tmp}/mirrorboard-fuzz-XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
base="http://127.0.0.1:$port"
server_pid=

stop_server() {
  local status=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    # Its own process group (setsid below), so the server's children stop with it.
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    # It closes every cluster's logs first, which takes a few seconds after a fuzz has made dozens.
    for _ in $(seq 300); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$data_dir"
  exit "$status"
}
trap stop_server EXIT
trap 'exit 130' INT TERM

echo "fuzz: starting the production server on $base (data dir $data_dir)"
# A fatal error or an uncaught exception leaves a diagnostic report beside the server log.
NODE_OPTIONS="--report-on-fatalerror --report-uncaught-exception --report-directory=$root/$out" \
  NEXT_TELEMETRY_DISABLED=1 MIRRORBOARD_DATA_DIR="$data_dir" MIRRORBOARD_CHECK_RESPONSES=1 \
  MIRRORBOARD_OPERATOR_TOKEN="$operator_token" MIRRORBOARD_VIEWER_TOKEN="$viewer_token" \
  setsid node --import tsx server/main.ts -H 127.0.0.1 -p "$port" >"$out/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 300); do
  curl -fsS "$base/api/v1/health" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { echo "fuzz: the server exited; see $out/server.log" >&2; cat "$out/server.log" >&2; exit 1; }
  sleep 0.2
done
curl -fsS "$base/api/v1/health" >/dev/null

# Seed: names that exist, for the dictionaries schemathesis draws path parameters from.
call() {
  local method=$1 path=$2 body=${3:-}
  local response status
  response=$(curl -sS -X "$method" -H "Authorization: Bearer $operator_token" -H 'Content-Type: application/json' \
    ${body:+--data "$body"} -w '\n%{http_code}' "$base$path")
  status=${response##*$'\n'}
  if [ "${status:0:1}" != 2 ]; then
    echo "fuzz: seeding failed: $method $path -> $status ${response%$'\n'*}" >&2
    exit 1
  fi
  printf '%s' "${response%$'\n'*}"
}
json() { python3 -c 'import json, sys; print(eval("d" + sys.argv[1], {"d": json.load(sys.stdin)}))' "$1"; }

call POST /api/v1/clusters '{"name":"fuzz-src","kind":"embedded","brokers":1}' >/dev/null
call POST /api/v1/clusters '{"name":"fuzz-dst","kind":"embedded","brokers":1}' >/dev/null
call POST /api/v1/clusters/fuzz-src/topics '{"name":"orders","partitions":3}' >/dev/null
call POST /api/v1/clusters/fuzz-src/topics/orders/records \
  '{"records":[{"key":"a","value":"1"},{"key":"b","value":"2"},{"key":"c","value":"3"},{"value":null}]}' >/dev/null
# Several producer handles: a generated DELETE closes the one it names, and the others stay usable.
handles=
for id in 1 2 3; do
  handle=$(call POST /api/v1/clusters/fuzz-src/producers "{\"transactionalId\":\"fuzz-tx-$id\"}" | json '["producer"]')
  call POST "/api/v1/clusters/fuzz-src/producers/$handle/send" '{"topic":"orders","partition":0,"records":[{"value":"t"}]}' >/dev/null
  call POST "/api/v1/clusters/fuzz-src/producers/$handle/commit" >/dev/null
  handles="$handles\"$handle\", "
done
call POST /api/v1/clusters/fuzz-src/groups/billing/offsets '{"offsets":[{"topic":"orders","partition":0,"offset":2}]}' >/dev/null

curl -fsS "$base/api/v1/openapi.json" -o "$out/openapi.json"
python3 scripts/fuzz/schema.py "$out/openapi.json" "$out/openapi.fuzz.json"
mirror_names=
if python3 -c 'import json, sys; sys.exit(0 if "/api/v1/mirrors" in json.load(open(sys.argv[1]))["paths"] else 1)' "$out/openapi.json"; then
  call POST /api/v1/mirrors '{"name":"fuzz-dr","sourceCluster":"fuzz-src","destinationCluster":"fuzz-dst","topics":["orders"]}' >/dev/null
  mirror_names='"fuzz-dr", '
else
  echo "fuzz: this build serves no mirror endpoints; seeded without a mirror"
fi
operation_count=$(python3 -c 'import json, sys; print(sum(len(v) for v in json.load(open(sys.argv[1]))["paths"].values()))' "$out/openapi.json")

# Path parameters are drawn from the seeded names most of the time, generated otherwise.
cat >"$out/schemathesis.toml" <<TOML
[dictionaries.clusters]
values = ["fuzz-src", "fuzz-dst"]
[dictionaries.topics]
values = ["orders"]
[dictionaries.partitions]
values = ["0", "1", "2"]
[dictionaries.handles]
values = [${handles%, }]
[dictionaries.groups]
values = ["billing"]
[dictionaries.mirrors]
values = [${mirror_names}"fuzz-none"]

[parameters]
"path.cluster" = { dictionary = "clusters", probability = 0.8 }
"path.topic" = { dictionary = "topics", probability = 0.8 }
"path.partition" = { dictionary = "partitions", probability = 0.8 }
"path.handle" = { dictionary = "handles", probability = 0.8 }
"path.group" = { dictionary = "groups", probability = 0.8 }
"path.mirror" = { dictionary = "mirrors", probability = 0.8 }

# TRACE is left out: Node's fetch Request refuses the method, so Next.js answers 500 before any route
# code runs (for pages too); nothing in the app can catch it. Every other method must get a 405.
[phases.coverage]
unexpected-methods = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "PATCH", "QUERY"]
TOML

# streamEvents is left out: a valid request opens a stream that never ends (e2e/api.spec.ts covers it).
# One worker: with two, Hypothesis's threads race in CPython 3.11's ast.parse ("AST constructor recursion
# depth mismatch") and abort whole operations; the server shares the same 2 cores anyway.
echo "fuzz: schemathesis $SCHEMATHESIS_VERSION over $operation_count operations, $max_examples examples each, ${max_time}s budget"
fuzz() {
  "$venv/bin/schemathesis" --config-file "$out/schemathesis.toml" run "$out/openapi.fuzz.json" \
    --url "$base" \
    --header "Authorization: Bearer $operator_token" \
    --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
    --exclude-operation-id streamEvents \
    --max-examples "$max_examples" \
    --workers 1 \
    --request-timeout 30 \
    --seed "${FUZZ_SEED:-1279}" \
    --suppress-health-check all \
    --generation-database none \
    --no-color \
    "$@"
}
# deleteTopic runs last, on its own: fuzzed first, it deletes the seeded topic and leaves every later
# operation answering 404 about it.
set +e
fuzz --max-time "$max_time" --exclude-operation-id deleteTopic \
  --report "junit${FUZZ_HAR:+,har}" --report-junit-path "$out/junit.xml" --report-har-path "$out/requests.har" \
  2>&1 | tee "$out/schemathesis.log"
status=${PIPESTATUS[0]}
if [ "$status" = 0 ] && grep -q "operationId: 'deleteTopic'" lib/api/endpoints.ts; then
  fuzz --max-time 60 --include-operation-id deleteTopic \
    --report junit --report-junit-path "$out/junit-delete-topic.xml" 2>&1 | tee -a "$out/schemathesis.log"
  status=${PIPESTATUS[0]}
fi
set -e

if ! kill -0 "$server_pid" 2>/dev/null; then
  server_status=0
  wait "$server_pid" 2>/dev/null || server_status=$?
  server_pid=
  echo "fuzz: the server died during the run (exit status $server_status); see $out/server.log" >&2
  [ "$status" = 0 ] && status=1
fi
# A 5xx the checks did not see (a stream, a crash in a background task) still leaves its log line.
internal=$(grep -c 'request failed with an unexpected error' "$out/server.log" || true)
if [ "$internal" != 0 ]; then
  echo "fuzz: the server logged $internal unexpected error(s); see $out/server.log" >&2
  [ "$status" = 0 ] && status=1
fi
if [ "$status" = 0 ]; then
  echo "fuzz: $operation_count operations fuzzed, 0 server errors, 0 schema violations"
else
  echo "fuzz: FAILED (schemathesis exit $status); reports in $out/" >&2
fi
exit "$status"
