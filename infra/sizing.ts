/**
 * How big Lineup's functions are and how often the schedules start them — one home for the
 * figures the stack deploys and the cost model prices (infra/cost/costModel.ts), so the cost
 * model follows the stack. Plain numbers: importing this does not load aws-cdk-lib.
 */
import { WATCH_SESSION_MAX_MS } from '../lib/forwarder/forwarder.ts';
import { DEFAULT_LEASE_TTL_MS } from '../lib/reconcile/reconcileJobSet.ts';

/** FunctionSize: memory and timeout of one function. */
export interface FunctionSize {
  readonly memoryMb: number;
  readonly timeoutMs: number;
}

/** FunctionSizing: every function's size. */
export const FunctionSizing = {
  /**
   * The reconciler: a pass plans in memory and talks TLS to clusters, so 512 MB (and the CPU that
   * comes with it). Timeout: one lease TTL (DEFAULT_LEASE_TTL_MS); an invocation the runtime
   * kills leaves at most one TTL of lease behind, which the resync then picks up.
   */
  reconciler: { memoryMb: 512, timeoutMs: DEFAULT_LEASE_TTL_MS },
  /** The resync only queries the table and puts events; 5 minutes leave room for a full resync of a large fleet. */
  resync: { memoryMb: 256, timeoutMs: 5 * 60 * 1000 },
  /** The Lambda watch session: two watches and a small batch; Lambda's maximum timeout, of which it watches WATCH_SESSION_MAX_MS. */
  forwarder: { memoryMb: 256, timeoutMs: 15 * 60 * 1000 },
} as const satisfies Record<string, FunctionSize>;

/** FORWARDER_SESSION_RATE_MS: one watch session per WATCH_SESSION_MAX_MS, so the next starts as the last one stops watching. */
export const FORWARDER_SESSION_RATE_MS = WATCH_SESSION_MAX_MS;

/** RECONCILER_BATCH_SIZE: records per reconciler invocation; events of one JobSet in a batch collapse into one lease loop. */
export const RECONCILER_BATCH_SIZE = 10;
