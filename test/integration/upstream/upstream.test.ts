/**
 * The upstream JobSet controller (sigs.k8s.io/jobset, pinned in bench/upstream/versions.env,
 * built from the Go module proxy by bench/upstream/build.sh) against the harness's real
 * kube-apiserver: the baseline side of the side-by-side benchmark.
 *
 * KEP-104 story 2 (messagequeue → driver → worker, InOrder) with spec.managedBy removed, so
 * upstream reconciles it. Upstream's webhooks are not registered for that namespace, so the
 * manifest carries the fields its mutating webhook would default. The Jobs run on the real
 * control plane (test/integration/e2e/cluster.ts: the Job controller, the scheduler, a kwok node),
 * their pods held Pending until the test releases a stage's pods Ready; the Job controller writes
 * every Job status. The test checks that upstream creates the next replicatedJob's Jobs only once
 * the Job controller counts the stage ready (upstream delays creation; it never creates them
 * suspended) and sets StartupPolicyInProgress, then StartupPolicyCompleted.
 *
 * Printed, not asserted: per stage, the time from the Job controller's last status write before
 * the next stage's Jobs were created (the one that made the stage ready) to their creation, from the API server's audit log (server clock) and as this client saw it;
 * and every API write upstream made for the startup.
 *
 * A second case registers upstream's JobSet webhooks (served by the controller with a
 * self-signed certificate) for another namespace only, and checks that they default and validate.
 *
 * Nothing here is skipped: if the controller cannot be built or started, `before` throws with the
 * build output or the controller's log.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { examplePath } from '../../repoFiles.ts';
import { HELD_FOR_EVER, startE2eCluster, type E2eCluster } from '../e2e/cluster.ts';
import type { KubeServer } from '../harness/index.ts';
import { story2Manifest } from '../harness/story2.ts';
import {
  auditedApiServerArgs,
  describeWrites,
  startUpstreamController,
  upstreamPinnedVersion,
  type ApiServerAudit,
  type AuditedWrite,
  type UpstreamController,
} from '../harness/upstream.ts';
import { isObject, type JsonObject } from '../../../lib/json.ts';

/** COLD_START_TIMEOUT_MS: a first run builds kube-apiserver and the upstream controller (minutes). */
const COLD_START_TIMEOUT_MS = 30 * 60_000;
/** STEP_TIMEOUT_MS: how long upstream may take to react to one change. */
const STEP_TIMEOUT_MS = 30_000;

const NS = 'upstream-inorder';
const WEBHOOK_NS = 'upstream-webhooks';
const NAME = 'messagequeue-driver-worker';
const JOBSET_NAME_LABEL = 'jobset.sigs.k8s.io/jobset-name';
const REPLICATED_JOB_LABEL = 'jobset.sigs.k8s.io/replicatedjob-name';
const JOBSETS = '/apis/jobset.x-k8s.io/v1alpha2';

/** at: the value at a path of keys and indexes, or undefined. */
const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((current, key) => {
    if (typeof key === 'number') return Array.isArray(current) ? current[key] : undefined;
    return isObject(current) ? current[key] : undefined;
  }, value);

let cluster: E2eCluster | undefined;
let kube: KubeServer | undefined;
let audit: ApiServerAudit | undefined;
let upstream: UpstreamController | undefined;

/** api: a raw admin request that must answer 2xx; returns the JSON body. */
const api = async (method: string, path: string, body?: unknown): Promise<JsonObject> => {
  assert.ok(kube, 'kube-apiserver is not running');
  const response = await kube.request(method, path, body);
  assert.ok(response.status >= 200 && response.status < 300, `${method} ${path}: HTTP ${response.status} ${response.body.slice(0, 1_000)}`);
  const parsed: unknown = JSON.parse(response.body);
  assert.ok(isObject(parsed), `${method} ${path}: not a JSON object`);
  return parsed;
};

/** eventually: retries `check` every `intervalMs` until it returns a value (not undefined); then the value. */
const eventually = async <T>(what: string, check: () => Promise<T | undefined>, intervalMs = 10): Promise<T> => {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const log = upstream === undefined ? '' : `\n${upstream.process.failure('log at the time of the failure').message}`;
      assert.fail(`${what}: not within ${STEP_TIMEOUT_MS} ms${log}`);
    }
    await sleep(intervalMs);
  }
};

/** story2: KEP-104 story 2 as upstream takes it (harness/story2.ts), its pods held Pending until the test releases them Ready (JobDriver.markReady), then running for ever. */
const story2 = (): JsonObject => ({ ...story2Manifest(HELD_FOR_EVER), metadata: { name: NAME, namespace: NS } });

/** jobsOf: the JobSet's child Jobs. */
const jobsOf = async (namespace: string, jobSet: string): Promise<JsonObject[]> => {
  const list = await api('GET', `/apis/batch/v1/namespaces/${namespace}/jobs?labelSelector=${encodeURIComponent(`${JOBSET_NAME_LABEL}=${jobSet}`)}`);
  return (Array.isArray(list.items) ? list.items : []).filter(isObject);
};

