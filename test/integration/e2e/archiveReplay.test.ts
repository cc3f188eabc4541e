/**
 * Archive replay end to end on moto 5.2.5: forwarder → moto's bus (with an archive) → rule → SQS
 * → reconciler → journal in dynalite; then `lineup replay --archive` starts moto's replay, waits
 * for it, and reports the replayed decisions beside the original ones. The cluster runs the real
 * control plane minus kubelet (harness/controlPlane.ts): the Job controller writes every Job's
 * status from Pods kwok runs, so the archive holds the events a real cluster sends.
 *
 * moto 5.2.5 (moto/events/models.py) replays synchronously inside StartReplay: every archived
 * event goes back to every rule of the bus with a new id and `replay-name`, straight to the
 * rules' SQS targets. It does NOT filter by EventStartTime/EventEndTime nor by the destination's
 * FilterArns (AWS does both); the report filters the range itself, and the bus here has one rule.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CreateArchiveCommand, DescribeEventBusCommand, EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { archiveReplayCommand } from '../../../lib/cli/archiveReplay.ts';
import type { CliIo } from '../../../lib/cli/io.ts';
import { Reason } from '../../../lib/jobset/api.ts';
import { startDynalite, startMoto, type DynaliteServer, type MotoServer } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS } from '../k8s/support.ts';
import { exampleJobSet, startE2eCluster, type E2eCluster } from './cluster.ts';
import { Pipeline, synthesizedRule, type RuleSource } from './pipeline.ts';
import { Scenario } from './scenario.ts';

const CLUSTER_ID = 'e2e-archive';
const ARCHIVE = 'lineup-e2e-archive';

/** capture: a CliIo keeping what a command printed. */
const capture = (): CliIo & { out: string[]; err: string[] } => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => void out.push(text), stderr: (text) => void err.push(text), readFile: () => { throw new Error('no files here'); } };
};

