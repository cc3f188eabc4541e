/** Types of the startup-gate evaluation: inputs are plain counters, outputs plain data. */

/** The startup forms Lineup evaluates; they are mutually exclusive on one JobSet. */
export type StartupForm = 'AnyOrder' | 'InOrder' | 'DependsOn' | 'Rules';

/** What a gate waits for: Ready (ready+succeeded+failed reach replicas) or Complete (succeeded does). */
export type AwaitedStatus = 'Ready' | 'Complete';

/** One rule of the ordered-rules form: all targets must reach status before later rules start. */
export interface StartupRule {
  readonly targetReplicatedJobs: readonly string[];
  readonly status: AwaitedStatus;
}

/** A replicatedJob as the policy sees it: its name, replicas and (dependsOn form) dependencies. */
export interface GatedReplicatedJob {
  readonly name: string;
  readonly replicas: number;
  readonly dependsOn?: readonly { readonly name: string; readonly status: AwaitedStatus }[] | undefined;
}

/** The startup policy of one JobSet, normalised from spec and annotation. */
export interface StartupPolicySpec {
  readonly form: StartupForm;
  readonly replicatedJobs: readonly GatedReplicatedJob[];
  /** Only for form 'Rules'. */
  readonly rules?: readonly StartupRule[] | undefined;
}

/** Progress counters of one replicatedJob as gating sees them. */
export interface ReplicatedJobProgress {
  readonly ready: number;
  readonly succeeded: number;
  readonly failed: number;
}

/** What a closed gate waits on, for the condition message and the timeline. */
export interface Wait {
  readonly replicatedJob: string;
  readonly status: AwaitedStatus;
  readonly have: number;
  readonly need: number;
  /** e.g. "waiting for driver to be Ready: 0/1 jobs ready". */
  readonly message: string;
}

/** The decision for one replicatedJob. */
export type Gate =
  | { readonly replicatedJob: string; readonly released: true }
  | { readonly replicatedJob: string; readonly released: false; readonly waitingOn: Wait };

/** The result of evaluating a startup policy against progress. */
export interface StartupEvaluation {
  readonly form: StartupForm;
  /** One gate per replicatedJob, in spec order. */
  readonly gates: readonly Gate[];
  /** True when every replicatedJob is released and has all replicas started (Ready). */
  readonly complete: boolean;
  /** The first thing startup still waits for (a closed gate's wait, or a released but not-yet-ready replicatedJob). */
  readonly waitingOn?: Wait | undefined;
}
