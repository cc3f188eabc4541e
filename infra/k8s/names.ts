/**
 * The Kubernetes names Lineup's manifests and its CDK stack share: the EKS access entries map
 * IAM roles to the groups below, the ClusterRoleBindings bind those groups, and the Pod
 * Identity association names the forwarder's namespace and ServiceAccount. Renaming any of
 * them is a breaking change for deployed clusters.
 */

/** KubeName: object names in the cluster. */
export const KubeName = {
  /** Namespace of the in-cluster forwarder. */
  namespace: 'lineup',
  /** ServiceAccount (and Deployment) of the in-cluster forwarder. */
  forwarder: 'lineup-forwarder',
  /** ClusterRole and ClusterRoleBinding of the reconciler. */
  reconcilerRole: 'lineup-reconciler',
  /** ClusterRole and ClusterRoleBinding of the forwarder (in-cluster or Lambda). */
  forwarderRole: 'lineup-forwarder',
  /** ValidatingAdmissionPolicy and its binding. */
  admissionPolicy: 'lineup-startup-policy',
} as const;

/**
 * FORWARDER_IMAGE_ENTRY: where the forwarder image (infra/forwarder.Dockerfile) puts the bundle of
 * infra/k8s/forwarderBundle.ts, the one file the Deployment's `node` runs.
 */
export const FORWARDER_IMAGE_ENTRY = '/app/lineup-forward.mjs';

/**
 * KubeGroup: the Kubernetes groups the EKS access entries put Lineup's roles in. Names under
 * `system:` are reserved by EKS; access entries carry no access policy, so these groups get
 * exactly what infra/manifests/clusterrolebinding.yaml grants.
 */
export const KubeGroup = {
  /** The reconciler function's role. */
  reconciler: 'lineup:reconciler',
  /** The Lambda forwarder's role (the in-cluster forwarder is bound by its ServiceAccount). */
  forwarder: 'lineup:forwarder',
} as const;

/**
 * FORWARDER_FOOTPRINT: the in-cluster forwarder as measured by `node bench/forwarderFootprint.ts`
 * (also run by `npm run bench`): the Deployment's bundle (infra/k8s/forwarderBundle.ts) as its own
 * process with FORWARDER_NODE_ARGS and FORWARDER_NODE_OPTIONS, watching 1,000 JobSets of 10 Jobs
 * each on kube-apiserver 1.36, RSS (VmRSS, VmHWM) and CPU (utime + stime) from /proc; idle for
 * 60 s, then 60 s of `churnRate` Job changes a second; on the shared 2-core machine, 2026-12-02,
 * with the list and watch over node:https (no client-node) and PutEvents and bookmarks signed by
 * lib/aws (no SDK clients). Before those two: 105 MiB idle, 120 MiB at most; the TypeScript sources
 * with the former options (old space 256 MiB, lists held whole): 217 MiB idle. The issue's
 * targets, 64 MiB and 10m idle, are met for CPU only: the same process watching 10 JobSets of one
 * Job holds 65 MiB (Node 24 alone 43 MiB), and 11,000 objects' digests add about 17 MiB.
 */
export const FORWARDER_FOOTPRINT = {
  idleRssMiB: 82,
  idleCpuMillicores: 3,
  churnRate: 50,
  churnRssMiB: 87,
  churnCpuMillicores: 184,
  peakRssMiB: 94,
} as const;

/**
 * FORWARDER_HEAP_MIB: V8's old-space cap. The forwarder's heap in use peaked at 31 MiB listing
 * 11,000 objects (process.memoryUsage during the bench: the list is taken page by page), so the
 * cap leaves it twice that; a cluster with many more objects needs it raised in proportion.
 */
const FORWARDER_HEAP_MIB = 64;

/** FORWARDER_NON_HEAP_MIB: what the process holds outside V8's heap (Node itself, code, TLS, buffers): about 62 MiB measured (peak RSS minus heap in use), with a margin. */
const FORWARDER_NON_HEAP_MIB = 80;

/** roundUpTo: `value` rounded up to a multiple of `step`. */
const roundUpTo = (value: number, step: number): number => Math.ceil(value / step) * step;

/**
 * FORWARDER_RESOURCES: what the in-cluster forwarder Deployment requests and may use, from
 * FORWARDER_FOOTPRINT: memory requested is the measured peak (the start's list included) rounded
 * up to 16 Mi; CPU requested is the 10m (idle it uses a few millicores; a burst of changes
 * uses what the node has spare); the memory limit is the heap cap plus FORWARDER_NON_HEAP_MIB.
 * The cost model prices the requests, so both read them here.
 */
export const FORWARDER_RESOURCES = {
  requestCpuMillis: Math.max(10, roundUpTo(FORWARDER_FOOTPRINT.idleCpuMillicores, 5)),
  requestMemoryMiB: roundUpTo(FORWARDER_FOOTPRINT.peakRssMiB, 16),
  limitMemoryMiB: FORWARDER_HEAP_MIB + FORWARDER_NON_HEAP_MIB,
} as const;

/**
 * FORWARDER_NODE_ARGS: V8 flags on the container's `node` command line, before the bundle (flags
 * NODE_OPTIONS does not accept). `--lite-mode` (V8 without its optimizing compilers, bytecode
 * flushed when unused) cut the idle RSS from 134 to 105 MiB in the bench, for 110-123m under churn
 * against 91-106m without it (runs on the loaded machine vary that much) and 3m idle against 1m.
 */
export const FORWARDER_NODE_ARGS: readonly string[] = ['--lite-mode'];

/**
 * FORWARDER_NODE_OPTIONS: the forwarder container's NODE_OPTIONS. V8's old space is capped
 * (FORWARDER_HEAP_MIB) below the memory limit, so it collects before the kernel would kill the pod
 * (without a cap V8 sizes its heap from the machine's memory, not the container's); a young
 * generation of at most 1 MiB per semi-space keeps the short-lived objects of list pages and watch
 * events from holding resident memory. bench/forwarderFootprint.ts runs the process with exactly these.
 */
export const FORWARDER_NODE_OPTIONS = `--max-semi-space-size=1 --max-old-space-size=${FORWARDER_HEAP_MIB}`;
