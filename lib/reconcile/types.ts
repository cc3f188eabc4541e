/**
 * What the reconciler needs from a cluster: read everything a pass decides from, and carry
 * out one action. The simulated cluster (lib/sim) and the Kubernetes client (lib/k8s)
 * implement it; the reconcile loop does not know which it talks to.
 */
import type { Job, JobSet, Service } from '../jobset/schema.ts';
import type { Action, Observed } from '../plan/types.ts';

/**
 * Written: what a write left in the cluster, as the API server answered it — the object it
 * created or changed, or `Unchanged` for a write of nothing the planner reads (an Event). A
 * gateway that cannot say returns nothing, and the next pass reads everything again.
 */
export type Written =
  | { readonly kind: 'Job'; readonly job: Job }
  | { readonly kind: 'JobSet'; readonly jobSet: JobSet }
  | { readonly kind: 'Service'; readonly service: Service }
  | { readonly kind: 'Unchanged' };

/**
 * ObserveSince: what a pass already knows — the observed state after the previous pass's writes
 * — and which of its objects events said changed since: the JobSet is read again when it changed,
 * the Jobs when one of them did; the rest is taken from `observed`.
 */
export interface ObserveSince {
  readonly observed: Observed;
  readonly jobSetChanged: boolean;
  /** Names of Jobs that changed, appeared or went away. */
  readonly jobs: readonly string[];
}

/**
 * ClusterGateway: one cluster. Errors are Lineup errors (lib/errors.ts): ConflictError on a stale
 * resourceVersion or uid precondition (re-observe and re-plan), AlreadyExistsError on a create of
 * an existing Job name (re-plan), NotFoundError on a write to a missing object, InvalidObjectError
 * on a write the API server refuses as invalid (422), ForbiddenError, UnavailableError after
 * retries. Deleting a missing Job or JobSet, removing a finalizer from a missing Job and creating
 * a Service or volume claim that exists succeed. test/k8s/gatewayBehaviour.ts holds both implementations to this.
 */
export interface ClusterGateway {
  /**
   * observe: the JobSet, its Jobs (label jobset.sigs.k8s.io/jobset-name) and its Service;
   * undefined when the JobSet is gone. With `since`, a gateway may read only what changed since
   * (a gateway whose reads cost nothing may read everything anyway).
   */
  observe(namespace: string, name: string, now: number, since?: ObserveSince): Promise<Observed | undefined>;
  /**
   * apply: carry out one action; what it wrote, when the gateway can say. ResumeJob's
   * resourceVersion guards its first write; a PatchJobSetAnnotations without resourceVersion is
   * unconditional.
   */
  apply(namespace: string, jobSetName: string, action: Action, now: number): Promise<Written | void>;
}

/** ClusterResolver: the gateway of a registered cluster, or undefined when the id is unknown. */
export type ClusterResolver = (clusterId: string) => Promise<ClusterGateway | undefined>;
