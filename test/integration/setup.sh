#!/usr/bin/env bash
# setup.sh: prepares a machine for the real-server test tier (test/integration): the binaries it
# runs, built once from the Go module proxy and cached in ~/.cache/lineup, moto's virtualenv and
# Chromium. Run it after `npm ci` (it uses the Node 24 that npm ci installs).
#
#   setup.sh               the parts every real-server test needs, here and now; the upstream
#                          JobSet controller and Kueue, which only a few tests need, in the
#                          background (the harness waits for a build in progress when a test
#                          needs one). `npm run test:integration` runs this first.
#   setup.sh --background  everything in the background, and return at once: `npm test` starts
#                          it before the tiers without servers, so the builds use the CPU those
#                          tiers leave idle. Its log: ~/.cache/lineup/setup.log.
#   setup.sh --wait        everything, here and now.
#
# The tools are checked first, in every mode, so a machine without Go fails at once.
# Idempotent: with everything cached a run takes about a second.
#
# 1. checks the tools: Go >= 1.26 (builds kube-apiserver 1.36), python3 with venv+ensurepip,
#    flock, openssl; installs Debian's python3-venv with apt-get only if venv is unusable;
# 2. builds kube-apiserver and etcd into ~/.cache/lineup/k8s (k8s-build/build.sh), unless
#    KUBEBUILDER_ASSETS is set; then the control plane minus kubelet that runs on it
#    (harness/controlPlane.ts): kube-controller-manager and kube-scheduler from the same wrapper
#    module, and kwok, into the same cache;
# 3. creates moto's virtualenv in ~/.cache/lineup/moto-<version> (pip);
# 4. builds the Lambda Runtime Interface Emulator into ~/.cache/lineup/rie-<version> (its Go module,
#    pinned in infra/rehearsal/emulator.ts; the rehearsal and bench/coldStart.ts run the functions in it);
# 5. installs Debian's chromium with apt-get when no Chromium is on PATH (the drawn timeline's
#    tests load the page in it headless). $LINEUP_CHROMIUM names another;
# 6. builds the upstream JobSet controller (bench/upstream/build.sh; the differential run and the
#    side-by-side benchmark) and Kueue (KUEUE_VERSION, harness/kueue.ts) into the same cache.
# docs/testing.md gives each one's cold cost. dynalite needs nothing: it is an npm devDependency
# and runs in the test process.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)
started=$SECONDS

step() { printf 'setup: [%4ds] %s\n' "$((SECONDS - started))" "$*" >&2; }
die() { step "error: $*"; exit 1; }

node="$repo/node_modules/.bin/node"
[[ -x $node ]] || die "$node is missing; run npm ci first (it installs the Node 24 the harness runs on)"

step "checking tools"
command -v go >/dev/null || die "go is not on PATH; kube-apiserver 1.36 needs Go >= 1.26.0"
go_version=$(go env GOVERSION)
[[ $go_version =~ ^go1\.([0-9]+) ]] && ((BASH_REMATCH[1] >= 26)) \
  || die "$go_version is too old; kube-apiserver 1.36 needs Go >= 1.26.0"
command -v flock >/dev/null || die "flock is not on PATH (Debian: apt-get install util-linux)"
command -v openssl >/dev/null || die "openssl is not on PATH (Debian: apt-get install openssl); fleet/registryAttack.test.ts makes its servers' certificates with it"
command -v python3 >/dev/null || die "python3 is not on PATH (Debian: apt-get install python3 python3-venv)"
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    step "python3 cannot create virtualenvs; installing python3-venv with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
  else
    die "python3 cannot create virtualenvs (no ensurepip); install Debian's python3-venv"
  fi
fi
step "tools ok: $go_version, $(python3 --version), node $("$node" --version)"

cache_dir="${LINEUP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lineup}"

# ---- the parts; each finds its cached result in about a second ----

# part LABEL WHAT COMMAND...: runs COMMAND (its stdout dropped: the build scripts print paths there)
# between a "LABEL: WHAT" line and a "LABEL: ready" line with how long it took.
part() {
  local label=$1 what=$2 part_started=$SECONDS
  shift 2
  step "$label: $what"
  "$@" >/dev/null
  step "$label: ready ($((SECONDS - part_started))s)"
}

api_server_parts() {
  if [[ -n ${KUBEBUILDER_ASSETS:-} ]]; then
    step "kube-apiserver + etcd: using KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
    for binary in kube-apiserver etcd; do
      [[ -x $KUBEBUILDER_ASSETS/$binary ]] || die "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS has no executable $binary"
    done
  else
    part "kube-apiserver + etcd" "finding or building them (a cold build takes minutes)" test/integration/k8s-build/build.sh
  fi
}

