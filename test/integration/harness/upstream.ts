/**
 * The upstream JobSet controller (sigs.k8s.io/jobset's manager, the binary of its release image)
 * against the harness's kube-apiserver, for the side-by-side benchmark and its tests.
 *
 * The binary comes from bench/upstream/build.sh, which builds the pinned release from the Go
 * module proxy into a cache outside the repository (a cold build takes a minute or more, a
 * cached one well under a second). `LINEUP_UPSTREAM_JOBSET_BIN` points at a binary instead.
 *
 * How it runs (the controller has no flag to turn its webhooks off):
 * - a Configuration file (`--config`) with `internalCertManagement.enable: false` (no
 *   cert-controller, so it neither writes a Secret nor patches webhook configurations and the
 *   controllers start at once), `leaderElection.leaderElect: false`, the webhook server on
 *   127.0.0.1:<free port>, metrics (HTTPS, authenticated) and health probes on free loopback ports;
 * - controller-runtime still starts the webhook server, and the metrics server serves HTTPS; both
 *   read `tls.crt`/`tls.key` from a cert directory, filled with a copy of the self-signed pair
 *   kube-apiserver generated for 127.0.0.1 in its own --cert-dir (so `kube.caPem` verifies it);
 * - by default no webhook configuration is registered with the API server: the webhooks are off,
 *   so a JobSet must carry the fields the mutating webhook would default (startupPolicy,
 *   successPolicy, completionMode Indexed, restartPolicy, network). `webhooks: {namespaces}`
 *   registers the JobSet mutating and validating webhooks for those namespaces only, so Lineup's
 *   JobSets elsewhere on the same server are untouched;
 * - a kubeconfig (`--kubeconfig`) for the harness's admin user (system:masters), so RBAC is not
 *   what is measured; its requests carry the user agent `jobset/<version> (...)`.
 *
 * It reconciles only JobSets whose spec.managedBy is unset or `jobset.sigs.k8s.io/jobset-controller`,
 * so it and Lineup (`lineup.dev/controller`) can run against one API server on different JobSets.
 *
 * `auditedApiServerArgs` gives kube-apiserver flags that log every write, so a test or benchmark
 * can count the writes each controller makes (by user agent) per JobSet startup.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { copyServingPair, writeAdminKubeconfig } from './controllerFiles.ts';
import type { KubeServer } from './kube.ts';
import { LOOPBACK, freePorts } from './ports.ts';
import { createServerDir, httpRequest, removeServerDir, runBuildScript, startServerProcess, type ServerProcess } from './process.ts';
import { isObject } from '../../../lib/json.ts';

/** UPSTREAM_BUILD_SCRIPT: finds or builds the upstream controller; see its header. */
export const UPSTREAM_BUILD_SCRIPT = fileURLToPath(new URL('../../../bench/upstream/build.sh', import.meta.url));
/** UPSTREAM_VERSIONS_FILE: the pinned sigs.k8s.io/jobset version. */
const UPSTREAM_VERSIONS_FILE = fileURLToPath(new URL('../../../bench/upstream/versions.env', import.meta.url));
/** UPSTREAM_BIN_ENV: set to a built controller binary to skip build.sh. */
export const UPSTREAM_BIN_ENV = 'LINEUP_UPSTREAM_JOBSET_BIN';
/** UPSTREAM_CONTROLLER_NAME: upstream's own spec.managedBy value (JobSets it reconciles may also leave it unset). */
export const UPSTREAM_CONTROLLER_NAME = 'jobset.sigs.k8s.io/jobset-controller';
/** UPSTREAM_USER_AGENT_PREFIX: how the upstream controller's API requests introduce themselves. */
export const UPSTREAM_USER_AGENT_PREFIX = 'jobset/';

/** upstreamPinnedVersion: JOBSET_VERSION from bench/upstream/versions.env. */
export const upstreamPinnedVersion = (): string => {
  const match = /^JOBSET_VERSION=(\S+)$/m.exec(readFileSync(UPSTREAM_VERSIONS_FILE, 'utf8'));
  if (match?.[1] === undefined) throw new Error(`${UPSTREAM_VERSIONS_FILE}: no JOBSET_VERSION=... line`);
  return match[1];
};

