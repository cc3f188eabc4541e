#!/usr/bin/env bash
# build.sh: finds or builds the upstream JobSet controller (sigs.k8s.io/jobset, the manager
# binary of its release image) for the side-by-side benchmark.
#
# Builds from the Go module proxy with the wrapper module in jobset/ (go.mod.tmpl, filled in
# from versions.env), into a cache outside the repository keyed by version and platform:
#   ${LINEUP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lineup}/jobset/<version>-<os>-<arch>/jobset-controller
# No upstream source is copied anywhere but Go's own module cache. A cached binary is reused, so
# a second run takes well under a second. GOCACHE and GOMODCACHE stay at Go's defaults, shared
# with test/integration/k8s-build/build.sh (same Kubernetes libraries, compiled once).
#
#   build.sh            uses JOBSET_VERSION from versions.env
#   JOBSET_VERSION=v0.11.1 build.sh    another tag (the committed go.sum is then not used)
#
# Progress goes to stderr; on success stdout gets exactly one line: the binary's absolute path.
# Exit status is non-zero, with the reason and the tail of the Go build log, on failure.
# The go build runs under `nice` (LINEUP_BUILD_NICE, default 10) so that it shares a small
# machine politely with running tests.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pinned_version=$(sed -n 's/^JOBSET_VERSION=//p' "$here/versions.env")
version=${JOBSET_VERSION:-$pinned_version}

script_start=$SECONDS
log() { printf 'upstream/build.sh: [%3ds] %s\n' "$((SECONDS - script_start))" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "JOBSET_VERSION must look like v0.12.0, got '$version'"
command -v go >/dev/null || die "go is not on PATH; sigs.k8s.io/jobset $version needs the Go of its go directive"
command -v flock >/dev/null || die "flock (util-linux) is not on PATH"

goos=$(go env GOOS)
goarch=$(go env GOARCH)
cache_root="${LINEUP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lineup}/jobset"
bin_dir="$cache_root/$version-$goos-$goarch"
bin="$bin_dir/jobset-controller"

mkdir -p "$cache_root"
# Two runs starting at once must not build (or half-install) the same binary twice.
exec 9>"$cache_root/.build.lock"
if ! flock -n 9; then
  log "another build holds $cache_root/.build.lock; waiting"
  flock 9
fi

build() {
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/lineup-jobset-build.XXXXXX")
  # shellcheck disable=SC2064 # expand now: $work is local
  trap "rm -rf '$work'" EXIT
  local mod="$work/jobset"
  mkdir -p "$mod"

  # `go list -m` outside a module fetches only the .mod and .info files, not the source zip.
  local info
  info=$(cd / && GO111MODULE=on go list -m -f '{{.GoMod}}|{{with .Origin}}{{.Hash}}{{end}}' "sigs.k8s.io/jobset@$version") \
    || die "cannot resolve sigs.k8s.io/jobset@$version from the module proxy ($(go env GOPROXY))"
  local release_mod=${info%%|*} commit=${info#*|}
  [[ -s $release_mod ]] || die "go list returned no go.mod for sigs.k8s.io/jobset@$version"
  local go_version
  go_version=$(awk '$1 == "go" { print $2; exit }' "$release_mod")
  [[ -n $go_version ]] || die "no go directive in $release_mod"
  if grep -q '^replace\|^[[:space:]]*replace' "$release_mod"; then
    log "warning: sigs.k8s.io/jobset@$version's go.mod has replace directives, which a wrapper module ignores:"
    grep -n 'replace\|=>' "$release_mod" >&2 || true
  fi

  sed -e "s/@JOBSET_VERSION@/$version/g" -e "s/@GO_VERSION@/$go_version/g" "$here/jobset/go.mod.tmpl" >"$mod/go.mod"
  if [[ $version == "$pinned_version" && -f $here/jobset/go.sum ]]; then
    cp "$here/jobset/go.sum" "$mod/go.sum"
  fi

  # The release image's Makefile stamps these (LD_FLAGS); without them the controller logs
  # gitVersion v0.0.0-main.
  local ldflags="-s -w -X sigs.k8s.io/jobset/pkg/version.GitVersion=$version -X sigs.k8s.io/jobset/pkg/version.GitCommit=${commit:-unknown}"
  local build_log="$work/build.log" started=$SECONDS
  log "go build sigs.k8s.io/jobset@$version (commit ${commit:-unknown}, go $go_version, CGO_ENABLED=0; a first build takes minutes, progress every 30 s)"
  (cd "$mod" && CGO_ENABLED=0 nice -n "${LINEUP_BUILD_NICE:-10}" \
    go build -mod=mod -v -trimpath -gcflags=all=-dwarf=false -ldflags "$ldflags" -o "$bin.tmp" sigs.k8s.io/jobset) >"$build_log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && log "still building, $(grep -c -v '^go: ' "$build_log" || true) packages so far, $((SECONDS - started))s"
  done
  if ! wait "$pid"; then
    tail -n 40 "$build_log" >&2
    rm -f "$bin.tmp"
    die "go build sigs.k8s.io/jobset@$version failed after $((SECONDS - started))s (log tail above)"
  fi
  mkdir -p "$bin_dir"
  mv "$bin.tmp" "$bin"
  if [[ ${LINEUP_JOBSET_RECORD_SUMS:-} == 1 ]]; then
    cp "$mod/go.sum" "$here/jobset/go.sum"
    log "recorded $here/jobset/go.sum"
  fi
  log "built $bin in $((SECONDS - started))s"
}

if [[ -x $bin ]]; then
  log "sigs.k8s.io/jobset $version: cached at $bin"
else
  build
fi

# The controller has no --version flag; --help parses flags and exits without touching a cluster.
"$bin" --help >/dev/null 2>&1 || die "$bin does not run (--help failed); delete $bin_dir and rebuild"

printf '%s\n' "$bin"
