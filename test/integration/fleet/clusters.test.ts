/**
 * The fleet view against the real servers: kube-apiserver, moto's EventBridge and SQS with the
 * synthesized stack's reconciler rule, dynalite holding the table. A forwarder watching the API
 * server heartbeats by rewriting its watch checkpoint in the table (no event crosses the bus);
 * `lineup clusters`, run as its own process against the table (`--table`,
 * AWS_ENDPOINT_URL_DYNAMODB), registers the cluster and shows it watched, with its lag, last hour
 * and the JobSet starting (its pods are held Pending on the real control plane, so its InOrder
 * startup waits on its first replicatedJob). The resync Lambda's handler (functions/resync.ts,
 * its environment pointing at the same servers) publishes UnwatchedClusters 0. With the forwarder
 * stopped, the cluster shows as unwatched after the missing time, and the resync handler says so,
 * polls its JobSet and publishes UnwatchedClusters 1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FleetMetric } from '../../../lib/fleet/metrics.ts';
import { HEARTBEAT_INTERVAL_MS } from '../../../lib/forwarder/heartbeat.ts';
import { UNWATCHED_LOG_MESSAGE, type ResyncResult } from '../../../lib/reconcile/resync.ts';
import { lambdaContext } from '../../functions/lambdaFixtures.ts';
import { lineupAgainstTable, startDynalite, startMoto, type CliRun, type DynaliteServer, type MotoServer } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS, eventually } from '../k8s/support.ts';
import { asCreated, exampleJobSet, HELD_FOR_EVER, startE2eCluster, withPodBehaviour, type E2eCluster } from '../e2e/cluster.ts';
import { Pipeline, synthesizedRule } from '../e2e/pipeline.ts';

const CLUSTER = 'fleet-a';
const TABLE = `lineup-${CLUSTER}`;
const REGION = 'us-east-1';
/** HEARTBEAT_MS: the forwarder's checkpoint-rewrite interval here, so that "missing" comes within a test's patience. */
const HEARTBEAT_MS = 300;
/** MISSING_MS: the missing time `status` and the resync are given: several intervals. */
const MISSING_MS = 3_000;
const NAME = 'fleet-story2';

/** StatusJson: the part of `clusters status --output json` read here. */
interface StatusJson {
  readonly clusters: {
    readonly id: string;
    readonly auth: string;
    readonly watch: string;
    readonly heartbeat?: { readonly ageMs: number; readonly intervalMs: number };
    readonly lag?: { readonly ageMs: number };
    readonly lastHour: { readonly events: number; readonly passes: number; readonly errors: number };
    readonly jobSets: number;
    readonly starting: { readonly count: number; readonly jobSets: { readonly namespace: string; readonly name: string; readonly since: string }[] };
  }[];
}

/** ResyncRun: what one invocation of the resync Lambda's handler returned and wrote (its log lines and EMF metrics). */
interface ResyncRun {
  readonly result: ResyncResult;
  readonly records: Record<string, unknown>[];
}