/** UpstreamBinary: the controller binary, where it came from, and how long finding it took. */
export interface UpstreamBinary {
  readonly path: string;
  readonly from: 'build.sh' | typeof UPSTREAM_BIN_ENV;
  readonly version: string;
  /** Wall time of build.sh (a cold build, or well under a second for a cached binary). */
  readonly buildMs: number;
}

/** runUpstreamBuild: runs build.sh (progress on stderr); resolves with the binary path it prints. */
const runUpstreamBuild = async (): Promise<UpstreamBinary> => {
  const { stdout, ms } = await runBuildScript(UPSTREAM_BUILD_SCRIPT);
  const path = stdout.trim().split('\n').at(-1) ?? '';
  if (path === '' || !existsSync(path)) throw new Error(`${UPSTREAM_BUILD_SCRIPT} printed no existing binary path; stdout was:\n${stdout}`);
  return { path, from: 'build.sh', version: upstreamPinnedVersion(), buildMs: ms };
};

let upstreamBinary: Promise<UpstreamBinary> | undefined;

/**
 * ensureUpstreamBinary: the upstream controller binary, from $LINEUP_UPSTREAM_JOBSET_BIN or found
 * in or built into the cache by bench/upstream/build.sh. Memoized per process.
 */
export const ensureUpstreamBinary = (): Promise<UpstreamBinary> => {
  upstreamBinary ??= (async () => {
    const fromEnv = process.env[UPSTREAM_BIN_ENV];
    if (fromEnv !== undefined && fromEnv !== '') {
      if (!existsSync(fromEnv)) throw new Error(`${UPSTREAM_BIN_ENV}=${fromEnv}: no such file`);
      return { path: fromEnv, from: UPSTREAM_BIN_ENV, version: 'unknown', buildMs: 0 };
    }
    process.stderr.write(`harness: finding the upstream JobSet controller with ${UPSTREAM_BUILD_SCRIPT}\n`);
    return runUpstreamBuild();
  })();
  return upstreamBinary;
};

// ---------------------------------------------------------------------------------------------
// Auditing the API server's writes.

/** AUDITED_VERBS: the verbs counted as API writes. */
export const AUDITED_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'] as const;

/** AuditedWrite: one request the API server answered, from its audit log (writes unless said otherwise). */
export interface AuditedWrite {
  /** Milliseconds since the epoch (fractional: the log has microseconds), when the response was complete. */
  readonly at: number;
  /** Milliseconds since the epoch (fractional), when the API server received the request. */
  readonly receivedAt: number;
  readonly verb: string;
  readonly resource: string;
  readonly subresource: string | undefined;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly userAgent: string;
  readonly username: string;
  readonly code: number;
}

/** preciseMs: an RFC 3339 timestamp with up to nanoseconds as fractional epoch milliseconds (Date.parse keeps only ms). */
const preciseMs = (value: unknown): number => {
  const text = String(value);
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  if (match === null) return Date.parse(text);
  const fraction = match[2] ?? '';
  return Date.parse(`${match[1] ?? ''}${match[3] ?? ''}`) + (fraction === '' ? 0 : Number(`0.${fraction}`) * 1000);
};

/** ApiServerAudit: flags for kube-apiserver and readers of the requests it logged. */
export interface ApiServerAudit {
  /** Pass as `startKubeApiServer({ extraApiServerArgs })`. */
  readonly args: readonly string[];
  readonly logPath: string;
  /** Every request logged so far, oldest first: a watch once when its response starts, anything else once when it completes. */
  requests(): AuditedWrite[];
  /** The writes among them (AUDITED_VERBS). */
  writes(): AuditedWrite[];
  /** Removes the directory holding the policy and the log. */
  remove(): Promise<void>;
}

