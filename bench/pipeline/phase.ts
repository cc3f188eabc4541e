/**
 * One phase of the pipeline benchmark: create the JobSet pairs (one pair after the other, or all
 * at once), wait until every JobSet completed, let both controllers settle, and take the phase's
 * figures from what happened between its start and its end.
 */
import { isObject, type JsonObject } from '../../lib/json.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionType } from '../../lib/jobset/api.ts';
import { CounterName } from '../../lib/counters.ts';
import type { CountsFile, Range } from '../../infra/cost/costModel.ts';
import type { Pipeline } from '../../test/integration/e2e/pipeline.ts';
import type { ApiServerAudit } from '../../test/integration/harness/upstream.ts';
import { CallCounter, DYNAMO_WRITE_OPERATIONS } from './counting.ts';
import { percentile, ratio, round, type ControllerFigures, type LineupFigures, type PhaseFigures } from './figures.ts';
import type { JobWatch } from './jobWatch.ts';
import type { BenchKubeClient } from './kubeClient.ts';
import { NAMESPACE, jobKey, jobsOf, manifestFor, type Stage } from './story.ts';
import { actorOf, apiFigure, isWrite, segmentFigures, stageFigures, stageTimes, timelineOf } from './timeline.ts';

/** RUN_TIMEOUT_MS: how long every JobSet may take to complete before the figures are taken as they are. */
const RUN_TIMEOUT_MS = 5 * 60_000;
/** SOLO_RUNNING_TIMEOUT_MS: how long one pair of the one-at-a-time phase may take until all its Jobs run. */
const SOLO_RUNNING_TIMEOUT_MS = 60_000;
/** QUIET_MS: a controller is settled once it has written nothing for this long. */
const QUIET_MS = 1_500;
/**
 * SERVER_OPERATIONS: the test-server calls reported. ReceiveMessage is left out: a long poll's
 * time is mostly waiting for the message (the "bus → pass starts" segment shows what it costs).
 */
const SERVER_OPERATIONS = ['PutEvents', 'DeleteMessageBatch', 'UpdateItem', 'PutItem'] as const;

const progress = (message: string): void => {
  process.stderr.write(`bench pipeline: ${message}\n`);
};

/** Run: the servers, both controllers and the bench's own parts, shared by both phases. */
export interface Run {
  readonly pipeline: Pipeline;
  readonly client: BenchKubeClient;
  /** The bench's watch of the Jobs: when each was first seen running and ready. */
  readonly jobs: JobWatch;
  readonly audit: ApiServerAudit;
  readonly base: JsonObject;
  readonly stages: readonly Stage[];
  readonly counter: CallCounter;
  /** When each Lineup event went on the bus, by `namespace/name` of its object. */
  readonly puts: ReadonlyMap<string, readonly number[]>;
}

/** PhaseResult: a phase's figures, with its counts per startup for the cost model. */
export interface PhaseResult {
  readonly figures: PhaseFigures;
  readonly counts: Omit<CountsFile, 'description' | 'producedBy' | 'producedAt' | 'source'>;
}

/** jobSetsIn: the JobSets of a namespace, by name, and the names of those with Completed=True. */
export const jobSetsIn = async (client: BenchKubeClient, namespace: string): Promise<{ byName: Map<string, JsonObject>; completed: Set<string> }> => {
  const items = await client.jobSets(namespace);
  const byName = new Map(items.map((item) => [String((item.metadata as JsonObject | undefined)?.name), item]));
  const completed = new Set(
    [...byName.entries()]
      .filter(([, item]) => {
        const conditions = isObject(item.status) && Array.isArray(item.status.conditions) ? item.status.conditions.filter(isObject) : [];
        return conditions.some((condition) => condition.type === ConditionType.Completed && condition.status === 'True');
      })
      .map(([name]) => name),
  );
  return { byName, completed };
};

/** perStartup: each count divided by the startups, as a Range (min = max = mean: one run's totals). */
const perStartup = (counts: Readonly<Record<string, number>>, startups: number): Record<string, Range> =>
  Object.fromEntries(
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, total]) => {
        const mean = round(total / startups, 2);
        return [name, { mean, min: mean, max: mean }];
      }),
  );

/** delta: `after` minus `before`, counter by counter (zeros left out). */
const delta = (before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): Record<string, number> =>
  Object.fromEntries(Object.entries(after).flatMap(([name, count]) => (count - (before[name] ?? 0) === 0 ? [] : [[name, count - (before[name] ?? 0)]])));

