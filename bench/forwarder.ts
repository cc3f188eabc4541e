/**
 * Benchmark: the forwarder's own cost. A scripted watch streams Job events (three of every four
 * are noise a decision cannot see: pod counts and timestamps), through the real filter and
 * batcher into (a) a sink that only counts — our cost alone — and (b) EventBridge PutEvents on a
 * moto server on loopback — ours plus a real API's. Prints events per second and the forwarded
 * share. Makes no assertions.
 */
import { performance } from 'node:perf_hooks';
import { CreateEventBusCommand, EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DEFAULT_CONTROLLER_NAME } from '../lib/jobset/managedBy.ts';
import { Label } from '../lib/jobset/api.ts';
import { CounterName, Counters } from '../lib/counters.ts';
import { EventBridgeSink } from '../lib/forwarder/eventBridgeSink.ts';
import { sdkPutEvents } from '../lib/hosts/lambdaAwsClients.ts';
import { Forwarder } from '../lib/forwarder/forwarder.ts';
import type { EventSink, ListResult, WatchEnd, WatchEvent, WatchSource, WatchedKind } from '../lib/forwarder/types.ts';
import type { Job } from '../lib/jobset/schema.ts';
import { silentLog } from '../lib/log.ts';
import { MemoryCheckpointStore } from '../lib/store/memoryStore.ts';
import { startMoto } from '../test/integration/harness/moto.ts';

/** ForwarderFigure: one run's figures. */
export interface ForwarderFigure {
  readonly sink: string;
  readonly rawEvents: number;
  /** Changes that passed the filter (put, or folded into a later event of their JobSet). */
  readonly forwarded: number;
  /** Events put: one per JobSet per batch window, whatever number of its changes it stands for. */
  readonly eventsPut: number;
  readonly putCalls: number;
  readonly eventsPerSecond: number;
}

/** jobEvent: the i-th update of Job `n` of 1,000 four-pod Jobs (10 in each of 100 JobSets): pods turn ready, then it succeeds. */
const jobEvent = (n: number, step: number, rv: number): WatchEvent<'Job'> => {
  const ready = Math.min(step, 4);
  const job: Job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `bench-workers-${n}`,
      namespace: 'bench',
      uid: `uid-${n}`,
      resourceVersion: String(rv),
      labels: { [Label.JobSetName]: `bench-${n % 100}`, [Label.ReplicatedJobName]: 'workers', [Label.RestartAttempt]: '0' },
    },
    spec: { parallelism: 4, completions: 4, suspend: false, template: { spec: { containers: [{ name: 'main' }] } } },
    status: { active: 4, ready, startTime: '2026-01-01T00:00:00Z' },
  };
  return { type: 'MODIFIED', object: job };
};

/** ScriptedWatch: one watch that streams `count` events as fast as the forwarder takes them, then idles. */
class ScriptedWatch implements WatchSource {
  private readonly count: number;
  private done: (() => void) | undefined;
  readonly finished: Promise<void>;
  constructor(count: number) {
    this.count = count;
    this.finished = new Promise((resolve) => (this.done = resolve));
  }
  async list<K extends WatchedKind>(_kind: K): Promise<ListResult<K>> {
    return { items: [], resourceVersion: '1' };
  }
  async watch<K extends WatchedKind>(kind: K, _from: string, onEvent: (event: WatchEvent<K>) => void | Promise<void>, signal: AbortSignal): Promise<WatchEnd> {
    if (kind === 'Job') {
      for (let i = 0; i < this.count; i += 1) await onEvent(jobEvent(i % 1000, Math.floor(i / 1000) + 1, i + 2) as WatchEvent<K>);
      this.done?.();
    }
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    return 'closed';
  }
}

/** measure: stream `count` raw events through a forwarder into `sink`. */
const measure = async (name: string, sink: EventSink, count: number): Promise<ForwarderFigure> => {
  const counters = new Counters();
  const source = new ScriptedWatch(count);
  const forwarder = new Forwarder({
    cluster: 'bench',
    source,
    sink,
    bookmarks: new MemoryCheckpointStore(),
    planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true },
    counters,
    log: silentLog,
    now: Date.now,
    batchWindowMs: 0,
  });
  const abort = new AbortController();
  const started = performance.now();
  const running = forwarder.run(abort.signal);
  await source.finished;
  abort.abort();
  await running;
  const seconds = (performance.now() - started) / 1000;
  return {
    sink: name,
    rawEvents: counters.get(CounterName.WatchEvents),
    forwarded: counters.get(CounterName.WatchEvents) - counters.get(CounterName.EventsDropped),
    eventsPut: counters.get(CounterName.EventsPut),
    putCalls: counters.get(CounterName.PutEventsCalls),
    eventsPerSecond: Math.round(counters.get(CounterName.WatchEvents) / seconds),
  };
};

/** runForwarderBench: the in-process sink and moto's PutEvents. */
export const runForwarderBench = async (): Promise<ForwarderFigure[]> => {
  const counting: EventSink = { put: async () => ({ failed: [] }) };
  const figures = [await measure('in-process (counting) sink', counting, 40_000)];
  const moto = await startMoto();
  try {
    const client = new EventBridgeClient(moto.clientConfig);
    await client.send(new CreateEventBusCommand({ Name: 'lineup-bench' }));
    figures.push(await measure('EventBridge PutEvents (moto on loopback)', new EventBridgeSink({ putEvents: sdkPutEvents(client), eventBusName: 'lineup-bench' }), 8_000));
  } finally {
    await moto.stop();
  }
  return figures;
};

if (import.meta.main) {
  for (const f of await runForwarderBench()) {
    console.log(
      `forwarder → ${f.sink}: ${f.eventsPerSecond} raw events/s; ${f.forwarded} of ${f.rawEvents} passed the filter (${((100 * f.forwarded) / f.rawEvents).toFixed(1)}%), put as ${f.eventsPut} events in ${f.putCalls} PutEvents calls`,
    );
  }
}
