#!/usr/bin/env bash
# setup.sh: prepares a machine for the real-server test tier (test/integration), so that the
# slow one-time work shows up as its own CI step instead of inside the first test's timeout.
# Run it after `npm ci` (it uses the Node 24 that npm ci installs) and before `npm test`.
# Idempotent: a second run takes about a second.
#
# 1. checks the tools: Go >= 1.26 (builds kube-apiserver 1.36), python3 with venv+ensurepip,
#    flock, openssl; installs Debian's python3-venv with apt-get only if venv is unusable;
# 2. builds kube-apiserver and etcd into ~/.cache/lineup/k8s (k8s-build/build.sh; about 4 min
#    cold on 2 cores, 2.4 GB GOCACHE + 0.8 GB GOMODCACHE), unless KUBEBUILDER_ASSETS is set;
#    then the control plane minus kubelet that runs on it (harness/controlPlane.ts):
#    kube-controller-manager and kube-scheduler from the same wrapper module, and kwok with
#    go install, into the same cache (docs/testing.md gives their cold cost);
#    and Kueue (KUEUE_VERSION, harness/kueue.ts) with go install, into the same cache (about
#    7.5 min cold on 2 cores once the Kubernetes modules are downloaded);
# 3. creates moto's virtualenv in ~/.cache/lineup/moto-<version> (pip; about 35 s cold);
# 4. builds the Lambda Runtime Interface Emulator into ~/.cache/lineup/rie-<version> (its Go module,
#    pinned in infra/rehearsal/emulator.ts; the rehearsal and bench/coldStart.ts run the functions in it);
# 5. installs Debian's chromium with apt-get when no Chromium is on PATH (the drawn timeline's
#    tests load the page in it headless; about a minute cold). $LINEUP_CHROMIUM names another.
# dynalite needs nothing: it is an npm devDependency and runs in the test process.
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

if [[ -n ${KUBEBUILDER_ASSETS:-} ]]; then
  step "kube-apiserver + etcd: using KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
  for binary in kube-apiserver etcd; do
    [[ -x $KUBEBUILDER_ASSETS/$binary ]] || die "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS has no executable $binary"
  done
else
  step "kube-apiserver + etcd: finding or building them (a cold build takes minutes)"
  step_started=$SECONDS
  test/integration/k8s-build/build.sh >/dev/null
  step "kube-apiserver + etcd: ready ($((SECONDS - step_started))s)"
fi

step "kube-controller-manager + kube-scheduler + kwok: finding or building them (a cold build takes minutes)"
step_started=$SECONDS
test/integration/k8s-build/build.sh kube-controller-manager kube-scheduler kwok >/dev/null
step "kube-controller-manager + kube-scheduler + kwok: ready ($((SECONDS - step_started))s)"

step "kueue: finding or building it (a cold build takes minutes)"
step_started=$SECONDS
test/integration/k8s-build/build.sh kueue >/dev/null
step "kueue: ready ($((SECONDS - step_started))s)"

step "moto: finding or creating its virtualenv"
step_started=$SECONDS
"$node" --input-type=module -e "
  const { ensureMotoVenv } = await import('$repo/test/integration/harness/moto.ts');
  process.stderr.write('setup: moto_server at ' + (await ensureMotoVenv()) + '\n');
"
step "moto: ready ($((SECONDS - step_started))s)"

step "aws-lambda-rie: finding or building it (the rehearsal runs the functions in it)"
step_started=$SECONDS
"$node" --input-type=module -e "
  const { ensureRie } = await import('$repo/infra/rehearsal/emulator.ts');
  const rie = ensureRie();
  if (!('binary' in rie)) { process.stderr.write('setup: ' + rie.unavailable + '\\n'); process.exit(1); }
  process.stderr.write('setup: aws-lambda-rie at ' + rie.binary + '\\n');
"
step "aws-lambda-rie: ready ($((SECONDS - step_started))s)"

step "chromium: finding or installing it"
if [[ -n ${LINEUP_CHROMIUM:-} ]]; then
  [[ -x $LINEUP_CHROMIUM ]] || die "LINEUP_CHROMIUM=$LINEUP_CHROMIUM is not an executable"
elif ! command -v chromium >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    step_started=$SECONDS
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
    step "chromium: installed with apt-get ($((SECONDS - step_started))s)"
  else
    die "no chromium on PATH; install Debian's chromium (apt-get install chromium) or set LINEUP_CHROMIUM"
  fi
fi
step "chromium: $("${LINEUP_CHROMIUM:-chromium}" --version 2>/dev/null | head -n 1)"

step "done in $((SECONDS - started))s"