/**
 * auditedApiServerArgs: an audit policy that logs every request at Metadata level, once each, to a
 * file read by `requests()` and `writes()`. The log backend is blocking, so a request is in the
 * file before its response is sent.
 *
 * @example
 * const audit = auditedApiServerArgs();
 * const kube = await startKubeApiServer({ extraApiServerArgs: audit.args });
 * const upstreamWrites = audit.writes().filter((w) => w.userAgent.startsWith(UPSTREAM_USER_AGENT_PREFIX));
 */
export const auditedApiServerArgs = (): ApiServerAudit => {
  const dir = createServerDir('audit');
  const policyPath = join(dir, 'audit-policy.yaml');
  const logPath = join(dir, 'audit.log');
  writeFileSync(
    policyPath,
    stringify({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['RequestReceived', 'Panic'],
      rules: [
        { level: 'Metadata', verbs: ['watch'], omitStages: ['ResponseComplete'] },
        { level: 'Metadata', omitStages: ['ResponseStarted'] },
      ],
    }),
  );
  const requests = (): AuditedWrite[] => {
    if (!existsSync(logPath)) return [];
    return readFileSync(logPath, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line): AuditedWrite[] => {
        let event: Record<string, unknown>;
        try {
          event = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return []; // a line being written right now
        }
        const ref = (isObject(event.objectRef) ? event.objectRef : {}) as Record<string, string | undefined>;
        const user = isObject(event.user) ? event.user : {};
        const status = isObject(event.responseStatus) ? event.responseStatus : {};
        return [
          {
            at: preciseMs(event.stageTimestamp),
            receivedAt: preciseMs(event.requestReceivedTimestamp),
            verb: String(event.verb),
            // Non-resource requests (discovery, /version) have no objectRef: named by their path.
            resource: ref.resource ?? String(event.requestURI ?? ''),
            subresource: ref.subresource,
            namespace: ref.namespace,
            name: ref.name,
            userAgent: String(event.userAgent ?? ''),
            username: String(user.username ?? ''),
            code: Number(status.code ?? 0),
          },
        ];
      });
  };
  const writes = (): AuditedWrite[] => requests().filter((request) => (AUDITED_VERBS as readonly string[]).includes(request.verb));
  return {
    args: [`--audit-policy-file=${policyPath}`, `--audit-log-path=${logPath}`, '--audit-log-mode=blocking', '--audit-log-format=json'],
    logPath,
    requests,
    writes,
    remove: () => removeServerDir(dir),
  };
};

/** describeWrites: "12 writes: 5 create jobs, 4 update jobsets/status, 3 create events" (most frequent first). */
export const describeWrites = (writes: readonly AuditedWrite[]): string => {
  const counts = new Map<string, number>();
  for (const write of writes) {
    const key = `${write.verb} ${write.resource}${write.subresource === undefined ? '' : `/${write.subresource}`}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const parts = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([key, n]) => `${n} ${key}`);
  return `${writes.length} write${writes.length === 1 ? '' : 's'}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
};

// ---------------------------------------------------------------------------------------------
// The controller.

/** UpstreamControllerOptions: how to run the upstream controller. */
export interface UpstreamControllerOptions {
  /**
   * Register upstream's JobSet mutating and validating webhooks with the API server, for JobSets
   * in these namespaces only (namespaceSelector on kubernetes.io/metadata.name). Default: no
   * webhook configuration is registered, the webhooks are off. The API server picks a new
   * registration up through an informer, typically well within a second of start returning.
   */
  readonly webhooks?: { readonly namespaces: readonly string[] };
  /** --zap-log-level: 'info' (default), 'debug', or a number for more verbose levels. */
  readonly logLevel?: string;
  /** featureGates of the Configuration, e.g. `{ InPlaceRestart: true }`. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** How long the controller may take to start its JobSet controller. @default 60000 */
  readonly startTimeoutMs?: number;
}

/** UpstreamController: a running upstream JobSet controller. */
export interface UpstreamController extends AsyncDisposable {
  readonly binary: UpstreamBinary;
  /** Its stdout and stderr (zap JSON lines); removed by stop() unless LINEUP_KEEP_SERVER_DIRS=1. */
  readonly logPath: string;
  /** Its directory: config.yaml, kubeconfig, certs/, the log. */
  readonly dir: string;
  /** The user agent prefix of its API requests (`jobset/`). */
  readonly userAgentPrefix: string;
  /** https://127.0.0.1:<port>/metrics (authenticated: send the admin token, verify with kube.caPem). */
  readonly metricsUrl: string;
  /** http://127.0.0.1:<port> (/healthz, /readyz). */
  readonly healthUrl: string;
  /** Milliseconds from spawning until its JobSet controller started its workers. */
  readonly startToReadyMs: number;
  /** The controller's Prometheus metrics text. */
  metrics(): Promise<string>;
  /** The process, for `failure()` messages that quote its log. */
  readonly process: ServerProcess;
  /** Stops it (SIGTERM, then SIGKILL), removes its webhook configurations, then its directory. Idempotent. */
  stop(): Promise<void>;
}

/** WEBHOOK_CONFIGURATION_NAME: the webhook configurations `webhooks` registers (both kinds share it). */
const WEBHOOK_CONFIGURATION_NAME = 'lineup-test-upstream-jobset';

/** logHasStartedWorkers: true once the JobSet controller's "Starting workers" line is in the log. */
const logHasStartedWorkers = (logPath: string): boolean => {
  if (!existsSync(logPath)) return false;
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .some((line) => {
      if (!line.includes('Starting workers')) return false;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        return entry.msg === 'Starting workers' && entry.controllerKind === 'JobSet';
      } catch {
        return false;
      }
    });
};

