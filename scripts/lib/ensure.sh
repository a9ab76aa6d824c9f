# Sourced by scripts/test.sh and scripts/demo.sh: installs what the project needs on a fresh machine.
# Each step is a no-op when its result is already there.

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_node_modules() {
  # npm ci when node_modules is missing or older than the lock file (a pull that changed dependencies).
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "==> installing npm packages"
    npm ci --no-audit --no-fund
  fi
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    echo "==> installing Debian's chromium"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
  fi
}

ensure_kafka_jars() {
  bash scripts/kafka/fetch.sh
}
