/**
 * Kueue (sigs.k8s.io/kueue's manager, the binary of its release image) against the harness's
 * kube-apiserver, so the real-server tier can run JobSets the way most ML clusters do: a JobSet
 * that names a queue (`kueue.x-k8s.io/queue-name`) is suspended by Kueue's webhook at creation,
 * gets a Workload, and is un-suspended when Kueue admits it.
 *
 * The binary comes from k8s-build/build.sh (`kueue`: `go install sigs.k8s.io/kueue/cmd/kueue@
 * KUEUE_VERSION` into the same cache as the control plane's binaries; a cold build takes minutes,
 * a cached one well under a second). Its CRDs and webhook configurations are read from the same
 * module in Go's module cache (`config/components/crd/bases`, `config/components/webhook`), never
 * copied into the repository.
 *
 * How it runs:
 * - the CRDs as the module has them, installed before the manager starts. The release's
 *   kustomization adds a conversion webhook to five of them; here they keep conversion `None`:
 *   Kueue and these tests use only the storage version, v1beta2, so nothing is converted;
 * - a Configuration file (`--config`): the JobSet integration only, leader election off,
 *   `internalCertManagement.enable: false` (no cert-controller), the webhook server on
 *   127.0.0.1:<free port> with a copy of kube-apiserver's self-signed serving pair for 127.0.0.1
 *   (so `kube.caPem` verifies it), health probes and metrics on free loopback ports, and the
 *   test's `waitForPodsReady` when given;
 * - the module's mutating and validating webhook configurations for JobSets and for Kueue's own
 *   objects, each `clientConfig.service` replaced by the loopback URL with its path, registered
 *   once the webhook server is ready — so a JobSet that names a queue is suspended at creation as
 *   on a real cluster. The webhooks for the other frameworks (Pods, Jobs, Deployments, …) are
 *   left out: the integration is off for them;
 * - a kubeconfig for the harness's admin user (system:masters): Kueue's RBAC is not under test;
 * - its metrics certificate where Kueue insists on reading it, in a mount namespace of its own
 *   (METRICS_CERT_MOUNT; `unshare`, as root or in a user namespace).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments, stringify } from 'yaml';
import { KUEUE_QUEUE_LABEL } from '../../../lib/kueue.ts';
import { copyServingPair, writeAdminKubeconfig } from './controllerFiles.ts';
import type { KubeServer } from './kube.ts';
import { LOOPBACK, freePorts } from './ports.ts';
import { createServerDir, removeServerDir, runBuildScript, startServerProcess, type ServerProcess } from './process.ts';
import { isObject, type JsonObject } from '../../../lib/json.ts';

/** BUILD_SCRIPT: finds or builds the control plane's binaries, and Kueue's. */
const BUILD_SCRIPT = fileURLToPath(new URL('../k8s-build/build.sh', import.meta.url));
/** VERSIONS_FILE: KUEUE_VERSION and the others. */
const VERSIONS_FILE = fileURLToPath(new URL('../k8s-build/versions.env', import.meta.url));
/** KUEUE_MODULE: the Go module Kueue is built from and its manifests are read from. */
const KUEUE_MODULE = 'sigs.k8s.io/kueue';
export { KUEUE_PRIORITY_LABEL, KUEUE_QUEUE_LABEL } from '../../../lib/kueue.ts';
/** KUEUE_API: the group and storage version of Kueue's objects. */
export const KUEUE_API = 'kueue.x-k8s.io/v1beta2';
/** WEBHOOK_CONFIGURATION_NAME: the webhook configurations registered (both kinds share it). */
const WEBHOOK_CONFIGURATION_NAME = 'lineup-test-kueue';

/** kueuePinnedVersion: KUEUE_VERSION from k8s-build/versions.env. */
export const kueuePinnedVersion = (): string => {
  const match = /^KUEUE_VERSION=(\S+)$/m.exec(readFileSync(VERSIONS_FILE, 'utf8'));
  if (match?.[1] === undefined) throw new Error(`${VERSIONS_FILE}: no KUEUE_VERSION=... line`);
  return match[1];
};