const replicatedJobOf = (job: JsonObject): string => String(at(job, 'metadata', 'labels', REPLICATED_JOB_LABEL));
const nameOf = (object: JsonObject): string => String(at(object, 'metadata', 'name'));

/** conditionOf: the JobSet's condition of `type`, or undefined. */
const conditionOf = (jobSet: JsonObject, type: string): JsonObject | undefined => {
  const conditions = at(jobSet, 'status', 'conditions');
  return Array.isArray(conditions) ? conditions.find((c: unknown): c is JsonObject => isObject(c) && c.type === type) : undefined;
};

const upstreamWrites = (): AuditedWrite[] => {
  assert.ok(audit && upstream);
  const prefix = upstream.userAgentPrefix;
  return audit.writes().filter((write) => write.userAgent.startsWith(prefix));
};

describe(`upstream JobSet controller ${upstreamPinnedVersion()} against a real kube-apiserver`, { timeout: COLD_START_TIMEOUT_MS }, () => {
  before(async () => {
    audit = auditedApiServerArgs();
    cluster = await startE2eCluster({ extraApiServerArgs: audit.args });
    kube = cluster.kube;
    upstream = await startUpstreamController(kube, { webhooks: { namespaces: [WEBHOOK_NS] } });
    console.log(
      `upstream: ${upstream.binary.path} (${upstream.binary.from}, found/built in ${upstream.binary.buildMs} ms); ` +
        `JobSet controller started ${upstream.startToReadyMs} ms after spawn; log ${upstream.logPath}`,
    );
    for (const name of [NS, WEBHOOK_NS]) await api('POST', '/api/v1/namespaces', { metadata: { name } });
  });
  after(async () => {
    await upstream?.stop();
    // The whole cluster: its control plane's processes would keep this one alive.
    await cluster?.stop();
    await audit?.remove();
  });

  it('starts story 2 (InOrder, no managedBy) stage by stage, creating each stage after the previous one is ready', async () => {
    assert.ok(upstream);
    const stages = ['messagequeue', 'driver', 'worker'];
    const jobsPerStage: Record<string, number> = { messagequeue: 1, driver: 2, worker: 2 };

    const created = await api('POST', `${JOBSETS}/namespaces/${NS}/jobsets`, story2());
    const createdAt = Date.now();
    assert.equal(at(created, 'spec', 'managedBy'), undefined, 'the JobSet must have no managedBy, so upstream reconciles it');

    const figures: string[] = [];
    for (const [index, stage] of stages.entries()) {
      // This stage's Jobs exist (created running), no later stage's do.
      const jobs = await eventually(`${stage}'s ${jobsPerStage[stage]} Jobs created`, async () => {
        const all = await jobsOf(NS, NAME);
        const mine = all.filter((job) => replicatedJobOf(job) === stage);
        return mine.length === jobsPerStage[stage] ? all : undefined;
      });
      const seenAt = Date.now();
      const later = jobs.filter((job) => stages.indexOf(replicatedJobOf(job)) > index);
      assert.deepEqual(later.map(nameOf), [], `no Job of a later stage may exist while ${stage} is starting`);
      for (const job of jobs.filter((j) => replicatedJobOf(j) === stage)) {
        assert.notEqual(at(job, 'spec', 'suspend'), true, `upstream creates ${nameOf(job)} running, not suspended`);
        assert.equal(at(job, 'spec', 'completionMode'), 'Indexed');
      }

      const jobSet = await eventually(`StartupPolicyInProgress while ${stage} starts`, async () => {
        const current = await api('GET', `${JOBSETS}/namespaces/${NS}/jobsets/${NAME}`);
        return at(conditionOf(current, 'StartupPolicyInProgress'), 'status') === 'True' ? current : undefined;
      });
      assert.equal(at(conditionOf(jobSet, 'StartupPolicyInProgress'), 'reason'), 'InOrderStartupPolicyInProgress');
      assert.equal(conditionOf(jobSet, 'StartupPolicyCompleted'), undefined, 'not completed while a stage is still starting');

      if (index === 0) {
        const serverCreates = upstreamWrites().filter((w) => w.verb === 'create' && w.resource === 'jobs');
        const jobSetCreate = audit?.writes().find((w) => w.verb === 'create' && w.resource === 'jobsets' && w.name === NAME);
        const firstJob = serverCreates[0];
        figures.push(
          `JobSet created → ${stage} Jobs created: ${jobSetCreate && firstJob ? (firstJob.at - jobSetCreate.at).toFixed(1) : '?'} ms (audit), ` +
            `${seenAt - createdAt} ms (client)`,
        );
      }

      // Release this stage's pods Ready; the Job controller counts them (JobDriver waits for that).
      const stageJobs = jobs.filter((job) => replicatedJobOf(job) === stage);
      for (const job of stageJobs) await cluster?.jobs.markReady(NS, nameOf(job));
      const readyAt = Date.now();

      const next = stages[index + 1];
      if (next === undefined) break;
      await eventually(`${next}'s Jobs created after ${stage} is ready`, async () => {
        const all = await jobsOf(NS, NAME);
        return all.filter((job) => replicatedJobOf(job) === next).length === jobsPerStage[next] ? all : undefined;
      }, 5);
      const nextSeenAt = Date.now();
      const nextCreates = upstreamWrites().filter((w) => w.verb === 'create' && w.resource === 'jobs' && (w.name ?? '').startsWith(`${NAME}-${next}-`));
      // The Job controller's status writes of this stage's Jobs; the last one received before the next stage's first create made
      // the stage ready (by when each was received: under load upstream's watch can see a write before its response completes).
      const readyWrites = audit?.writes().filter((w) => w.resource === 'jobs' && w.subresource === 'status' && stageJobs.some((j) => nameOf(j) === w.name) && w.receivedAt < (nextCreates[0]?.receivedAt ?? Infinity)) ?? [];
      const lastReady = readyWrites.at(-1);
      const server =
        lastReady && nextCreates.length > 0
          ? `${((nextCreates[0]?.at ?? 0) - lastReady.at).toFixed(1)} ms to the first, ${((nextCreates.at(-1)?.at ?? 0) - lastReady.at).toFixed(1)} ms to the last (audit)`
          : '? (audit)';
      figures.push(`${stage} ready (the Job controller's write) → ${next} Jobs created: ${server}, ${nextSeenAt - readyAt} ms (client, 5 ms polling)`);
    }

    const done = await eventually('StartupPolicyCompleted once the last stage is ready', async () => {
      const current = await api('GET', `${JOBSETS}/namespaces/${NS}/jobsets/${NAME}`);
      return at(conditionOf(current, 'StartupPolicyCompleted'), 'status') === 'True' ? current : undefined;
    });
    assert.equal(at(conditionOf(done, 'StartupPolicyCompleted'), 'reason'), 'InOrderStartupPolicyCompleted');
    assert.equal(at(conditionOf(done, 'StartupPolicyInProgress'), 'status'), 'False', 'InProgress turns False once completed');
    const jobs = await jobsOf(NS, NAME);
    assert.equal(jobs.length, 5, 'one messagequeue, two driver and two worker Jobs');
    const completedAt = Date.now();

    // Let trailing status updates and events land before counting.
    await sleep(1_000);
    const writes = upstreamWrites().filter((w) => w.namespace === NS);
    figures.push(`JobSet created → StartupPolicyCompleted seen: ${completedAt - createdAt} ms (client, includes the test's waits for each stage's pods)`);
    figures.push(`upstream API writes for the startup (${NS}): ${describeWrites(writes)}`);
    const failed = writes.filter((w) => w.code >= 400);
    if (failed.length > 0) figures.push(`  of which failed: ${describeWrites(failed)} (codes ${failed.map((w) => w.code).join(', ')})`);
    console.log(figures.map((line) => `upstream ${upstreamPinnedVersion()}: ${line}`).join('\n'));
    assert.ok(writes.some((w) => w.verb === 'create' && w.resource === 'jobs'), 'the audit log shows upstream creating Jobs');
  });

  it('serves its webhooks with a self-signed certificate where they are registered: defaults, then validates', async () => {
    // The plain example: no completionMode, no successPolicy; the mutating webhook adds them.
    const manifest: unknown = parse(readFileSync(examplePath('startup-driver-ready.yaml'), 'utf8'));
    assert.ok(isObject(manifest));
    const stored = await api('POST', `${JOBSETS}/namespaces/${WEBHOOK_NS}/jobsets`, { ...manifest, metadata: { name: 'driver-ready', namespace: WEBHOOK_NS } });
    assert.equal(at(stored, 'spec', 'replicatedJobs', 0, 'template', 'spec', 'completionMode'), 'Indexed', 'defaulted by the mutating webhook');
    assert.deepEqual(at(stored, 'spec', 'successPolicy'), { operator: 'All' });
    assert.equal(at(stored, 'spec', 'replicatedJobs', 0, 'template', 'spec', 'template', 'spec', 'restartPolicy'), 'OnFailure');
    await eventually('the driver Job created', async () => ((await jobsOf(WEBHOOK_NS, 'driver-ready')).length === 1 ? true : undefined));

    // dependsOn on the first replicatedJob is rejected by the validating webhook (the CRD alone accepts it).
    assert.ok(kube);
    const invalid = {
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: { name: 'first-depends', namespace: WEBHOOK_NS },
      spec: {
        replicatedJobs: [
          {
            name: 'a',
            dependsOn: [{ name: 'b', status: 'Ready' }],
            template: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
          },
          { name: 'b', template: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } },
        ],
      },
    };
    const response = await kube.request('POST', `${JOBSETS}/namespaces/${WEBHOOK_NS}/jobsets`, invalid);
    assert.ok(response.status >= 400, `expected a rejection, got HTTP ${response.status}`);
    assert.match(response.body, /vjobset\.kb\.io|DependsOn can't be set for the first ReplicatedJob/);
  });
});
