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
 * FORWARDER_RESOURCES: what the in-cluster forwarder Deployment requests and may use — one
 * process holding two watches. The cost model prices the requests, so both read them here.
 */
export const FORWARDER_RESOURCES = {
  requestCpuMillis: 25,
  requestMemoryMiB: 128,
  limitMemoryMiB: 256,
} as const;