/** KueueBuild: the manager binary and the module directory its manifests are read from. */
export interface KueueBuild {
  readonly binary: string;
  readonly version: string;
  readonly moduleDir: string;
  /** Wall time of build.sh and the module lookup (a cold build, or well under a second). */
  readonly buildMs: number;
}

let kueueBuild: Promise<KueueBuild> | undefined;

/** ensureKueue: the Kueue binary (built into the cache when missing) and its module directory. Memoized per process. */
export const ensureKueue = (): Promise<KueueBuild> => {
  kueueBuild ??= (async () => {
    const version = kueuePinnedVersion();
    process.stderr.write(`harness: finding Kueue ${version} with ${BUILD_SCRIPT}\n`);
    const started = Date.now();
    const { stdout } = await runBuildScript(BUILD_SCRIPT, ['kueue']);
    const binary = /^KUEUE=(.+)$/m.exec(stdout)?.[1];
    if (binary === undefined || !existsSync(binary)) throw new Error(`${BUILD_SCRIPT} kueue printed no existing KUEUE=<path>; stdout was:\n${stdout}`);
    // The module's source is in Go's module cache after the build; `go mod download` says where.
    const { stdout: downloaded } = await promisify(execFile)('go', ['mod', 'download', '-json', `${KUEUE_MODULE}@${version}`], { cwd: '/', env: { ...process.env, GO111MODULE: 'on' } });
    const moduleDir = (JSON.parse(downloaded) as { Dir?: string }).Dir;
    if (moduleDir === undefined || !existsSync(join(moduleDir, 'config/components/crd/bases'))) {
      throw new Error(`go mod download ${KUEUE_MODULE}@${version} gave no module directory with config/components/crd/bases: ${downloaded}`);
    }
    return { binary, version, moduleDir, buildMs: Date.now() - started };
  })();
  return kueueBuild;
};

/** yamlDocuments: every non-empty document of a YAML file, as JSON objects. */
const yamlDocuments = (path: string): JsonObject[] =>
  parseAllDocuments(readFileSync(path, 'utf8'))
    .map((document) => document.toJS() as unknown)
    .filter(isObject);

/** crdYaml: the module's CRDs as one YAML text, conversion None (see the file comment). */
const crdYaml = (moduleDir: string): string => {
  const dir = join(moduleDir, 'config/components/crd/bases');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) => yamlDocuments(join(dir, file)))
    .map((crd) => JSON.stringify(crd))
    .join('\n---\n');
};

/** touchesServedGroups: whether a webhook's rules name JobSets or Kueue's own objects. */
const touchesServedGroups = (webhook: JsonObject): boolean =>
  Array.isArray(webhook.rules) &&
  webhook.rules.some((rule) => isObject(rule) && Array.isArray(rule.apiGroups) && rule.apiGroups.some((group) => group === 'jobset.x-k8s.io' || group === 'kueue.x-k8s.io'));

/** webhookYaml: the module's webhook configurations for JobSets and Kueue's objects, pointed at `base`. */
const webhookYaml = (moduleDir: string, base: string, caPem: string): string => {
  const caBundle = Buffer.from(caPem).toString('base64');
  return yamlDocuments(join(moduleDir, 'config/components/webhook/manifests.yaml'))
    .filter((document) => document.kind === 'MutatingWebhookConfiguration' || document.kind === 'ValidatingWebhookConfiguration')
    .map((document) => {
      const webhooks = (Array.isArray(document.webhooks) ? document.webhooks.filter(isObject) : []).filter(touchesServedGroups).map((webhook) => {
        const clientConfig = isObject(webhook.clientConfig) ? webhook.clientConfig : {};
        const service = isObject(clientConfig.service) ? clientConfig.service : {};
        const path = typeof service.path === 'string' ? service.path : '';
        if (path === '') throw new Error(`Kueue webhook ${String(webhook.name)} has no service path to serve on loopback`);
        return { ...webhook, clientConfig: { url: `${base}${path}`, caBundle } };
      });
      return JSON.stringify({ apiVersion: document.apiVersion, kind: document.kind, metadata: { name: WEBHOOK_CONFIGURATION_NAME }, webhooks });
    })
    .join('\n---\n');
};

