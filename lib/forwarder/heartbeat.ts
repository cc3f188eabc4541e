/**
 * The forwarder's heartbeat is its watch checkpoint: the resync and `lineup clusters status` judge
 * a cluster watched while its forwarder's newest bookmark is younger than the missing time
 * (lib/fleet/status.ts checkpointHeartbeat). A busy forwarder checkpoints anyway; a quiet one
 * rewrites its checkpoint (the same resourceVersion, a new time) once no checkpoint was written
 * for an interval. So a heartbeat is one DynamoDB write under the forwarder's own key, at most one
 * per interval and none while the watch checkpoints by itself — no event crosses the bus, no
 * reconciler runs, no metric is published per cluster. A failed write is logged by the checkpoint
 * writer and tried again after `retryMs`: a missing heartbeat is exactly what the alarm is for.
 */
import type { Sleep } from '../retry.ts';

/**
 * HEARTBEAT_INTERVAL_MS: the longest a running forwarder goes without writing a checkpoint. Two
 * minutes: with the five-minute missing time (HEARTBEAT_MISSING_MS) one lost write does not make a
 * cluster unwatched, and 50 quiet clusters cost 1.1 million writes a month, not 2.2 (infra/cost/costModel.ts).
 */
export const HEARTBEAT_INTERVAL_MS = 120_000;

/** HeartbeatLoop: when the newest checkpoint was written, how to write one, and the clock. */
export interface HeartbeatLoop {
  readonly intervalMs: number;
  /** Epoch ms of the newest checkpoint write of any watched kind (the run's start before the first). */
  readonly lastWriteAt: () => number;
  /** Rewrite the checkpoint now; resolves when written or failed (the writer logs a failure). */
  readonly beat: () => Promise<void>;
  readonly now: () => number;
  readonly sleep: Sleep;
  /** The wait after a beat that wrote nothing (failed, or no checkpoint yet to vouch for). @default a quarter of intervalMs */
  readonly retryMs?: number | undefined;
}

/** heartbeatWait: ms until a beat is due at `now` (≤ 0: due now). */
export const heartbeatWait = (lastWriteAt: number, now: number, intervalMs: number): number => lastWriteAt + intervalMs - now;

/** runHeartbeats: until `signal` aborts, beat whenever no checkpoint was written for an interval. */
export const runHeartbeats = async (loop: HeartbeatLoop, signal: AbortSignal): Promise<void> => {
  const retryMs = loop.retryMs ?? loop.intervalMs / 4;
  while (!signal.aborted) {
    let wait = heartbeatWait(loop.lastWriteAt(), loop.now(), loop.intervalMs);
    if (wait <= 0) {
      await loop.beat();
      if (signal.aborted) return;
      wait = Math.max(heartbeatWait(loop.lastWriteAt(), loop.now(), loop.intervalMs), retryMs);
    }
    await loop.sleep(wait, signal);
  }
};