control_plane_parts() {
  part "kube-controller-manager + kube-scheduler + kwok" "finding or building them (a cold build takes minutes)" \
    test/integration/k8s-build/build.sh kube-controller-manager kube-scheduler kwok
}

moto_part() {
  part moto "finding or creating its virtualenv" "$node" --input-type=module -e "
    const { ensureMotoVenv } = await import('$repo/test/integration/harness/moto.ts');
    process.stderr.write('setup: moto_server at ' + (await ensureMotoVenv()) + '\\n');
  "
}

rie_part() {
  part aws-lambda-rie "finding or building it (the rehearsal runs the functions in it)" "$node" --input-type=module -e "
    const { ensureRie } = await import('$repo/infra/rehearsal/emulator.ts');
    const rie = ensureRie();
    if (!('binary' in rie)) { process.stderr.write('setup: ' + rie.unavailable + '\\n'); process.exit(1); }
    process.stderr.write('setup: aws-lambda-rie at ' + rie.binary + '\\n');
  "
}

chromium_part() {
  step "chromium: finding or installing it"
  # Held while apt-get runs: a second setup (the background one) would fail on dpkg's lock.
  mkdir -p "$cache_dir"
  exec 8>"$cache_dir/.chromium.lock"
  flock 8
  if [[ -n ${LINEUP_CHROMIUM:-} ]]; then
    [[ -x $LINEUP_CHROMIUM ]] || die "LINEUP_CHROMIUM=$LINEUP_CHROMIUM is not an executable"
  elif ! command -v chromium >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
      local installing_started=$SECONDS
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
      step "chromium: installed with apt-get ($((SECONDS - installing_started))s)"
    else
      die "no chromium on PATH; install Debian's chromium (apt-get install chromium) or set LINEUP_CHROMIUM"
    fi
  fi
  exec 8>&-
  step "chromium: $("${LINEUP_CHROMIUM:-chromium}" --version 2>/dev/null | head -n 1)"
}

upstream_jobset_part() {
  part "upstream JobSet controller" "finding or building it (a cold build takes minutes)" bench/upstream/build.sh
}

kueue_part() {
  part kueue "finding or building it (a cold build takes minutes)" test/integration/k8s-build/build.sh kueue
}

# every_test_needs: what every real-server test file may start. only_some_need: what a few do
# (the differential run, the benchmark beside upstream, the Kueue files), so `npm run
# test:integration` can start without them while they build. everything: both, in the order the
# real-server tier's files (node runs them by name) first need them: the differential run, among
# the first, needs the upstream controller; the Kueue files come halfway.
# beside_downloads PART...: the parts in turn, while moto's virtualenv and Chromium, which mostly
# download, go on beside them; a failure of theirs fails the group when they are waited for.
beside_downloads() {
  { moto_part; chromium_part; } &
  local downloads=$! each
  for each in "$@"; do "$each"; done
  wait "$downloads"
}
every_test_needs() { beside_downloads api_server_parts control_plane_parts rie_part; }
only_some_need() { upstream_jobset_part; kueue_part; }
everything() { beside_downloads api_server_parts upstream_jobset_part control_plane_parts rie_part; kueue_part; }

background_log="$cache_dir/setup.log"
background_pid_file="$cache_dir/setup.pid"

# in_background WHAT GROUP: this script runs the group detached, in a session of its own, and logs
# to $background_log; each part's own lock makes a test that needs it wait for it. One background
# setup at a time: a second finds the first still running and leaves it be. Where the kernel
# groups a session's processes for scheduling (autogroup, Linux's default), the builds and the
# tiers share the CPU about evenly and nice orders only the builds among themselves; elsewhere
# nice makes the builds yield to the tiers.
in_background() {
  local what=$1 group=$2 running
  mkdir -p "$cache_dir"
  running=$(cat "$background_pid_file" 2>/dev/null || true)
  if [[ -n $running ]] && kill -0 "$running" 2>/dev/null; then
    step "a background setup is running already (pid $running; log: $background_log)"
    return
  fi
  setsid nohup nice -n 10 bash "$repo/test/integration/setup.sh" --run "$group" >"$background_log" 2>&1 </dev/null &
  echo $! >"$background_pid_file"
  step "$what: finding or building in the background (pid $!; log: $background_log)"
}

case ${1:-} in
  '')
    every_test_needs
    in_background "the upstream JobSet controller and Kueue" only_some_need
    ;;
  --background) in_background "every part" everything ;;
  --wait) everything ;;
  --run)
    [[ ${2:-} == everything || ${2:-} == only_some_need ]] || die "--run: unknown group '${2:-}'"
    "$2"
    ;;
  *) die "unknown option '$1'; expected --background, --wait or nothing (see the header of $0)" ;;
esac

step "done in $((SECONDS - started))s"
