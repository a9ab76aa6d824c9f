# Sourced by scripts/demo.sh: whether the production build (.next/ and dist/) was made from the sources as they
# are now. The stamp is a hash of the commit, the uncommitted changes and the untracked files git does not
# ignore, taken before a build and written once it succeeded (an edit made during the build makes the next run
# build again); outside a git checkout there is no stamp and every run builds.

build_stamp_file=.next/mirrorboard-build-stamp
build_fingerprint=""

source_fingerprint() {
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 1
  {
    git rev-parse HEAD
    git diff HEAD --binary
    git ls-files -z --others --exclude-standard | xargs -0 -r sha1sum
  } | sha1sum | cut -d' ' -f1
}

build_is_current() {
  build_fingerprint="$(source_fingerprint)" || { build_fingerprint=""; return 1; }
  [ -f .next/BUILD_ID ] && [ -f dist/main.js ] && [ -f dist/sandbox/server/drills/sandbox-child.js ] && [ -f "$build_stamp_file" ] && [ "$(cat "$build_stamp_file")" = "$build_fingerprint" ]
}

save_build_stamp() {
  if [ -n "$build_fingerprint" ]; then echo "$build_fingerprint" > "$build_stamp_file"; fi
}
