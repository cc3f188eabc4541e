/**
 * A real Kubernetes control plane minus the kubelet, on a running test API server
 * (`startKubeApiServer`): kube-controller-manager running only the controllers Lineup interacts
 * with (the Job controller, the TTL-after-finished controller, the garbage collector, and the
 * volume binder and claim protection for Pods that mount claims; CONTROLLERS),
 * kube-scheduler, and kwok managing one fake node, so that a Job's Pods are created by the real
 * Job controller, bound by the real scheduler, and made Running, Ready, then Succeeded or Failed
 * by kwok's Stages (kwokStages.yaml) after delays each Pod's annotations choose (PodAnnotation).
 *
 * All three authenticate with the admin token (group system:masters) through one kubeconfig, so
 * neither service-account tokens nor RBAC bootstrapping are needed; leader election is off. The
 * binaries come from k8s-build/build.sh (kube-controller-manager and kube-scheduler from the same
 * wrapper module and Kubernetes version as kube-apiserver, kwok from the Go module proxy), cached
 * beside kube-apiserver.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts, LOOPBACK } from './ports.ts';
import { runBuildScript, startServerProcess, type HttpResponse, type ServerProcess } from './process.ts';
import type { KubeServer } from './kube.ts';
import { isObject } from '../../../lib/json.ts';

/** BUILD_SCRIPT: finds or builds the binaries; see its header. */
const BUILD_SCRIPT = fileURLToPath(new URL('../k8s-build/build.sh', import.meta.url));
/** KWOK_STAGES_FILE: the fake node's and its Pods' lifecycle (kwok --config). */
export const KWOK_STAGES_FILE = fileURLToPath(new URL('./kwokStages.yaml', import.meta.url));

/**
 * PodAnnotation: the annotations on a Pod (set them on a Job's pod template) that steer kwok's
 * Stages. Durations are Go durations ('1500ms', '2s'); see kwokStages.yaml for the defaults.
 */
export const PodAnnotation = {
  /** From being scheduled to Running and Ready. Default 200ms. */
  ReadyAfter: 'lineup.test/ready-after',
  /** From Running to Succeeded or Failed. Default 1s. */
  FinishAfter: 'lineup.test/finish-after',
  /** How the Pod ends: 'Succeeded' (the default), 'Failed' (exit code 1), or 'Running' (never ends by itself). */
  Outcome: 'lineup.test/outcome',
  /** 'true' keeps the Pod Pending until the annotation changes (see `setPodBehaviour`). */
  Hold: 'lineup.test/hold',
} as const;

/** PodOutcome: the values of PodAnnotation.Outcome. */
export type PodOutcome = 'Succeeded' | 'Failed' | 'Running';

/** PodBehaviour: how a Pod on the kwok node behaves; each field left out takes kwok's default. */
export interface PodBehaviour {
  /** Stay Pending (true) until released (false). */
  readonly held?: boolean;
  readonly readyAfterMs?: number;
  readonly finishAfterMs?: number;
  readonly outcome?: PodOutcome;
}

/**
 * podAnnotations: the annotations that give a Pod `behaviour`, for a pod template's metadata.
 *
 * @example
 * template: { metadata: { annotations: podAnnotations({ readyAfterMs: 500, outcome: 'Failed' }) }, spec }
 */
export const podAnnotations = (behaviour: PodBehaviour): Record<string, string> => ({
  ...(behaviour.held === undefined ? {} : { [PodAnnotation.Hold]: String(behaviour.held) }),
  ...(behaviour.readyAfterMs === undefined ? {} : { [PodAnnotation.ReadyAfter]: `${behaviour.readyAfterMs}ms` }),
  ...(behaviour.finishAfterMs === undefined ? {} : { [PodAnnotation.FinishAfter]: `${behaviour.finishAfterMs}ms` }),
  ...(behaviour.outcome === undefined ? {} : { [PodAnnotation.Outcome]: behaviour.outcome }),
});

/**
 * setPodBehaviour: changes a running Pod's behaviour (merge-patches its annotations), e.g. to
 * release a held Pod or to let a Pod that would run for ever succeed now; kwok re-evaluates the
 * Pod's Stages on the change. Throws when the patch is refused (a Pod already gone: 404).
 *
 * @example
 * await setPodBehaviour(kube, 'default', 'job-abc12', { held: false, outcome: 'Succeeded', finishAfterMs: 0 });
 */
export const setPodBehaviour = async (kube: KubeServer, namespace: string, pod: string, behaviour: PodBehaviour): Promise<void> => {
  const response = await kube.request(
    'PATCH',
    `/api/v1/namespaces/${namespace}/pods/${pod}`,
    { metadata: { annotations: podAnnotations(behaviour) } },
    { contentType: 'application/merge-patch+json' },
  );
  if (response.status !== 200) throw new Error(`setting the behaviour of pod ${namespace}/${pod} answered HTTP ${response.status}: ${response.body.slice(0, 500)}`);
};

