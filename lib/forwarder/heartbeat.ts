/**
 * The forwarder's heartbeat: while a forwarder runs, one `Heartbeat` event every
 * interval, the first at once. The reconciler keeps the newest per cluster; the stack alarms when
 * none arrived for longer than its configured time, and the resync and `lineup clusters status`
 * call such a cluster unwatched. A failed put is logged and counted, and the next beat tries again:
 * a missing heartbeat is exactly what the alarm is for, so it is never retried harder.
 */
import { CounterName, type CounterSink } from '../counters.ts';
import { heartbeatEntry } from '../events/heartbeat.ts';
import type { Log } from '../log.ts';
import { sleep as timerSleep, type Sleep } from '../retry.ts';
import { ForwarderLog } from './forwarderLog.ts';
import type { EventSink } from './types.ts';

/** HEARTBEAT_INTERVAL_MS: the default time between two heartbeats of a forwarder. */
export const HEARTBEAT_INTERVAL_MS = 60_000;

/** HeartbeatOptions: whose heartbeat, where it goes, and how often. */
export interface HeartbeatOptions {
  readonly cluster: string;
  readonly sink: EventSink;
  /** Epoch ms written as the heartbeat's sentAt (the demo passes its virtual clock). */
  readonly now: () => number;
  readonly counters: CounterSink;
  readonly log: Log;
  /** @default HEARTBEAT_INTERVAL_MS */
  readonly intervalMs?: number | undefined;
  readonly eventBusName?: string | undefined;
  /** The wait between beats. @default a real timer */
  readonly sleep?: Sleep | undefined;
}

/** beat: put one heartbeat; false (logged and counted) when the put failed. */
export const beat = async (options: HeartbeatOptions): Promise<boolean> => {
  const intervalMs = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  const entry = heartbeatEntry({ cluster: options.cluster, sentAt: Math.trunc(options.now()), intervalMs }, options.eventBusName);
  try {
    const result = await options.sink.put([entry]);
    const failure = result.failed[0];
    if (failure === undefined) {
      options.counters.add(CounterName.HeartbeatsPut);
      return true;
    }
    options.log('warn', ForwarderLog.heartbeatFailed, { cluster: options.cluster, code: failure.code, error: failure.message });
  } catch (error) {
    options.log('warn', ForwarderLog.heartbeatFailed, { cluster: options.cluster, error: error instanceof Error ? error.message : String(error) });
  }
  options.counters.add(CounterName.HeartbeatsFailed);
  return false;
};

/** runHeartbeats: beat at once, then every interval, until `signal` aborts. */
export const runHeartbeats = async (options: HeartbeatOptions, signal: AbortSignal): Promise<void> => {
  const wait = options.sleep ?? timerSleep;
  while (!signal.aborted) {
    await beat(options);
    await wait(options.intervalMs ?? HEARTBEAT_INTERVAL_MS, signal);
  }
};
