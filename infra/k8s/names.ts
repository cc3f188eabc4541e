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
 * FORWARDER_NODE_OPTIONS: the forwarder container's NODE_OPTIONS. A young generation of at most
 * 1 MiB per semi-space (V8's default grows it to 16 MiB or more) keeps the short-lived objects
 * of watch events from holding resident memory the process does not need: bench/forwarderFootprint.ts
 * measures the process with it.
 */
export const FORWARDER_NODE_OPTIONS = '--max-semi-space-size=1';

/**
 * FORWARDER_RESOURCES: what the in-cluster forwarder Deployment requests and may use — one
 * process holding two watches. The cost model prices the requests, so both read them here.
 */
export const FORWARDER_RESOURCES = {
  requestCpuMillis: 25,
  requestMemoryMiB: 128,
  limitMemoryMiB: 256,
} as const;