/**
 * CONTROLLERS: kube-controller-manager's controllers that run (--controllers); every other one is
 * off. The volume binder binds a claim to a volume a test provides (the scheduler places no Pod
 * mounting an unbound claim); the claim-protection controller lifts the kubernetes.io/pvc-protection
 * finalizer of a deleted claim once no Pod mounts it (a JobSet owning a claim is deleted only then).
 */
export const CONTROLLERS = [
  'job-controller',
  'ttl-after-finished-controller',
  'garbage-collector-controller',
  'persistentvolume-binder-controller',
  'persistentvolumeclaim-protection-controller',
] as const;

/** KWOK_NODE_ANNOTATION: kwok manages the nodes carrying it (--manage-nodes-with-annotation-selector). */
const KWOK_NODE_ANNOTATION = { key: 'kwok.x-k8s.io/node', value: 'fake' } as const;

/** READY_TIMEOUT_MS: how long each component may take to become ready on a loaded 2-core machine. */
const READY_TIMEOUT_MS = 90_000;

// ---------------------------------------------------------------------------------------------
// Binaries.

/** ControlPlaneBinaries: where kube-controller-manager, kube-scheduler and kwok are. */
export interface ControlPlaneBinaries {
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kwok: string;
}

let binaries: Promise<ControlPlaneBinaries> | undefined;

/**
 * ensureControlPlaneBinaries: kube-controller-manager, kube-scheduler and kwok, found in or built
 * into the cache by k8s-build/build.sh (progress on stderr; cold builds take minutes each, a
 * cached one well under a second). Memoized per process.
 */
export const ensureControlPlaneBinaries = (): Promise<ControlPlaneBinaries> => {
  binaries ??= (async () => {
    process.stderr.write(`harness: finding kube-controller-manager, kube-scheduler and kwok with ${BUILD_SCRIPT}\n`);
    const { stdout } = await runBuildScript(BUILD_SCRIPT, ['kube-controller-manager', 'kube-scheduler', 'kwok']);
    const path = (key: string): string => {
      const match = new RegExp(`^${key}=(.+)$`, 'm').exec(stdout);
      if (match?.[1] === undefined) throw new Error(`${BUILD_SCRIPT} printed no ${key}=... line; stdout was:\n${stdout}`);
      return match[1];
    };
    return { kubeControllerManager: path('KUBE_CONTROLLER_MANAGER'), kubeScheduler: path('KUBE_SCHEDULER'), kwok: path('KWOK') };
  })();
  return binaries;
};

// ---------------------------------------------------------------------------------------------
// The control plane.

/** ControlPlane: the running controllers, scheduler and kwok on one test API server. */
export interface ControlPlane extends AsyncDisposable {
  /** The fake node every Pod is scheduled onto. */
  readonly nodeName: string;
  readonly controllerManager: ServerProcess;
  readonly scheduler: ServerProcess;
  readonly kwok: ServerProcess;
  /** Milliseconds from spawning kube-controller-manager until the node was Ready and all three were healthy. */
  readonly startToReadyMs: number;
  /** Stops kwok, kube-scheduler and kube-controller-manager (not the API server). Idempotent. */
  stop(): Promise<void>;
}

/** ControlPlaneOptions: how to start it. */
export interface ControlPlaneOptions {
  /** The fake node's name. @default 'kwok-node-0' */
  readonly nodeName?: string;
}

/** nodeIsReady: true when a GET of the node answered with its Ready condition True. */
const nodeIsReady = (response: HttpResponse): boolean => {
  if (response.status !== 200) return false;
  try {
    const node: unknown = JSON.parse(response.body);
    const conditions = isObject(node) && isObject(node.status) ? node.status.conditions : undefined;
    return Array.isArray(conditions) && conditions.some((c: unknown) => isObject(c) && c.type === 'Ready' && c.status === 'True');
  } catch {
    return false;
  }
};

/** writeAdminKubeconfig: a kubeconfig file for the admin user, trusting the server's CA. */
const writeAdminKubeconfig = (kube: KubeServer, path: string): void => {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'lineup-test', cluster: { server: kube.url, 'certificate-authority-data': Buffer.from(kube.caPem).toString('base64') } }],
    users: [{ name: 'admin', user: { token: kube.adminToken } }],
    contexts: [{ name: 'admin', context: { cluster: 'lineup-test', user: 'admin' } }],
    'current-context': 'admin',
  };
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
};