/** registerWebhooks: upstream's JobSet webhooks (paths as its kubebuilder markers), for `namespaces` only, pointing at `base`. */
const registerWebhooks = async (kube: KubeServer, base: string, namespaces: readonly string[]): Promise<void> => {
  const caBundle = Buffer.from(kube.caPem).toString('base64');
  const common = {
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    sideEffects: 'None',
    namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...namespaces] }] },
  };
  const rule = (operations: string[]) => [{ apiGroups: ['jobset.x-k8s.io'], apiVersions: ['v1alpha2'], operations, resources: ['jobsets'] }];
  const mutating = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: WEBHOOK_CONFIGURATION_NAME },
    webhooks: [
      { ...common, name: 'mjobset.kb.io', rules: rule(['CREATE']), clientConfig: { url: `${base}/mutate-jobset-x-k8s-io-v1alpha2-jobset`, caBundle } },
    ],
  };
  const validating = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: WEBHOOK_CONFIGURATION_NAME },
    webhooks: [
      {
        ...common,
        name: 'vjobset.kb.io',
        rules: rule(['CREATE', 'UPDATE']),
        clientConfig: { url: `${base}/validate-jobset-x-k8s-io-v1alpha2-jobset`, caBundle },
      },
    ],
  };
  await kube.applyYaml(`${JSON.stringify(mutating)}\n---\n${JSON.stringify(validating)}\n`);
};

/** unregisterWebhooks: deletes what registerWebhooks created (a missing one is fine). */
const unregisterWebhooks = async (kube: KubeServer): Promise<void> => {
  for (const kind of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
    await kube.request('DELETE', `/apis/admissionregistration.k8s.io/v1/${kind}/${WEBHOOK_CONFIGURATION_NAME}`).catch(() => undefined);
  }
};

/**
 * startUpstreamController: builds (or finds) the pinned upstream JobSet controller and runs it
 * against `kube` as the admin user, resolving once its JobSet controller has started its workers
 * and its /readyz passes. Throws ServerStartError quoting its log if it exits or does not start.
 * Stop it with `stop()` in an `after` hook, or `await using`.
 *
 * Command line: `<bin> --config=<dir>/config.yaml --kubeconfig=<dir>/kubeconfig --leader-elect=false
 * --metrics-bind-address=127.0.0.1:<p> --health-probe-bind-address=127.0.0.1:<p>
 * --zap-devel=false --zap-encoder=json --zap-time-encoding=rfc3339nano --zap-log-level=info`.
 *
 * @example
 * const kube = await startKubeApiServer();
 * const upstream = await startUpstreamController(kube);
 * after(async () => { await upstream.stop(); await kube.stop(); });
 */