describe('end to end: lineup replay --archive on moto (forwarder → bus with archive → SQS → reconciler → journal)', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let cluster: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let pipeline: Pipeline | undefined;
  let events: EventBridgeClient | undefined;

  before(async () => {
    let rule: RuleSource;
    [cluster, moto, dynamo, rule] = await Promise.all([startE2eCluster(), startMoto(), startDynalite(), synthesizedRule()]);
    pipeline = await Pipeline.start({ kube: cluster.kube, moto, dynamo, clusterId: CLUSTER_ID, rule });
    events = new EventBridgeClient(moto.clientConfig);
    // The archive as the stack's (infra/constructs/lineupBus.ts): the bus's events that match the rule's pattern.
    const bus = await events.send(new DescribeEventBusCommand({ Name: pipeline.busName }));
    await events.send(new CreateArchiveCommand({ ArchiveName: ARCHIVE, EventSourceArn: bus.Arn, EventPattern: JSON.stringify(rule.pattern) }));
  });

  after(async () => {
    events?.destroy();
    await pipeline?.stop();
    await Promise.all([cluster?.stop(), moto?.stop(), dynamo?.stop()]);
  });

  it('replays story 1 to the reconciler, which records every replayed event without applying it; the report pairs each with its original pass and exits 1 where they differ', async (t) => {
    assert.ok(cluster && pipeline && events && moto);
    // Arrange: story 1 runs to completion through the real pipeline; its events are archived.
    const from = Math.floor(Date.now() / 1000) * 1000 - 1000;
    const s = await Scenario.start(cluster, pipeline, 'story1', exampleJobSet('story1-driver-ready-worker-start.yaml', 'driver-ready'));
    await s.expectFlags('only the driver running', { driver: 'R', workers: 'S' });
    await s.markReady('driver');
    await s.expectFlags('the workers released', { driver: 'R', workers: 'R' });
    await s.markReady('workers');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
    await pipeline.settle('story 1 started');
    const key = { cluster: CLUSTER_ID, namespace: 'story1', name: s.name };
    const before = await pipeline.store.listJournal(key);
    const originals = before.filter((entry) => entry.triggers.length > 0);
    // The JobSet's first event triggers the pass that creates its Jobs (later passes of a lease loop have no trigger).
    assert.ok(originals.some((entry) => entry.actions.some((action) => action.kind === 'CreateJob')), 'an original pass with a trigger created the Jobs');
    const jobSetBefore = await s.jobSet();
    const to = Date.now() + 1000;

    // Act
    // replayRange: `lineup replay --archive` over [from, to] for the JobSet, as replay `name`.
    const [motoServer, replayedPipeline, eventsClient] = [moto, pipeline, events];
    const replayRange = async (name: string, io: ReturnType<typeof capture>, output?: 'json'): Promise<number> =>
      archiveReplayCommand(
        {
          archive: ARCHIVE,
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          jobset: `${CLUSTER_ID}/story1/${s.name}`,
          table: `lineup-${CLUSTER_ID}`,
          region: motoServer.clientConfig.region,
          rule: `lineup-${CLUSTER_ID}-reconciler`,
          name,
          timeout: '60s',
          settle: '3s',
          ...(output === undefined ? {} : { output }),
        },
        io,
        { events: eventsClient, store: replayedPipeline.store, pollMs: 200 },
      );

    const io = capture();
    const code = await replayRange('story1-replay', io);
    await pipeline.settle('the replay delivered');

    // Assess: every archived event of the JobSet came back as a replayed pass, recorded and not applied.
    const after = await pipeline.store.listJournal(key);
    const replayed = after.filter((entry) => entry.replayName === 'story1-replay');
    const forwarded = pipeline.sink.entries.filter((entry) => JSON.parse(entry.Detail ?? '{}').jobSet === s.name);
    const triggerOf = (entry: (typeof replayed)[number]): string =>
      entry.triggers.map((trigger) => `${trigger.detailType} ${trigger.name} rv ${trigger.resourceVersion} ${trigger.watchType}`).join(', ') || '(no trigger)';
    const forwardedOf = (entry: (typeof forwarded)[number]): string => {
      const detail = JSON.parse(entry.Detail ?? '{}') as { kind?: string; name?: string; resourceVersion?: string; type?: string };
      return `${entry.DetailType ?? ''} ${JSON.stringify(detail).slice(0, 160)}`;
    };
    // SQS delivers at least once: on a loaded machine a replayed record can outlive its 2 s
    // visibility timeout and be passed again, so the replayed events are counted, not the passes.
    const replayedEvents = new Set(replayed.map(triggerOf));
    assert.equal(
      replayedEvents.size,
      forwarded.length,
      `one replayed event per event forwarded for the JobSet; replayed passes:\n${replayed.map(triggerOf).join('\n')}\nforwarded:\n${forwarded.map(forwardedOf).join('\n')}`,
    );
    assert.ok(replayed.every((entry) => !entry.applied && entry.triggers[0]?.replayName === 'story1-replay'), 'replayed passes are recorded, not applied');
    assert.equal(after.filter((entry) => entry.replayName === undefined).length, before.length, 'the replay caused no applied pass');
    assert.equal((await s.jobSet()).metadata?.resourceVersion, jobSetBefore.metadata?.resourceVersion, 'the JobSet was not written');
    // Against the cluster as it is now (started), no replayed pass creates or resumes anything.
    assert.ok(replayed.every((entry) => !entry.actions.some((action) => action.kind === 'CreateJob' || action.kind === 'ResumeJob')), 'no replayed pass creates or resumes a Job');

    const text = io.out.join('');
    t.diagnostic(`the report:\n${text}`);
    assert.equal(code, 1, `exit 1 (a replayed event decided differently); stdout:\n${text}\nstderr:\n${io.err.join('')}`);
    assert.match(io.err.join(''), /lineup replay: story1-replay COMPLETED/);
    assert.match(text, new RegExp(`^${CLUSTER_ID}/story1/${s.name}:$`, 'm'));
    assert.match(text, /JobSet Changed JobSet [^\n]* ADDED at [^\n]*: different\n {4}original [^\n]*CreateJob [^\n]*\n {4}replayed [^\n]*\n {6}action 1: original \w+ [^\n]*, replayed none\n/);
    const summary = /(\d+) same, (\d+) different, (\d+) without an original pass, (\d+) not replayed/.exec(text);
    assert.ok(summary, `a summary line in:\n${text}`);
    const [, same, different, noOriginal, notReplayed] = summary.map(Number);
    assert.equal((same ?? 0) + (different ?? 0) + (noOriginal ?? 0), replayed.length, 'every replayed pass is in the report');
    assert.equal((same ?? 0) + (different ?? 0) + (notReplayed ?? 0), originals.filter((entry) => entry.triggers[0]?.time !== undefined).length, 'every original pass of the range is in the report');
    assert.equal(notReplayed, 0, 'moto replayed every archived event');

    // --output json: a second replay of the same range, its report in the stable shape.
    const json = capture();
    const jsonCode = await replayRange('story1-replay-json', json, 'json');
    await pipeline.settle('the second replay delivered');
    assert.equal(jsonCode, 1, json.err.join(''));
    const report = JSON.parse(json.out.join('')) as {
      format: string;
      replay: { name: string; rule: string };
      summary: { jobSets: number; events: number; same: number; different: number; noOriginalPass: number; notReplayed: number };
      reports: { jobSet: unknown; events: { result: string; event: { kind: string; watchType: string; replayName?: string }; original?: { actions: { kind: string }[] }; replayed?: unknown; differences?: { action: number; field: string }[] }[] }[];
    };
    assert.equal(report.format, 'lineup.dev/archive-replay/v1');
    assert.equal(report.replay.name, 'story1-replay-json');
    assert.match(report.replay.rule, new RegExp(`rule/.*lineup-${CLUSTER_ID}-reconciler$`));
    const replayedAgain = (await pipeline.store.listJournal(key)).filter((entry) => entry.replayName === 'story1-replay-json');
    assert.equal(replayedAgain.length, forwarded.length, 'the second replay recorded one pass per event forwarded, too');
    // The JSON counts what the text counted: the same events decide the same way against the same cluster.
    assert.deepEqual(report.summary, { jobSets: 1, events: (same ?? 0) + (different ?? 0) + (noOriginal ?? 0), same, different, noOriginalPass: noOriginal, notReplayed: 0 });
    assert.deepEqual(report.reports[0]?.jobSet, key);
    const added = report.reports[0]?.events.find((event) => event.event.kind === 'JobSet' && event.event.watchType === 'ADDED');
    assert.equal(added?.result, 'different');
    assert.equal(added?.event.replayName, 'story1-replay-json');
    assert.ok(added?.original?.actions.some((action) => action.kind === 'CreateJob'), 'the original pass created the Jobs');
    assert.deepEqual(added?.differences?.[0], { action: 1, field: 'kind', original: added?.original?.actions[0]?.kind });
  });
});