/**
 * startControlPlane: kube-controller-manager, kube-scheduler and kwok against `kube`, each
 * logging to `<kube.dir>/<name>.log`, plus one fake node kwok manages; resolves once the node is
 * Ready and both kube components answer /healthz. Stop it before the API server (`stop()` in an
 * `after` hook, or `await using`); if the test process dies first, the harness's exit hooks kill
 * the processes.
 *
 * @example
 * const kube = await startKubeApiServer();
 * const controlPlane = await startControlPlane(kube);
 * after(async () => { await controlPlane.stop(); await kube.stop(); });
 */
export const startControlPlane = async (kube: KubeServer, options: ControlPlaneOptions = {}): Promise<ControlPlane> => {
  const bins = await ensureControlPlaneBinaries();
  const nodeName = options.nodeName ?? 'kwok-node-0';
  const dir = join(kube.dir, 'control-plane');
  mkdirSync(dir, { recursive: true });
  const kubeconfig = join(dir, 'admin.kubeconfig');
  writeAdminKubeconfig(kube, kubeconfig);
  const processes: ServerProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const server of processes.reverse()) await server.stop();
    processes.length = 0;
  };

  try {
    const started = Date.now();
    const [controllerManagerPort, schedulerPort] = (await freePorts(2)) as [number, number];
    // Both serve /healthz anonymously (their default always-allowed paths) over a self-signed
    // certificate; delegated authentication and authorization use the admin kubeconfig.
    const servingArgs = (port: number, certDir: string): string[] => [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--leader-elect=false',
      `--bind-address=${LOOPBACK}`,
      `--secure-port=${port}`,
      `--cert-dir=${certDir}`,
    ];
    const controllerManager = await startServerProcess({
      name: 'kube-controller-manager',
      command: bins.kubeControllerManager,
      args: [...servingArgs(controllerManagerPort, join(dir, 'kube-controller-manager-certs')), `--controllers=${CONTROLLERS.join(',')}`],
      dir,
    });
    processes.push(controllerManager);
    const scheduler = await startServerProcess({
      name: 'kube-scheduler',
      command: bins.kubeScheduler,
      args: servingArgs(schedulerPort, join(dir, 'kube-scheduler-certs')),
      dir,
    });
    processes.push(scheduler);

    const node = await kube.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: nodeName,
        annotations: { [KWOK_NODE_ANNOTATION.key]: KWOK_NODE_ANNOTATION.value },
        labels: { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': 'linux', type: 'kwok' },
      },
    });
    if (node.status !== 201) throw new Error(`creating node ${nodeName} answered HTTP ${node.status}: ${node.body.slice(0, 500)}`);

    // kwok reads ~/.kwok/kwok.yaml when it exists: HOME points at the test directory so only
    // the given stages apply.
    const kwok = await startServerProcess({
      name: 'kwok',
      command: bins.kwok,
      args: [
        `--kubeconfig=${kubeconfig}`,
        `--config=${KWOK_STAGES_FILE}`,
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION.key}=${KWOK_NODE_ANNOTATION.value}`,
        `--node-ip=${LOOPBACK}`,
      ],
      dir,
      env: { ...process.env, HOME: dir },
    });
    processes.push(kwok);

    const healthz = (port: number): { url: string; insecure: true; timeoutMs: number } => ({
      url: `https://${LOOPBACK}:${port}/healthz`,
      insecure: true,
      timeoutMs: READY_TIMEOUT_MS,
    });
    await Promise.all([
      controllerManager.waitUntilReady(healthz(controllerManagerPort)),
      scheduler.waitUntilReady(healthz(schedulerPort)),
      kwok.waitUntilReady({
        url: `${kube.url}/api/v1/nodes/${nodeName}`,
        ca: kube.caPem,
        headers: { authorization: `Bearer ${kube.adminToken}` },
        isReady: nodeIsReady,
        timeoutMs: READY_TIMEOUT_MS,
      }),
    ]);
    // The API server's TaintNodesByCondition admission taints every new node
    // node.kubernetes.io/not-ready:NoSchedule; the node-lifecycle controller lifts it once the node
    // is Ready. That controller does not run (it would also evict the Pods of a node whose kubelet
    // sends no heartbeats), so the harness lifts the taint itself, once.
    const untainted = await kube.request('PATCH', `/api/v1/nodes/${nodeName}`, { spec: { taints: null } }, { contentType: 'application/merge-patch+json' });
    if (untainted.status !== 200) throw new Error(`removing the not-ready taint of node ${nodeName} answered HTTP ${untainted.status}: ${untainted.body.slice(0, 500)}`);
    const startToReadyMs = Date.now() - started;

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= stopAll());
    return { nodeName, controllerManager, scheduler, kwok, startToReadyMs, stop, [Symbol.asyncDispose]: stop };
  } catch (error) {
    await stopAll();
    throw error;
  }
};
