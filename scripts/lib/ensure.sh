# Sourced by scripts/test.sh and scripts/demo.sh: installs what the project needs on a fresh machine.
# Each step is a no-op when its result is already there.

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_node_modules() {
  # npm ci when node_modules is missing or older than the lock file (a pull that changed dependencies).
  # `ensure_node_modules --production` (the demo) is content with what `npm start` needs and installs only
  # that where nothing is installed yet: 173 of the 694 packages (no Playwright, ESLint, Vitest, Stryker).
  # Without it (the tests) the dev dependencies must be there too; a full install is never cut down.
  # npm's cache answers what it holds without asking the registry first (--prefer-offline).
  local production=0
  [ "${1:-}" = --production ] && production=1
  local full=0
  [ -d node_modules/vitest ] && full=1
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] || { [ "$production" = 0 ] && [ "$full" = 0 ]; }; then
    if [ "$production" = 1 ] && [ "$full" = 0 ]; then
      echo "==> installing npm packages (production: what the demo runs)"
      npm ci --omit=dev --prefer-offline --no-audit --no-fund
    else
      echo "==> installing npm packages"
      npm ci --prefer-offline --no-audit --no-fund
    fi
  fi
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    echo "==> installing Debian's chromium"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
  fi
}

ensure_prometheus() {
  # promtool and amtool check the shipped rules and Alertmanager example; the live alerting test runs Prometheus
  # and Alertmanager on loopback (deploy/, e2e/demo/api-prometheus.spec.ts).
  if ! command -v promtool >/dev/null || ! command -v prometheus-alertmanager >/dev/null; then
    echo "==> installing Debian's prometheus and prometheus-alertmanager"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends prometheus prometheus-alertmanager >/dev/null
  fi
}

ensure_zsh() {
  # The command line's zsh completion is tested in a real zsh (cli/completion.test.ts).
  if ! command -v zsh >/dev/null; then
    echo "==> installing Debian's zsh"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends zsh >/dev/null
  fi
}

# The Debian packages the tests use, missing ones installed by one `apt-get update` and one `apt-get install` (each
# of the functions above runs its own update: on a fresh machine that was four index downloads).
ensure_debian_packages_for_tests() {
  local missing=()
  command -v promtool >/dev/null || missing+=(prometheus)
  command -v prometheus-alertmanager >/dev/null || missing+=(prometheus-alertmanager)
  command -v zsh >/dev/null || missing+=(zsh)
  command -v openssl >/dev/null || missing+=(openssl)
  local chromium=1
  [ -x /usr/bin/chromium ] && chromium=0
  if [ "$chromium" = 1 ] || [ "${#missing[@]}" -gt 0 ]; then
    echo "==> installing Debian's ${missing[*]}$([ "$chromium" = 1 ] && echo " chromium")"
    as_root apt-get update -qq
    # Chromium with its recommended packages (the fonts the screenshots are drawn with), the tools without.
    if [ "$chromium" = 1 ]; then DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null; fi
    if [ "${#missing[@]}" -gt 0 ]; then DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; fi
  fi
}

# What `npm test` needs, the three sources side by side: they wait on three different servers (the npm registry,
# Debian's mirror, Maven Central) and each on its own network and disk. A failure of either background one is
# reported with its output and fails the run.
ensure_everything_for_tests() {
  local logs
  logs="$(mktemp -d)"
  ensure_debian_packages_for_tests > "$logs/debian.log" 2>&1 &
  local debian_pid=$!
  bash scripts/kafka/fetch.sh > "$logs/kafka.log" 2>&1 &
  local kafka_jars_pid=$!
  local npm_status=0 debian_status=0 kafka_jars_status=0
  ensure_node_modules || npm_status=$?
  wait "$debian_pid" || debian_status=$?
  wait "$kafka_jars_pid" || kafka_jars_status=$?
  cat "$logs/debian.log" "$logs/kafka.log"
  rm -rf "$logs"
  if [ "$npm_status" != 0 ] || [ "$debian_status" != 0 ] || [ "$kafka_jars_status" != 0 ]; then
    echo "installing: npm exit $npm_status, Debian packages exit $debian_status, Kafka jars exit $kafka_jars_status" >&2
    return 1
  fi
}

ensure_kafka_jars() {
  bash scripts/kafka/fetch.sh
  # The test brokers' SSL listener gets its CA and certificates from the openssl CLI (scripts/kafka/tls-material.ts).
  if ! command -v openssl >/dev/null; then
    echo "==> installing Debian's openssl"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq openssl >/dev/null
  fi
}