export const startUpstreamController = async (kube: KubeServer, options: UpstreamControllerOptions = {}): Promise<UpstreamController> => {
  const binary = await ensureUpstreamBinary();
  const dir = createServerDir('jobset');
  let server: ServerProcess | undefined;
  const cleanUp = async (): Promise<void> => {
    await server?.stop();
    if (options.webhooks !== undefined) await unregisterWebhooks(kube);
    await removeServerDir(dir);
  };
  try {
    const [webhookPort, metricsPort, healthPort] = (await freePorts(3)) as [number, number, number];

    // kube-apiserver's self-signed serving pair for 127.0.0.1 (written into its --cert-dir at
    // start), so kube.caPem verifies the webhook and metrics servers too.
    const certDir = join(dir, 'certs');
    copyServingPair(kube, certDir);

    const configPath = join(dir, 'config.yaml');
    writeFileSync(
      configPath,
      stringify({
        apiVersion: 'config.jobset.x-k8s.io/v1alpha1',
        kind: 'Configuration',
        leaderElection: { leaderElect: false },
        internalCertManagement: { enable: false },
        webhook: { host: LOOPBACK, port: webhookPort, certDir },
        metrics: { bindAddress: `${LOOPBACK}:${metricsPort}`, certDir },
        health: { healthProbeBindAddress: `${LOOPBACK}:${healthPort}` },
        ...(options.featureGates === undefined ? {} : { featureGates: { ...options.featureGates } }),
      }),
    );

    const kubeconfigPath = join(dir, 'kubeconfig');
    writeAdminKubeconfig(kube, kubeconfigPath);

    const healthUrl = `http://${LOOPBACK}:${healthPort}`;
    const metricsUrl = `https://${LOOPBACK}:${metricsPort}/metrics`;
    const env = { ...process.env };
    delete env.KUBECONFIG;
    const started = Date.now();
    server = await startServerProcess({
      name: 'jobset-controller',
      command: binary.path,
      args: [
        `--config=${configPath}`,
        `--kubeconfig=${kubeconfigPath}`,
        '--leader-elect=false',
        `--metrics-bind-address=${LOOPBACK}:${metricsPort}`,
        `--health-probe-bind-address=${LOOPBACK}:${healthPort}`,
        '--zap-devel=false',
        '--zap-encoder=json',
        '--zap-time-encoding=rfc3339nano',
        `--zap-log-level=${options.logLevel ?? 'info'}`,
      ],
      dir,
      env,
    });
    const controller = server;

    const timeoutMs = options.startTimeoutMs ?? 60_000;
    const deadline = started + timeoutMs;
    while (!logHasStartedWorkers(controller.logPath)) {
      if (!controller.running()) throw controller.failure(`exited before its JobSet controller started (${binary.path})`);
      if (Date.now() > deadline) throw controller.failure(`its JobSet controller did not start its workers within ${timeoutMs}ms`);
      await sleep(50);
    }
    const startToReadyMs = Date.now() - started;
    // /readyz passes once the webhook server is listening with its certificate.
    await controller.waitUntilReady({ url: `${healthUrl}/readyz`, timeoutMs: Math.max(5_000, deadline - Date.now()) });
    if (options.webhooks !== undefined) await registerWebhooks(kube, `https://${LOOPBACK}:${webhookPort}`, options.webhooks.namespaces);

    const metrics = async (): Promise<string> => {
      const response = await httpRequest(metricsUrl, { ca: kube.caPem, headers: { authorization: `Bearer ${kube.adminToken}` } });
      if (response.status !== 200) throw controller.failure(`GET ${metricsUrl} answered HTTP ${response.status}: ${response.body.slice(0, 500)}`);
      return response.body;
    };

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= cleanUp());
    return {
      binary,
      logPath: controller.logPath,
      dir,
      userAgentPrefix: UPSTREAM_USER_AGENT_PREFIX,
      metricsUrl,
      healthUrl,
      startToReadyMs,
      metrics,
      process: controller,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
};
