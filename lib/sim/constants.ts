/**
 * The simulated cluster's fixed numbers and the strings it writes into objects. Each default is
 * written once here; docs and `@default` tags name the constant.
 */

/** UntilNeverText: what `--until never` (simulate, demo) means, and what a run it cut off says. */
export const UntilNeverText = {
  /** The `--until` help's addition; `limit` is UNTIL_NEVER_LIMIT_MS formatted. */
  help: (limit: string): string => `never: until nothing more is scheduled (at most ${limit} of virtual time)`,
  stoppedAtLimit: (limit: string): string => `stopped at ${limit}, the limit of --until never, with events still scheduled`,
} as const;

/**
 * SIM_EPOCH_MS: wall-clock time of virtual t=0 (timestamps in simulated objects derive from it)
 * unless the cluster is given another: fixed, so `lineup simulate` prints the same on every run.
 * `lineup demo` starts its clock at the wall clock's now instead (lib/hosts/demo.ts).
 */
export const SIM_EPOCH_MS = Date.UTC(2026, 0, 1, 0, 0, 0);

/** DEFAULT_TIMING: built-in Job behaviour when the behaviour file says nothing. */
export const DEFAULT_TIMING = {
  readyAfter: 1_000,
  succeedAfter: 30_000,
  failAfter: Infinity,
} as const;

/** DEFAULT_FAIL_REASON: Job Failed reason when the behaviour file names none (what a Job that ran out of retries reports). */
export const DEFAULT_FAIL_REASON = 'BackoffLimitExceeded';
/** DEFAULT_FAIL_MESSAGE: the Kubernetes Job controller's message for BackoffLimitExceeded. */
export const DEFAULT_FAIL_MESSAGE = 'Job has reached the specified backoff limit';

/** POD_TERMINATION_MS: how long killed pods take to go away (foreground deletion waits for it). */
export const POD_TERMINATION_MS = 1_000;

/** Job condition reasons and messages the simulated Kubernetes Job controller writes (batch/v1). */
export const JobReason = {
  JobSuspended: 'JobSuspended',
  JobResumed: 'JobResumed',
  // SuccessCriteriaMet and Complete both carry this reason when all completions succeeded.
  CompletionsReached: 'CompletionsReached',
} as const;
/** Messages paired with JobReason. */
export const JobMessage = {
  JobSuspended: 'Job suspended',
  JobResumed: 'Job resumed',
  CompletionsReached: 'Reached expected number of succeeded pods',
} as const;

/** FOREGROUND_FINALIZER: the finalizer the API server adds for foreground cascading deletion. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** Why the simulated cluster deleted a Job, shown as the JobDeleted entry's message. */
export const DeleteReason = {
  TtlAfterFinished: 'ttlSecondsAfterFinished expired',
  BehaviourAction: 'deleted by a behaviour action',
  OwnerDeleted: 'owner JobSet deleted',
} as const;

/** RETRY_BACKOFF_MS: first wait before retrying a failed reconcile pass; doubles each failure. */
export const RETRY_BACKOFF_MS = 1_000;
/** MAX_RETRY_BACKOFF_MS: cap of the doubling retry wait (controller-runtime caps at minutes; 30s keeps runs short). */
export const MAX_RETRY_BACKOFF_MS = 30_000;
/** MAX_PASSES_PER_INSTANT: passes at one virtual instant beyond which the run is declared diverged. */
export const MAX_PASSES_PER_INSTANT = 10_000;

/**
 * UNTIL_NEVER_LIMIT_MS: how far `--until never` runs at most. A run stops on its own when nothing
 * more is scheduled; this bounds the JobSets for which something always is (a failure policy with
 * a huge maxRestarts restarting forever, an action refused on every retry). Seven virtual days:
 * longer than any startup a simulation is for, and at most seven times the work of the 24h
 * default (a JobSet restarting every few seconds takes minutes to simulate that far).
 */
export const UNTIL_NEVER_LIMIT_MS = 7 * 24 * 3_600_000;

/**
 * SIMULATOR_MAX_JOBS: the most child Jobs a JobSet may make for `lineup simulate` and `lineup
 * demo`. The simulated cluster holds every Job in memory and every pass plans over all of them:
 * 20,000 Jobs take about 6 s and 350 MB to simulate, 1,000,000 ran past a minute toward 2 GB
 * without a line of output. Pods cost nothing here (a Job keeps its pods as counts), so only Jobs
 * are bounded.
 */
export const SIMULATOR_MAX_JOBS = 10_000;

/** Defaults of `lineup simulate` flags. */
export const SimulateDefaults = {
  until: '24h',
  latency: '0ms',
  output: 'text',
} as const;
/** Output formats of `lineup simulate`. */
export const SIMULATE_OUTPUTS = ['text', 'json', 'html'] as const;
/** Namespace given to a JobSet that names none. */
export const DEFAULT_NAMESPACE = 'default';
