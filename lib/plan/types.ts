/** The planner's contract: what it observes, and the plain-data actions it returns. */
import type { Job, JobSet, JobSetStatus, PersistentVolumeClaim, Service, SchedulingGate, Toleration } from '../jobset/schema.ts';
import type { JobSetLimits } from '../jobset/size.ts';
import type { Gate, StartupForm } from '../policy/types.ts';
import type { ActionReason } from './reasons.ts';

/** Observed: everything one reconcile pass decides from. */
export interface Observed {
  readonly jobSet: JobSet;
  /** Jobs carrying the jobset-name label in the JobSet's namespace; the planner keeps those it controls (owner uid). */
  readonly jobs: readonly Job[];
  /** The Service named after the JobSet's subdomain, if it exists. */
  readonly service: Service | undefined;
  /** Wall-clock (or virtual) time of the pass, epoch milliseconds. */
  readonly now: number;
}

/** PlanOptions: which JobSets are Lineup's, and how big a JobSet it accepts. */
export interface PlanOptions {
  /** spec.managedBy value that makes a JobSet Lineup's. @default DEFAULT_CONTROLLER_NAME */
  readonly controllerName: string;
  /** Also take JobSets without spec.managedBy (clusters without the upstream controller). @default false */
  readonly claimUnmanaged: boolean;
  /** The most Jobs and Pods one JobSet may make; a bigger one is rejected as invalid. @default DEFAULT_JOBSET_LIMITS */
  readonly limits?: JobSetLimits | undefined;
}

/** Pod-template fields a resume writes into a Job (lib/plan/resume.ts): labels and annotations merged, the scheduling directives the replicatedJob's. */
export interface PodTemplateMerge {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly nodeSelector: Record<string, string>;
  /** nodeSelector keys the Job has and the resume removes (an earlier admission's flavor labels). */
  readonly nodeSelectorRemoved: readonly string[];
  readonly tolerations: readonly Toleration[];
  readonly schedulingGates: readonly SchedulingGate[];
}

/** One write the executor carries out, in list order; it stops at the first failure. */
export type Action =
  /** Create a child Job (spec.suspend already set: true when gated or the JobSet is suspended). */
  | { readonly kind: 'CreateJob'; readonly job: Job; readonly replicatedJob: string }
  /**
   * Un-suspend a Job: when clearStartTime, first write the Job status without startTime; then merge
   * podTemplate (when given) and set spec.suspend=false, conditional on resourceVersion.
   */
  | {
      readonly kind: 'ResumeJob';
      readonly name: string;
      readonly replicatedJob: string;
      readonly resourceVersion: string | undefined;
      readonly clearStartTime: boolean;
      readonly podTemplate: PodTemplateMerge | undefined;
    }
  /** Set spec.suspend=true on a Job, conditional on resourceVersion. */
  | { readonly kind: 'SuspendJob'; readonly name: string; readonly replicatedJob: string; readonly resourceVersion: string | undefined }
  /** Delete a Job (previous restart attempt, or still active when the JobSet finished). */
  | {
      readonly kind: 'DeleteJob';
      readonly name: string;
      readonly uid: string | undefined;
      readonly propagation: 'Foreground' | 'Background';
      readonly reason: string;
    }
  /** Remove one of Lineup's finalizers from a Job. */
  | { readonly kind: 'RemoveJobFinalizer'; readonly name: string; readonly resourceVersion: string | undefined; readonly finalizer: string }
  /** Create the headless Service. */
  | { readonly kind: 'CreateService'; readonly service: Service }
  /** Create a volumeClaimPolicies claim (one that exists already is left as it is, as upstream does). */
  | { readonly kind: 'CreatePersistentVolumeClaim'; readonly claim: PersistentVolumeClaim }
  /** Merge-patch JobSet metadata.annotations (null deletes a key), conditional on resourceVersion. */
  | {
      readonly kind: 'PatchJobSetAnnotations';
      readonly resourceVersion: string | undefined;
      readonly annotations: Readonly<Record<string, string | null>>;
    }
  /** Replace the JobSet status (status subresource), conditional on resourceVersion. */
  | { readonly kind: 'UpdateJobSetStatus'; readonly resourceVersion: string | undefined; readonly status: JobSetStatus }
  /** Record a Kubernetes Event on the JobSet. */
  | { readonly kind: 'EmitEvent'; readonly eventType: 'Normal' | 'Warning'; readonly reason: string; readonly message: string }
  /** Delete the JobSet itself (ttlSecondsAfterFinished expired). */
  | { readonly kind: 'DeleteJobSet'; readonly uid: string | undefined; readonly propagation: 'Foreground' };

export type ActionKind = Action['kind'];

/** Why the planner did nothing, when it did nothing on purpose. */
export type SkipReason = 'NotManaged' | 'Deleting';

/** Plan: the outcome of one pass, plain data. */
export interface Plan {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string | undefined;
  /** Set when the planner deliberately took no action (another controller's JobSet, or being deleted). */
  readonly skipped?: SkipReason | undefined;
  readonly actions: readonly Action[];
  /** Why each action is taken: reasons[i] explains actions[i] (same length, same order). */
  readonly reasons: readonly ActionReason[];
  /** Come back after this many milliseconds even if nothing changes (TTL after finished). */
  readonly requeueAfterMs?: number | undefined;
  /** The startup form and per-replicatedJob gates this pass decided with. */
  readonly startup?: { readonly form: StartupForm; readonly gates: readonly Gate[] } | undefined;
  /** One line saying what this pass did and why, for logs and the journal. */
  readonly reason: string;
}