/** createPair: a JobSet and its upstream twin, both created at once. */
const createPair = (run: Run, name: string): Promise<unknown> =>
  Promise.all((['lineup', 'upstream'] as const).map((controller) => run.client.createJobSet(NAMESPACE[controller], manifestFor(run.base, controller, name))));

/** allRunning: every Job of the JobSet, in both namespaces, seen running by the bench's watch. */
const allRunning = (run: Run, name: string): boolean =>
  Object.values(NAMESPACE).every((namespace) => run.stages.every((stage) => jobsOf(name, stage).every((job) => run.jobs.runningAt.has(jobKey(namespace, job)))));

/**
 * runPhase: create the JobSets (`oneAtATime`: each pair once the previous pair's Jobs all run;
 * otherwise all at once), wait until all of them completed (or RUN_TIMEOUT_MS: the figures are
 * then taken as they are), let both controllers settle, and take the phase's figures from what
 * happened between its start and its end.
 */
export const runPhase = async (run: Run, phase: string, names: readonly string[], oneAtATime: boolean): Promise<PhaseResult> => {
  const { pipeline, client, jobs, audit } = run;
  const counters = pipeline.counters;
  const before = counters.snapshot();
  const startedAt = Date.now();
  progress(`${phase}: creating ${names.length} story-2 JobSets in each of the namespaces ${NAMESPACE.lineup} and ${NAMESPACE.upstream}${oneAtATime ? ', one pair after the other' : ' at once'}`);
  if (oneAtATime) {
    for (const name of names) {
      await createPair(run, name);
      for (const deadline = Date.now() + SOLO_RUNNING_TIMEOUT_MS; !allRunning(run, name) && Date.now() < deadline; ) await sleep(50);
    }
  } else {
    await Promise.all(names.map((name) => createPair(run, name)));
  }

  const wanted = new Set(names);
  let done = { lineup: 0, upstream: 0 };
  let lastReport = Date.now();
  while (Date.now() - startedAt < RUN_TIMEOUT_MS) {
    const [ours, theirs] = await Promise.all([jobSetsIn(client, NAMESPACE.lineup), jobSetsIn(client, NAMESPACE.upstream)]);
    done = { lineup: [...ours.completed].filter((name) => wanted.has(name)).length, upstream: [...theirs.completed].filter((name) => wanted.has(name)).length };
    if (done.lineup === names.length && done.upstream === names.length) break;
    if (Date.now() - lastReport >= 10_000) {
      progress(`${phase}: ${Math.round((Date.now() - startedAt) / 1000)} s, completed ${done.lineup}/${names.length} (Lineup), ${done.upstream}/${names.length} (upstream)`);
      lastReport = Date.now();
    }
    // Not faster: each look lists every JobSet of both namespaces, work for the API server and for the process Lineup runs in.
    await sleep(1_000);
  }
  const runMs = Date.now() - startedAt;
  progress(`${phase}: completed ${done.lineup}/${names.length} (Lineup), ${done.upstream}/${names.length} (upstream) in ${(runMs / 1000).toFixed(1)} s; letting both controllers settle`);
  await pipeline.settle(`${phase}: every JobSet completed`, { quietMs: QUIET_MS, timeoutMs: 60_000 }).catch((error: unknown) => progress(`${phase}: Lineup did not settle: ${(error as Error).message}`));
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(250)) {
    const last = audit.requests().filter((record) => actorOf(record) === 'upstream' && isWrite(record)).at(-1);
    if (last === undefined || Date.now() - last.at > QUIET_MS) break;
  }
  const endedAt = Date.now();

  // What happened in this phase: the audit records, server calls and passes of its window and JobSets.
  const jobSets = names.length;
  const records = audit.requests().filter((record) => record.at >= startedAt && record.at <= endedAt);
  const calls = run.counter.calls.filter((call) => call.at >= startedAt && call.at <= endedAt);
  const dynamoCalls = calls.filter((call) => call.client === 'DynamoDBClient');
  const timeline = timelineOf(records, jobs);
  const lineupTimes = stageTimes(NAMESPACE.lineup, names, run.stages, timeline);
  const passes = pipeline.passes.filter((pass) => pass.key.namespace === NAMESPACE.lineup && wanted.has(pass.key.name));
  const counted = Object.fromEntries(Object.entries(delta(before, counters.snapshot())).filter(([name]) => !name.startsWith('e2e.')));
  const failedRecords = (counters.snapshot()['e2e.recordsFailed'] ?? 0) - (before['e2e.recordsFailed'] ?? 0);
  const perOne = (count: number): number => round(count / jobSets, 2);
  const byPrefix = (prefix: string): Record<string, number> =>
    Object.fromEntries(Object.entries(counted).flatMap(([name, count]) => (name.startsWith(prefix) ? [[name, perOne(count)]] : [])));
  const dynamoOperations = [...new Set(dynamoCalls.map((call) => call.operation))].sort();
  const callsOf = (operation: string) => dynamoCalls.filter((call) => call.operation === operation);

  const lineup: LineupFigures = {
    jobSetsCompleted: done.lineup,
    stages: stageFigures(lineupTimes, run.stages),
    api: apiFigure(records, 'lineup', jobSets),
    eventsPerStartup: perOne(counted[CounterName.EventsPut] ?? 0),
    passesPerStartup: perOne(passes.length),
    invocationsPerStartup: perOne(counted[CounterName.Invocations] ?? 0),
    dynamoPerStartup: perOne(dynamoCalls.length),
    dynamoByOperation: Object.fromEntries(dynamoOperations.map((operation) => [operation, perOne(callsOf(operation).length)])),
    dynamoWriteUnitsPerStartup: perOne(dynamoCalls.filter((call) => DYNAMO_WRITE_OPERATIONS.has(call.operation)).reduce((sum, call) => sum + call.capacityUnits, 0)),
    kubeCountersPerStartup: byPrefix(CounterName.KubePrefix),
    watchEventsPerStartup: perOne(counted[CounterName.WatchEvents] ?? 0),
    recordsFailed: failedRecords,
    segments: segmentFigures(lineupTimes, run.stages, run.puts, passes),
  };
  const upstream: ControllerFigures = {
    jobSetsCompleted: done.upstream,
    stages: stageFigures(stageTimes(NAMESPACE.upstream, names, run.stages, timeline), run.stages),
    api: apiFigure(records, 'upstream', jobSets),
  };
  const ratios: Record<string, number> = {};
  lineup.stages.forEach((stage, index) => {
    const theirs = upstream.stages[index];
    if (theirs === undefined) return;
    ratios[`${stage.transition} ${oneAtATime ? 'median' : 'p50'}`] = ratio(stage.p50Ms, theirs.p50Ms);
    // A p99 of a handful of JobSets is their maximum: only the burst has one.
    if (!oneAtATime) ratios[`${stage.transition} p99`] = ratio(stage.p99Ms, theirs.p99Ms);
  });
  ratios['API writes per startup'] = ratio(lineup.api.writesPerStartup, upstream.api.writesPerStartup);
  ratios['API reads per startup'] = ratio(lineup.api.readsPerStartup, upstream.api.readsPerStartup);
  const serverCalls = SERVER_OPERATIONS.map((operation) => {
    const times = calls.filter((call) => call.operation === operation && !call.empty).map((call) => call.ms).sort((a, b) => a - b);
    return { operation, calls: times.length, p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)) };
  });

  // The cost model's counts: counters per startup, and DynamoDB capacity as infra/cost/measure.ts measures it.
  const passesByJobSet = names.map((name) => passes.filter((pass) => pass.key.name === name).length);
  const range = (total: number): Range => {
    const mean = perOne(total);
    return { mean, min: mean, max: mean };
  };
  const dynamoCapacity: CountsFile['dynamoCapacity'] = Object.fromEntries(
    dynamoOperations.map((operation) => {
      const mine = callsOf(operation);
      return [
        operation,
        {
          requests: range(mine.length),
          capacityUnits: range(mine.reduce((sum, call) => sum + call.capacityUnits, 0)),
          itemBytes: range(mine.reduce((sum, call) => sum + call.itemBytes, 0)),
        },
      ];
    }),
  );
  return {
    figures: { phase, jobSets, runMs, lineup, upstream, ratios, serverCalls },
    counts: {
      startupsPerRun: jobSets,
      counters: { ...perStartup(counted, jobSets), [CounterName.Passes]: { mean: perOne(passes.length), min: Math.min(...passesByJobSet), max: Math.max(...passesByJobSet) } },
      dynamoCapacity,
    },
  };
};
