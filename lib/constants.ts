/**
 * What the stack (infra/) and the code it deploys must agree on, each read on both sides: the
 * stack's default name, the metrics namespace, the reconcile queue's redrive count. Every other
 * constant lives beside the module that uses it, or in a module named for its concept; upstream's
 * API strings are in lib/jobset/api.ts.
 */

/** DEFAULT_STACK_NAME: the CloudFormation stack name `infra/app.ts` synthesizes (`lineup replay --archive` finds the rule by it). */
export const DEFAULT_STACK_NAME = 'Lineup';

/**
 * Receives of a reconcile queue record before its redrive policy moves it to the dead-letter
 * queue (a pass that fails 5 times is not a blip). On the last one, a record whose pass failed
 * with the failure recorded on the JobSet's state item is handed to the resync instead
 * (lib/reconcile/sqsBatch.ts).
 */
export const RECONCILE_MAX_RECEIVE_COUNT = 5;

/** CloudWatch namespace of the functions' metrics (Powertools Metrics), read by the dashboard and alarms. */
export const METRICS_NAMESPACE = 'Lineup';
