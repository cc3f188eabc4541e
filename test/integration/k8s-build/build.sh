#!/usr/bin/env bash
# build.sh: finds or builds the kube-apiserver and etcd binaries for the real-server test tier.
#
# Builds from the Go module proxy with the wrapper modules beside this script, into a cache
# outside the repository keyed by version and platform:
#   ${LINEUP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lineup}/k8s/kube-apiserver-<ver>-<os>-<arch>/kube-apiserver
#   ${LINEUP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lineup}/k8s/etcd-<ver>-<os>-<arch>/etcd
# A cached binary is reused, so a second run takes well under a second. GOCACHE and GOMODCACHE
# stay at Go's defaults so repeated cold builds share downloads and compiled packages (note that
# Go's default GOCACHE is $XDG_CACHE_HOME/go-build, so changing XDG_CACHE_HOME recompiles all).
#
# Progress goes to stderr; on success stdout gets exactly two lines:
#   KUBE_APISERVER=<absolute path>
#   ETCD=<absolute path>
# Exit status is non-zero, with the reason and the tail of the Go build log, on failure.
#
# kube-apiserver/go.sum and etcd/go.sum pin the checksums of every module the builds use. After
# bumping versions.env (and running gen-gomod.sh), delete them and run
#   LINEUP_K8S_RECORD_SUMS=1 ./build.sh
# (with the cached binaries removed) to record new ones.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"

script_start=$SECONDS
log() { printf 'build.sh: [%3ds] %s\n' "$((SECONDS - script_start))" "$*" >&2; }
die() { log "error: $*"; exit 1; }

command -v go >/dev/null || die "go is not on PATH; the kube-apiserver $KUBE_VERSION build needs Go >= 1.26.0"
command -v flock >/dev/null || die "flock (util-linux) is not on PATH"

goos=$(go env GOOS)
goarch=$(go env GOARCH)
cache_root="${LINEUP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lineup}/k8s"
kube_dir="$cache_root/kube-apiserver-$KUBE_VERSION-$goos-$goarch"
etcd_dir="$cache_root/etcd-$ETCD_VERSION-$goos-$goarch"
kube_bin="$kube_dir/kube-apiserver"
etcd_bin="$etcd_dir/etcd"

mkdir -p "$cache_root"
# Two test runs starting at once must not build (or half-install) the same binary twice.
exec 9>"$cache_root/.build.lock"
if ! flock -n 9; then
  log "another build holds $cache_root/.build.lock; waiting"
  flock 9
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/lineup-k8s-build.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run_go_build LABEL DIR OUT PKG LDFLAGS: builds PKG in module DIR to OUT (installed atomically),
# printing a progress line every 30 s with the number of packages compiled so far.
run_go_build() {
  local label=$1 dir=$2 out=$3 pkg=$4 ldflags=$5
  local build_log="$work/$label.log" started=$SECONDS
  log "$label: go build $pkg (CGO_ENABLED=0; first build takes minutes, progress every 30 s)"
  (cd "$dir" && CGO_ENABLED=0 go build -mod=mod -v -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg") >"$build_log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && log "$label: still building, $(grep -c -v '^go: ' "$build_log" || true) packages so far, $((SECONDS - started))s"
  done
  if ! wait "$pid"; then
    tail -n 40 "$build_log" >&2
    die "$label: go build $pkg failed after $((SECONDS - started))s (log tail above)"
  fi
  mkdir -p "$(dirname "$out")"
  mv "$out.tmp" "$out"
  if [[ ${LINEUP_K8S_RECORD_SUMS:-} == 1 ]]; then
    cp "$dir/go.sum" "$here/$label/go.sum"
    log "$label: recorded $here/$label/go.sum"
  fi
  log "$label: built $out in $((SECONDS - started))s"
}

build_kube_apiserver() {
  local mod="$work/kube-apiserver"
  mkdir -p "$mod"
  "$here/gen-gomod.sh" "$KUBE_VERSION" "$mod" || die "kube-apiserver: cannot generate the wrapper go.mod (reason above)"
  if ! cmp -s "$mod/go.mod" "$here/kube-apiserver/go.mod"; then
    log "warning: committed kube-apiserver/go.mod differs from the generated one; run gen-gomod.sh and commit the result"
  fi
  [[ -f $here/kube-apiserver/go.sum ]] && cp "$here/kube-apiserver/go.sum" "$mod/go.sum"
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  local build_date
  build_date=$(cd "$mod" && go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' "k8s.io/kubernetes") \
    || die "kube-apiserver: cannot resolve k8s.io/kubernetes@$KUBE_VERSION from $(go env GOPROXY)"
  # hack/lib/version.sh stamps these; without them /version reports v0.0.0.
  local ldflags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
  done
  run_go_build kube-apiserver "$mod" "$kube_bin" k8s.io/kubernetes/cmd/kube-apiserver "$ldflags"
}

build_etcd() {
  local mod="$work/etcd"
  mkdir -p "$mod"
  cp "$here/etcd/go.mod" "$mod/go.mod"
  [[ -f $here/etcd/go.sum ]] && cp "$here/etcd/go.sum" "$mod/go.sum"
  grep -q "go.etcd.io/etcd/server/v3 $ETCD_VERSION\$" "$mod/go.mod" \
    || die "etcd/go.mod does not require go.etcd.io/etcd/server/v3 $ETCD_VERSION (versions.env); update one of them"
  run_go_build etcd "$mod" "$etcd_bin" go.etcd.io/etcd/server/v3 "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$ETCD_VERSION"
}

if [[ -x $kube_bin ]]; then
  log "kube-apiserver $KUBE_VERSION: cached at $kube_bin"
else
  build_kube_apiserver
fi
if [[ -x $etcd_bin ]]; then
  log "etcd $ETCD_VERSION: cached at $etcd_bin"
else
  build_etcd
fi

# Captured, not piped into head: with pipefail, head closing early can fail the pipeline.
kube_version=$("$kube_bin" --version) || die "$kube_bin does not run; delete $kube_dir and rebuild"
etcd_version=$("$etcd_bin" --version) || die "$etcd_bin does not run; delete $etcd_dir and rebuild"
log "$kube_version, ${etcd_version%%$'\n'*}"

printf 'KUBE_APISERVER=%s\nETCD=%s\n' "$kube_bin" "$etcd_bin"
