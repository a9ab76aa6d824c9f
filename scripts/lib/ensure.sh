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

ensure_kafka_jars() {
  bash scripts/kafka/fetch.sh
  # The test brokers' SSL listener gets its CA and certificates from the openssl CLI (scripts/kafka/tls-material.ts).
  if ! command -v openssl >/dev/null; then
    echo "==> installing Debian's openssl"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq openssl >/dev/null
  fi
}
