#!/usr/bin/env bash
# Copies the Kafka broker's runtime jars (scripts/kafka/pom.xml) into <repo>/.kafka/lib.
# Idempotent: does nothing when the marker jar is already there. The copy goes to a temp dir that is
# renamed only once Maven succeeded, so an interrupted fetch never looks complete.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
kafka_dir="$repo/.kafka"
lib="$kafka_dir/lib"
kafka_version="4.1.2"
marker="kafka_2.13-${kafka_version}.jar"

if [[ -f "$lib/$marker" ]]; then
  exit 0
fi

mkdir -p "$kafka_dir"
tmp="$(mktemp -d "$kafka_dir/lib.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# Maven's output (even with -q) is noise on success and the diagnosis on failure.
if ! mvn_output="$(mvn -B -q -Dstyle.color=never -f "$here/pom.xml" \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$tmp" 2>&1)"; then
  echo "$mvn_output" >&2
  echo "fetch.sh: Maven could not copy the Kafka jars (is Maven Central reachable?)" >&2
  exit 1
fi

if [[ ! -f "$tmp/$marker" ]]; then
  echo "fetch.sh: Maven finished but $marker is missing from the copied jars" >&2
  exit 1
fi

rm -rf "$lib"
mv "$tmp" "$lib"
trap - EXIT
echo "fetch.sh: $(ls "$lib" | wc -l) jars in $lib"
