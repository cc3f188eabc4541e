/**
 * The fleet view against the real servers: kube-apiserver, moto's EventBridge and SQS
 * with the synthesized stack's reconciler rule, dynalite holding the table. A forwarder watching
 * the API server heartbeats through bus, rule and queue to the reconciler; `lineup clusters`, run
 * as its own process against the table (`--table`, AWS_ENDPOINT_URL_DYNAMODB), registers the
 * cluster and shows it watched, with its lag, last hour and the JobSet starting (its pods are held
 * Pending on the real control plane, so its InOrder startup waits on its first replicatedJob). With the forwarder stopped,
 * the cluster shows as unwatched after the missing time, and the resync says so and polls its JobSet.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Counters } from '../../../lib/counters.ts';
import { collectingLog } from '../../../lib/log.ts';
import { resync } from '../../../lib/reconcile/resync.ts';
import { lineupAgainstTable, startDynalite, startMoto, type CliRun, type DynaliteServer, type MotoServer } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS, eventually } from '../k8s/support.ts';
import { asCreated, exampleJobSet, HELD_FOR_EVER, startE2eCluster, withPodBehaviour, type E2eCluster } from '../e2e/cluster.ts';
import { Pipeline, synthesizedRule } from '../e2e/pipeline.ts';

const CLUSTER = 'fleet-a';
const TABLE = `lineup-${CLUSTER}`;
const REGION = 'us-east-1';
/** HEARTBEAT_MS: the forwarder's interval here, so that "missing" comes within a test's patience. */
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

  it('a running forwarder heartbeats through the deployed rule: status shows the cluster watched, its lag, last hour and the JobSet starting', async () => {
    const { cluster, pipeline } = ready();
    const created = await cluster.kube.request('POST', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets', asCreated(withPodBehaviour(exampleJobSet('story2-messagequeue-driver-worker.yaml', NAME), HELD_FOR_EVER)));
    assert.ok(created.status < 300, created.body.slice(0, 300));
    // Not pipeline.settle(): the heartbeats keep the pipeline busy for as long as the forwarder runs.
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
    assert.equal(only?.heartbeat?.intervalMs, HEARTBEAT_MS);
    assert.ok((only?.heartbeat?.ageMs ?? Infinity) <= MISSING_MS, `heartbeat age ${only?.heartbeat?.ageMs} ms`);
    assert.ok((only?.lastHour.events ?? 0) >= (only?.lastHour.passes ?? 0), 'every pass names at least its event');
    assert.equal(only?.lastHour.errors, 0);
    assert.equal(only?.jobSets, 1);
    assert.deepEqual(only?.starting.jobSets.map((item) => `${item.namespace}/${item.name}`), [`default/${NAME}`], 'InOrder waits for messagequeue Ready: its pods are held Pending');
    const text = await lineup('clusters', 'status', '--table', TABLE, '--region', REGION);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`\\n${CLUSTER} {2}token {2}watched: heartbeat \\S+ ago \\(every 300ms\\); lag `));
    assert.match(text.stdout, new RegExp(`\\n {2}starting now: 1, the oldest default/${NAME} since `));
    // The resync reads the same heartbeat item: nothing to poll (retried: on a loaded machine one heartbeat may arrive late).
    await eventually(
      'the resync finds the cluster watched',
      async () => {
        const watched = await resync({ store: pipeline.store, sink: pipeline.sink, now: Date.now, counters: new Counters(), log: collectingLog().log, eventBusName: pipeline.busName, heartbeatMissingMs: MISSING_MS }, { full: false });
        assert.deepEqual(watched.unwatched, []);
      },
      30_000,
      500,
    );
  });

  it('a stopped forwarder shows as missing after the missing time: status exit 1, and the resync treats the cluster as unwatched', async () => {
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
    assert.match(text.stdout, new RegExp(`\\n${CLUSTER} {2}token {2}UNWATCHED: no heartbeat for \\S+ \\(missing after 3s\\), the last sent \\S+; the resync polls its jobsets; lag `));
    const { log, lines } = collectingLog();
    const unwatched = await resync({ store: pipeline.store, sink: pipeline.sink, now: Date.now, counters: new Counters(), log, eventBusName: pipeline.busName, heartbeatMissingMs: MISSING_MS }, { full: false });
    assert.deepEqual(unwatched.unwatched, [CLUSTER]);
    assert.ok(unwatched.synced >= 1, 'its unfinished JobSet is re-queued without a full resync');
    assert.ok(lines.some((line) => line.level === 'warn' && line.message.startsWith('cluster unwatched') && line.fields?.['cluster'] === CLUSTER));
  });
});