describe('integration/fleet: heartbeats and lineup clusters against kube-apiserver, moto and dynalite', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let cluster: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let pipeline: Pipeline | undefined;
  let scratch = '';
  /** lineup: the CLI as a child process reaching the table through the SDK's default chains. */
  let lineup: (...args: string[]) => Promise<CliRun> = async () => assert.fail('the before hook did not run');

  const ready = (): { cluster: E2eCluster; pipeline: Pipeline } => {
    assert.ok(cluster && pipeline, 'the servers and the pipeline started (see the before hook)');
    return { cluster, pipeline };
  };
  const status = async (...extra: string[]): Promise<{ run: CliRun; report: StatusJson }> => {
    const run = await lineup('clusters', 'status', CLUSTER, '--table', TABLE, '--region', REGION, '--missing-after', `${MISSING_MS}ms`, '--output', 'json', ...extra);
    assert.ok(run.code === 0 || run.code === 1, `exit ${run.code}: ${run.stderr}`);
    return { run, report: JSON.parse(run.stdout) as StatusJson };
  };

  /**
   * resyncLambda: one invocation of functions/resync.ts's handler, imported once with the
   * environment the stack gives it pointed at these servers; its result and the JSON lines it wrote.
   */
  type ResyncHandler = (event: { full?: boolean }, context: typeof lambdaContext) => Promise<ResyncResult>;
  let handler: ResyncHandler | undefined;
  const resyncLambda = async (): Promise<ResyncRun> => {
    const { pipeline } = ready();
    if (handler === undefined) {
      Object.assign(process.env, {
        LINEUP_TABLE_NAME: TABLE,
        LINEUP_EVENT_BUS_NAME: pipeline.busName,
        LINEUP_HEARTBEAT_MISSING_MS: String(MISSING_MS),
        AWS_ENDPOINT_URL_DYNAMODB: dynamo?.endpoint,
        AWS_ENDPOINT_URL_EVENTBRIDGE: moto?.endpoint,
        AWS_REGION: REGION,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        POWERTOOLS_METRICS_DISABLED: 'false',
      });
      const entry: { handler: ResyncHandler } = await import('../../../functions/resync.ts');
      handler = entry.handler;
    }
    const invoke = handler;
    assert.ok(invoke);
    // Powertools writes info lines and EMF to stdout, warnings to stderr.
    const written: string[] = [];
    const writes = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };
    const capture = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    process.stdout.write = capture;
    process.stderr.write = capture;
    let result: ResyncResult;
    try {
      result = await invoke({}, lambdaContext);
    } finally {
      process.stdout.write = writes.stdout;
      process.stderr.write = writes.stderr;
    }
    const records = written.join('').split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    return { result, records };
  };
  /** unwatchedMetric: the UnwatchedClusters values a resync invocation published (EMF records with its name). */
  const unwatchedMetric = (run: ResyncRun): unknown[] => run.records.filter((record) => FleetMetric.UnwatchedClusters.name in record).map((record) => record[FleetMetric.UnwatchedClusters.name]);

  before(async () => {
    let rule;
    [cluster, moto, dynamo, rule] = await Promise.all([startE2eCluster(), startMoto(), startDynalite(), synthesizedRule()]);
    pipeline = await Pipeline.start({ kube: cluster.kube, moto, dynamo, clusterId: CLUSTER, rule, heartbeatIntervalMs: HEARTBEAT_MS });
    scratch = mkdtempSync(join(tmpdir(), 'lineup-fleet-'));
    lineup = lineupAgainstTable(dynamo);
  });

  after(async () => {
    await pipeline?.stop();
    await Promise.all([cluster?.stop(), moto?.stop(), dynamo?.stop()]);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('lineup clusters add registers the API server with its CA in the table, and says what to install next', async () => {
    const { cluster } = ready();
    const ca = join(scratch, 'ca.pem');
    writeFileSync(ca, cluster.kube.caPem);
    const secret = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:lineup-fleet-a';
    const added = await lineup('clusters', 'add', CLUSTER, '--token-secret', secret, '--endpoint', cluster.kube.url, '--ca', ca, '--table', TABLE, '--region', REGION);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, new RegExp(`^registered cluster ${CLUSTER} \\(token, ${cluster.kube.url.replace(/[.]/g, '\\.')}\\) in table ${TABLE} \\(${REGION}\\)\\nnext, in cluster ${CLUSTER}:\\n`));
    const listed = await lineup('clusters', 'list', '--table', TABLE, '--region', REGION);
    assert.equal(listed.stdout, `${CLUSTER}  ${cluster.kube.url}  token from ${secret}\n`);
  });

  it('a running forwarder heartbeats by its checkpoint: status shows the cluster watched, its lag, last hour and the JobSet starting; the resync Lambda publishes UnwatchedClusters 0', async () => {
    const { cluster } = ready();
    const created = await cluster.kube.request('POST', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets', asCreated(withPodBehaviour(exampleJobSet('story2-messagequeue-driver-worker.yaml', NAME), HELD_FOR_EVER)));
    assert.ok(created.status < 300, created.body.slice(0, 300));
    // Not pipeline.settle(): polled until the passes are journaled.
    const { run, report } = await eventually(
      'status shows a heartbeat, a bookmark and the passes',
      async () => {
        const seen = await status();
        const [only] = seen.report.clusters;
        assert.equal(only?.watch, 'watched', seen.run.stdout);
        assert.ok(only?.lag !== undefined && (only?.lastHour.passes ?? 0) > 0, seen.run.stdout);
        return seen;
      },
      60_000,
      500,
    );
    assert.equal(run.code, 0, 'every cluster shown is watched');
    const [only] = report.clusters;
    assert.equal(only?.auth, 'token');
    assert.equal(only?.heartbeat?.intervalMs, HEARTBEAT_INTERVAL_MS, 'the interval forwarders are deployed with (this one rewrites faster)');
    assert.ok((only?.heartbeat?.ageMs ?? Infinity) <= MISSING_MS, `heartbeat age ${only?.heartbeat?.ageMs} ms`);
    assert.ok((only?.lastHour.events ?? 0) >= (only?.lastHour.passes ?? 0), 'every pass names at least its event');
    assert.equal(only?.lastHour.errors, 0);
    assert.equal(only?.jobSets, 1);
    assert.deepEqual(only?.starting.jobSets.map((item) => `${item.namespace}/${item.name}`), [`default/${NAME}`], 'InOrder waits for messagequeue Ready: its pods are held Pending');
    const text = await lineup('clusters', 'status', '--table', TABLE, '--region', REGION);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`\\n${CLUSTER} {2}token {2}watched: heartbeat \\S+ ago \\(a checkpoint at least every 2m\\); lag `));
    assert.match(text.stdout, new RegExp(`\\n {2}starting now: 1, the oldest default/${NAME} since `));
    // The resync Lambda reads the same checkpoints: nothing to poll, and UnwatchedClusters 0 (retried: on a loaded machine one write may come late).
    const watched = await eventually(
      'the resync finds the cluster watched',
      async () => {
        const run = await resyncLambda();
        assert.deepEqual(run.result.unwatched, []);
        return run;
      },
      30_000,
      500,
    );
    assert.equal(watched.result.alarmed, 0);
    assert.deepEqual(unwatchedMetric(watched), [0], 'one UnwatchedClusters value, 0');
  });

  it('a stopped forwarder shows as missing after the missing time: status exit 1 naming it, and the resync Lambda polls it and publishes UnwatchedClusters 1', async () => {
    const { pipeline } = ready();
    await pipeline.stopForwarder();
    const stoppedAt = Date.now();
    const { run } = await eventually(
      'status shows the cluster unwatched',
      async () => {
        const seen = await status();
        assert.equal(seen.report.clusters[0]?.watch, 'unwatched', seen.run.stdout);
        return seen;
      },
      MISSING_MS + 30_000,
      500,
    );
    assert.ok(Date.now() - stoppedAt >= MISSING_MS - HEARTBEAT_MS, 'not before the missing time');
    assert.equal(run.code, 1);
    const text = await lineup('clusters', 'status', CLUSTER, '--table', TABLE, '--region', REGION, '--missing-after', `${MISSING_MS}ms`);
    assert.equal(text.code, 1);
    assert.match(text.stdout, new RegExp(`\\n${CLUSTER} {2}token {2}UNWATCHED: no heartbeat for \\S+ \\(missing after 3s\\), the last checkpoint written \\S+; the resync polls its jobsets; lag `));
    const lambda = await resyncLambda();
    assert.deepEqual(lambda.result.unwatched, [CLUSTER]);
    assert.equal(lambda.result.alarmed, 1);
    assert.deepEqual(unwatchedMetric(lambda), [1], 'UnwatchedClusters 1: the alarm breaches');
    assert.ok(
      lambda.records.some((record) => record['message'] === UNWATCHED_LOG_MESSAGE && record['cluster'] === CLUSTER),
      `the line the dashboard's table reads names the cluster: ${JSON.stringify(lambda.records)}`,
    );
    assert.ok(lambda.result.synced >= 1, 'its unfinished JobSet is re-queued without a full resync');
  });
});
