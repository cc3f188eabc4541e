/**
 * `lineup run` end to end against a real kube-apiserver: the CLI process runs the forwarder, the
 * in-process bus, the reconciler and the embedded DynamoDB-API server, authenticated as Lineup's
 * own user bound to the shipped ClusterRoles. The real control plane runs the Jobs
 * (test/integration/e2e/cluster.ts: the Job controller, the scheduler, a kwok node); their pods
 * are held Pending until the test releases a stage's pods Ready, and the Job controller writes
 * every Job status. The test checks that story 2 starts in order; Ctrl-C stops the process
 * cleanly and `lineup history` shows the decisions it recorded.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Label } from '../../../lib/jobset/api.ts';
import type { Job } from '../../../lib/jobset/schema.ts';
import { exampleJobSet, HELD_FOR_EVER, startE2eCluster, withPodBehaviour, type E2eCluster } from '../e2e/cluster.ts';
import { runLineup } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS, eventually } from '../k8s/support.ts';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const NS = 'default';
const NAME = 'story2';

let cluster: E2eCluster | undefined;
let dir: string;
let run: ChildProcess | undefined;
let output = '';

const started = (): E2eCluster => {
  assert.ok(cluster, 'the cluster started (see the before hook)');
  return cluster;
};
const jobsOf = (): Promise<Job[]> => started().jobs.list(NS, NAME);
const running = (jobs: readonly Job[], rjob: string): number => jobs.filter((job) => job.metadata.labels?.[Label.ReplicatedJobName] === rjob && job.spec.suspend !== true).length;
/** markReady: releases every pod of the replicatedJob's Jobs; resolves once the Job controller counts them ready. */
const markReady = async (rjob: string): Promise<void> => {
  const { jobs } = started();
  for (const name of await jobs.namesOf(NS, NAME, rjob)) await jobs.markReady(NS, name);
};

describe('lineup run against a real kube-apiserver', { timeout: COLD_START_TIMEOUT_MS }, () => {
  before(async () => {
    cluster = await startE2eCluster();
    dir = mkdtempSync(join(tmpdir(), 'lineup-run-'));
    // Lineup's own user: only the verbs the shipped roles grant.
    writeFileSync(join(dir, 'kubeconfig'), cluster.kube.kubeConfig('lineup').exportConfig());
  });
  after(async () => {
    if (run && run.exitCode === null) run.kill('SIGKILL');
    // The whole cluster: its control plane's processes would keep this one alive.
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts story 2 in order, stops cleanly on Ctrl-C, and keeps a history', async () => {
    // Prepare
    const child = spawn(process.execPath, ['lib/cli/main.ts', 'run', '--kubeconfig', join(dir, 'kubeconfig'), '--cluster', 'it', '--state-dir', join(dir, 'state')], { cwd: repo });
    run = child;
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    // Act & assess: the JobSet appears; every Job is created, only the message queue runs.
    await started().admin.createJobSet(withPodBehaviour(exampleJobSet('story2-messagequeue-driver-worker.yaml', NAME), HELD_FOR_EVER), NS);
    await eventually('all five Jobs created', async () => assert.equal((await jobsOf()).length, 5), 30_000);
    let jobs = await jobsOf();
    assert.deepEqual([running(jobs, 'messagequeue'), running(jobs, 'driver'), running(jobs, 'worker')], [1, 0, 0], output);

    await markReady('messagequeue');
    await eventually('drivers released', async () => assert.equal(running(await jobsOf(), 'driver'), 2), 30_000);
    jobs = await jobsOf();
    assert.equal(running(jobs, 'worker'), 0, 'workers wait for the drivers');

    await markReady('driver');
    await eventually('workers released', async () => assert.equal(running(await jobsOf(), 'worker'), 2), 30_000);
    await markReady('worker');
    await eventually('startup completed', async () => {
      const jobSet = await started().admin.getJobSet(NS, NAME);
      assert.equal(jobSet?.status?.conditions?.find((c) => c.type === 'StartupPolicyCompleted')?.status, 'True');
    }, 30_000);

    child.kill('SIGINT');
    assert.equal(await exited, 0, output);
    assert.match(output, /stopped; counters:/);

    const history = await runLineup(['history', `it/${NS}/${NAME}`, '--state-dir', join(dir, 'state')], process.env);
    assert.equal(history.code, 0, history.stderr);
    // The first pass creates the messagequeue's Job running and the four gated ones suspended.
    assert.match(history.stdout, /CreateJob×1 GateOpened: InOrder: first replicatedJob/);
    assert.match(history.stdout, /CreateJob×4 StartupRuleHeld: InOrder: waiting for messagequeue to be Ready/);
    assert.match(history.stdout, /ResumeJob×2 GateOpened: InOrder: messagequeue Ready 1\/1/);
    assert.match(history.stdout, /ResumeJob×2 GateOpened: InOrder: driver Ready 2\/2/);
    // Where the time went: each of story 2's three gates, timed from its pass's event to the pass and its writes done.
    const summary = history.stdout.slice(history.stdout.indexOf("where the time went, from each gate's event to the pass that opened it:\n"));
    const gates = [...summary.matchAll(/^ {2}pass \d+ {2}\S+ {2}(.+)\n {4}after .+\n {4}event→pass (\d+) ms, event→writes done (\d+) ms: /gm)];
    assert.deepEqual(gates.map((gate) => gate[1]), ['InOrder: first replicatedJob', 'InOrder: messagequeue Ready 1/1', 'InOrder: driver Ready 2/2'], summary);
    for (const gate of gates) assert.ok(Number(gate[3]) >= Number(gate[2]), `writes done before the pass started: ${gate[0]}`);
  });
});
