/**
 * What the reconciler needs from a cluster: read everything a pass decides from, and carry
 * out one action. The simulated cluster (lib/sim) and the Kubernetes client (lib/k8s)
 * implement it; the reconcile loop does not know which it talks to.
 */
import type { Action, Observed } from '../plan/types.ts';

/**
 * ClusterGateway: one cluster. Errors are Lineup errors (lib/errors.ts): ConflictError on a stale
 * resourceVersion or uid precondition (re-observe and re-plan), AlreadyExistsError on a create of
 * an existing Job name (re-plan), NotFoundError on a write to a missing object, InvalidObjectError
 * on a write the API server refuses as invalid (422), ForbiddenError, UnavailableError after
 * retries. Deleting a missing Job or JobSet, removing a finalizer from a missing Job and creating
 * a Service or volume claim that exists succeed. test/k8s/gatewayBehaviour.ts holds both implementations to this.
 */
export interface ClusterGateway {
  /** observe: the JobSet, its Jobs (label jobset.sigs.k8s.io/jobset-name) and its Service; undefined when the JobSet is gone. */
  observe(namespace: string, name: string, now: number): Promise<Observed | undefined>;
  /**
   * apply: carry out one action. ResumeJob's resourceVersion guards its first write; a
   * PatchJobSetAnnotations without resourceVersion is unconditional.
   */
  apply(namespace: string, jobSetName: string, action: Action, now: number): Promise<void>;
}

/** ClusterResolver: the gateway of a registered cluster, or undefined when the id is unknown. */
export type ClusterResolver = (clusterId: string) => Promise<ClusterGateway | undefined>;
