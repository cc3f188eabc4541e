#!/usr/bin/env bash
# gen-gomod.sh: writes the kube-apiserver wrapper module's go.mod from go.mod.tmpl.
#
#   gen-gomod.sh [KUBE_VERSION [OUT_DIR]]     (defaults: versions.env, ./kube-apiserver)
#
# The replace list is generated from the release's own go.mod, fetched from the Go module
# proxy: every `k8s.io/<m> v0.0.0` requirement (the staging modules) is replaced by the
# published k8s.io/<m> v0.<minor>.<patch>. Pseudo-versions such as kube-openapi's
# v0.0.0-2026… are real published versions and are left alone.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
kube_version=${1:-$KUBE_VERSION}
out_dir=${2:-$here/kube-apiserver}

log() { printf 'gen-gomod.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

command -v go >/dev/null || die "go is not on PATH (need Go >= the release's go directive)"
[[ $kube_version =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "KUBE_VERSION must look like v1.36.3, got '$kube_version'"
staging_version="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

# `go list -m` outside a module fetches only the .mod file, not the release's source zip.
release_mod=$(cd / && GO111MODULE=on go list -m -f '{{.GoMod}}' "k8s.io/kubernetes@$kube_version") \
  || die "cannot fetch go.mod of k8s.io/kubernetes@$kube_version from the module proxy ($(go env GOPROXY))"
[[ -s $release_mod ]] || die "go list returned no go.mod for k8s.io/kubernetes@$kube_version"

go_version=$(awk '$1 == "go" { print $2; exit }' "$release_mod")
[[ -n $go_version ]] || die "no go directive in $release_mod"

# Requirement lines look like `\tk8s.io/api v0.0.0` (block) or `require k8s.io/api v0.0.0`.
staging=$(awk '
  $1 == "require" { $1 = ""; $0 = substr($0, 2) }
  $1 ~ /^k8s\.io\// && $2 == "v0.0.0" && $3 != "=>" { print $1 }
' "$release_mod" | sort -u)
[[ -n $staging ]] || die "found no k8s.io/... v0.0.0 requirements in $release_mod"
count=$(wc -l <<<"$staging")

replaces=$(while read -r module; do printf '\t%s => %s %s\n' "$module" "$module" "$staging_version"; done <<<"$staging")

mkdir -p "$out_dir"
tmpl="$here/kube-apiserver/go.mod.tmpl"
awk -v kube="$kube_version" -v staging_version="$staging_version" -v gover="$go_version" -v replaces="$replaces" '
  { gsub(/@KUBE_VERSION@/, kube); gsub(/@STAGING_VERSION@/, staging_version); gsub(/@GO_VERSION@/, gover) }
  /^@STAGING_REPLACES@$/ { print replaces; next }
  { print }
' "$tmpl" >"$out_dir/go.mod.new"
mv "$out_dir/go.mod.new" "$out_dir/go.mod"
log "wrote $out_dir/go.mod: k8s.io/kubernetes $kube_version, go $go_version, $count staging modules => $staging_version"