/** unregisterWebhooks: deletes the webhook configurations (a missing one is fine). */
const unregisterWebhooks = async (kube: KubeServer): Promise<void> => {
  for (const kind of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
    await kube.request('DELETE', `/apis/admissionregistration.k8s.io/v1/${kind}/${WEBHOOK_CONFIGURATION_NAME}`).catch(() => undefined);
  }
};

/**
 * METRICS_CERT_MOUNT: the shell run in a mount namespace of its own before Kueue: with
 * internalCertManagement off, Kueue v0.17.0 reads its metrics server's pair from the fixed path
 * /etc/kueue/metrics/certs (cmd/kueue/main.go; the release's manifests mount a Secret there) and
 * exits without it. An overlay on /etc, seen by this process alone, holds a copy of the pair; the
 * machine's /etc is not touched. `sh -c SCRIPT KUEUE OVERLAY CERTDIR ARGS…`.
 */
const METRICS_CERT_MOUNT = [
  'set -e',
  'kueue=$0 overlay=$1 certs=$2',
  'shift 2',
  'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$overlay/upper,workdir=$overlay/work" /etc',
  'mkdir -p /etc/kueue/metrics/certs',
  'cp "$certs/tls.crt" "$certs/tls.key" /etc/kueue/metrics/certs/',
  'exec "$kueue" "$@"',
].join('\n');

/** PROBE_JOBSET: a JobSet naming a queue, created with dryRun=All to see Kueue's webhook answer. */
const PROBE_JOBSET = {
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: 'kueue-webhook-probe', namespace: 'default', labels: { [KUEUE_QUEUE_LABEL]: 'probe' } },
  spec: {
    replicatedJobs: [
      { name: 'probe', replicas: 1, template: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'probe', image: 'probe' }] } } } } },
    ],
  },
};

