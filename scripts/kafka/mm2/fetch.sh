#!/usr/bin/env bash
# Copies Apache Kafka's MirrorMaker 2 (connect-mirror and its runtime, scripts/kafka/mm2/pom.xml) into
# <repo>/.kafka/mm2-lib, for the Kafka benchmark only. Idempotent like scripts/kafka/fetch.sh: nothing to do when
# the marker jar is there; the copy lands in a temp dir renamed only once Maven succeeded.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
kafka_dir="$repo/.kafka"
lib="$kafka_dir/mm2-lib"
marker="connect-mirror-4.1.2.jar"

if [[ -f "$lib/$marker" ]]; then
  exit 0
fi

mkdir -p "$kafka_dir"
tmp="$(mktemp -d "$kafka_dir/mm2-lib.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

if ! mvn_output="$(mvn -B -q -Dstyle.color=never -f "$here/pom.xml" \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$tmp" 2>&1)"; then
  echo "$mvn_output" >&2
  echo "mm2/fetch.sh: Maven could not copy the MirrorMaker 2 jars (is Maven Central reachable?)" >&2
  exit 1
fi

if [[ ! -f "$tmp/$marker" ]]; then
  echo "mm2/fetch.sh: Maven finished but $marker is missing from the copied jars" >&2
  exit 1
fi

rm -rf "$lib"
mv "$tmp" "$lib"
trap - EXIT
echo "mm2/fetch.sh: $(ls "$lib" | wc -l) jars in $lib"