/** suspendsOnCreate: whether a JobSet naming a queue comes back from a dry-run create suspended. */
const suspendsOnCreate = async (kube: KubeServer): Promise<boolean> => {
  const response = await kube.request('POST', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets?dryRun=All', PROBE_JOBSET);
  if (response.status !== 201 && response.status !== 200) return false;
  const stored = JSON.parse(response.body) as { spec?: { suspend?: boolean } };
  return stored.spec?.suspend === true;
};

/** KueueOptions: how to run Kueue. */
export interface KueueOptions {
  /** Kueue's waitForPodsReady (evict a workload whose pods are not all ready in time). @default off */
  readonly waitForPodsReady?: {
    readonly timeout: string;
    readonly recoveryTimeout?: string;
    readonly blockAdmission?: boolean;
    readonly requeuingStrategy?: { readonly timestamp?: 'Eviction' | 'Creation'; readonly backoffLimitCount?: number; readonly backoffBaseSeconds?: number; readonly backoffMaxSeconds?: number };
  };
  /** featureGates, e.g. `{ MultiKueue: false }`. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** How long the manager may take to become ready. @default 90000 */
  readonly startTimeoutMs?: number;
}

/** KueueManager: a running Kueue manager. */
export interface KueueManager extends AsyncDisposable {
  readonly build: KueueBuild;
  readonly dir: string;
  readonly logPath: string;
  readonly process: ServerProcess;
  /** Milliseconds from spawning until it was ready and its webhooks were registered. */
  readonly startToReadyMs: number;
  /** Stops it (SIGTERM, then SIGKILL), removes its webhook configurations, then its directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startKueue: installs Kueue's CRDs on `kube`, runs its manager against it as the admin user,
 * and registers its webhooks once it is ready. The JobSet CRD must be installed first (Kueue
 * enables its JobSet integration only for a served API). Throws ServerStartError quoting its log
 * if it exits or does not become ready.
 */
export const startKueue = async (kube: KubeServer, options: KueueOptions = {}): Promise<KueueManager> => {
  const build = await ensureKueue();
  const dir = createServerDir('kueue');
  let server: ServerProcess | undefined;
  let registered = false;
  const cleanUp = async (): Promise<void> => {
    if (registered) await unregisterWebhooks(kube);
    await server?.stop();
    await removeServerDir(dir);
  };
  try {
    const [webhookPort, metricsPort, healthPort, visibilityPort] = (await freePorts(4)) as [number, number, number, number];
    await kube.applyYaml(crdYaml(build.moduleDir));

    const certDir = join(dir, 'certs');
    copyServingPair(kube, certDir);

    const configPath = join(dir, 'config.yaml');
    writeFileSync(
      configPath,
      stringify({
        apiVersion: 'config.kueue.x-k8s.io/v1beta2',
        kind: 'Configuration',
        leaderElection: { leaderElect: false },
        internalCertManagement: { enable: false },
        webhook: { host: LOOPBACK, port: webhookPort, certDir },
        metrics: { bindAddress: `${LOOPBACK}:${metricsPort}` },
        health: { healthProbeBindAddress: `${LOOPBACK}:${healthPort}` },
        manageJobsWithoutQueueName: false,
        integrations: { frameworks: ['jobset.x-k8s.io/jobset'] },
        ...(options.waitForPodsReady === undefined ? {} : { waitForPodsReady: { ...options.waitForPodsReady } }),
        // The on-demand visibility API (an aggregated API server, which these tests do not call)
        // reads its pair from the fixed path /visibility and would exit without it.
        featureGates: { VisibilityOnDemand: false, ...options.featureGates },
      }),
    );
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeAdminKubeconfig(kube, kubeconfigPath);
    const env = { ...process.env };
    delete env.KUBECONFIG;
    const started = Date.now();
    const overlay = join(dir, 'etc-overlay');
    mkdirSync(join(overlay, 'upper'), { recursive: true });
    mkdirSync(join(overlay, 'work'));
    server = await startServerProcess({
      name: 'kueue',
      command: 'unshare',
      args: [
        ...(process.getuid?.() === 0 ? [] : ['--user', '--map-root-user']),
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        METRICS_CERT_MOUNT,
        build.binary,
        overlay,
        certDir,
        `--config=${configPath}`,
        `--kubeconfig=${kubeconfigPath}`,
        `--visibility-server-port=${visibilityPort}`,
        '--zap-devel=false',
        '--zap-encoder=json',
        '--zap-time-encoding=rfc3339nano',
      ],
      dir,
      env,
    });
    const manager = server;
    const timeoutMs = options.startTimeoutMs ?? 90_000;
    await manager.waitUntilReady({ url: `http://${LOOPBACK}:${healthPort}/readyz`, timeoutMs });
    await kube.applyYaml(webhookYaml(build.moduleDir, `https://${LOOPBACK}:${webhookPort}`, kube.caPem));
    registered = true;
    // The API server picks webhook configurations up through an informer: wait until a dry-run
    // create of a JobSet that names a queue comes back suspended, as Kueue's webhook makes it.
    const deadline = Date.now() + timeoutMs;
    while (!(await suspendsOnCreate(kube))) {
      if (!manager.running()) throw manager.failure(`exited after it was ready (${build.binary})`);
      if (Date.now() > deadline) throw manager.failure(`its JobSet webhook did not suspend a JobSet naming a queue within ${timeoutMs}ms`);
      await sleep(100);
    }
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= cleanUp());
    return { build, dir, logPath: manager.logPath, process: manager, startToReadyMs: Date.now() - started, stop, [Symbol.asyncDispose]: stop };
  } catch (error) {
    await cleanUp();
    throw error;
  }
};
