/**
 * KubeClusterGateway against a real kube-apiserver: every Action kind carried out as Lineup's
 * own user, whose ClusterRole is built from actionVerbs/observeVerbs (so the table is proven
 * complete), with the semantics lib/sim/cluster.ts models — preconditions, AlreadyExists,
 * deletes of missing objects, the Job status rules. Nothing is skipped: a server that cannot
 * start fails the suite.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_ACTION, Label, LineupKey } from '../../../lib/jobset/api.ts';
import { EVENT_NOTE_MAX_BYTES } from '../../../lib/k8s/eventNote.ts';
import { CounterName, Counters } from '../../../lib/counters.ts';
import { ErrorCode, InvalidObjectError } from '../../../lib/errors.ts';
import { PersistentVolumeClaimSchema } from '../../../lib/jobset/schema.ts';
import type { Job, JobSet, Toleration } from '../../../lib/jobset/schema.ts';
import { kubeConfigEndpoint } from '../../../lib/k8s/kubeConfigFile.ts';
import { actionVerbs, KubeClusterGateway, observeVerbs, EVENT_REPORTER } from '../../../lib/k8s/gateway.ts';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../../lib/plan/index.ts';
import type { Action, ActionKind, Plan } from '../../../lib/plan/types.ts';
import { inputsOf } from '../../../lib/reconcile/journal.ts';
import { afterWrites } from '../../../lib/reconcile/snapshot.ts';
import type { Written } from '../../../lib/reconcile/types.ts';
import { makeJobSet } from '../../builders.ts';
import type { KubeServer } from '../harness/index.ts';
import { jobNamed as childLikeJob } from '../../k8s/gatewayBehaviour.ts';
import { Admin, assertLineupError, COLD_START_TIMEOUT_MS, nowSeconds, startCluster } from './support.ts';

const NS = 'lineup-gateway';

/** jobNamed: a child-like Job in this file's namespace (nothing runs it: no controller manager, no kubelet). */
const jobNamed = (name: string, options: Parameters<typeof childLikeJob>[2] = {}): Job => childLikeJob(NS, name, options);

/** simpleJobSet: a one-replicatedJob JobSet managed by Lineup, as a user would create it. */
const simpleJobSet = (name: string): JobSet => {
  const built = makeJobSet(name, NS).replicatedJob('workers', 1).obj();
  const { uid: _uid, resourceVersion: _rv, ...metadata } = built.metadata;
  return { ...built, metadata };
};

describe('KubeClusterGateway against kube-apiserver', () => {
  let server: KubeServer | undefined;
  let admin: Admin;
  let gateway: KubeClusterGateway;
  const counters = new Counters();
  /** Verbs counted while each action kind (and observe) ran, for the last test. */
  const used = new Map<ActionKind | 'observe', Set<string>>();

  /** recordVerbs: run `work` and note which k8s.<verb> counters it moved under `key`. */
  const recordVerbs = async <T>(key: ActionKind | 'observe', work: () => Promise<T>): Promise<T> => {
    const before = counters.snapshot();
    try {
      return await work();
    } finally {
      const verbs = used.get(key) ?? new Set<string>();
      for (const [name, count] of Object.entries(counters.snapshot())) {
        if (name.startsWith(CounterName.KubePrefix) && name !== CounterName.KubeRetries && count > (before[name] ?? 0)) {
          verbs.add(name.slice(CounterName.KubePrefix.length));
        }
      }
      used.set(key, verbs);
    }
  };
  const apply = (jobSetName: string, action: Action): Promise<Written | void> => recordVerbs(action.kind, () => gateway.apply(NS, jobSetName, action, Date.now()));
  const observe = (name: string) => recordVerbs('observe', () => gateway.observe(NS, name, Date.now()));
  /** pass: one reconcile pass — observe, plan, apply every action in order. */
  const pass = async (name: string): Promise<Plan> => {
    const observed = await observe(name);
    assert.ok(observed, `jobset ${name} should exist`);
    const decided = plan(observed, DEFAULT_PLAN_OPTIONS);
    for (const action of decided.actions) await apply(name, action);
    return decided;
  };

  before(
    async () => {
      server = await startCluster();
      admin = new Admin(server);
      await admin.createNamespace(NS);
      // Lineup's own user: every request it makes must be granted by the verb tables.
      gateway = new KubeClusterGateway({ endpoint: kubeConfigEndpoint(server.kubeConfig('lineup')), counters });
    },
    { timeout: COLD_START_TIMEOUT_MS },
  );
  after(() => server?.stop());

  it('observe returns undefined for a JobSet that does not exist', async () => {
    assert.equal(await observe('no-such-jobset'), undefined);
  });

  it('runs an InOrder JobSet through plan() and apply(): Jobs, Service, status and Event, then resumes the next replicatedJob', async () => {
    // Prepare
    const name = 'story1';
    const created = await admin.createExampleJobSet('story1-driver-ready-worker-start.yaml', name, NS);

    // Act: first pass
    const first = await pass(name);

    // Assess: every child Job exists at once, the gated one suspended (docs/design.md#how-gating-works).
    const kinds = first.actions.map((action) => action.kind);
    for (const kind of ['CreateService', 'CreateJob', 'UpdateJobSetStatus', 'EmitEvent'] as const) assert.ok(kinds.includes(kind), `first pass should ${kind}: ${kinds.join(', ')}`);
    const driver = await admin.job(NS, `${name}-driver-0`);
    const workers = await admin.job(NS, `${name}-workers-0`);
    assert.equal(driver.spec.suspend, false);
    assert.equal(workers.spec.suspend, true);
    assert.equal(workers.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
    assert.equal(await admin.serviceExists(NS, name), true);
    const observed = await observe(name);
    assert.ok(observed);
    assert.deepEqual(observed.jobs.map((job) => job.metadata.name).sort(), [`${name}-driver-0`, `${name}-workers-0`]);
    assert.equal(observed.service?.metadata.name, name);
    assert.ok(observed.jobSet.status?.conditions?.some((c) => c.type === 'StartupPolicyInProgress' && c.status === 'True'));
    const events = await admin.eventsOf(NS, name);
    const event = events.find((e) => e.reason === 'InOrderStartupPolicyInProgress');
    assert.ok(event, `an InOrderStartupPolicyInProgress event, got ${events.map((e) => e.reason).join(', ')}`);
    assert.equal(event.involvedObject.uid, created.metadata.uid);
    assert.equal(event.involvedObject.apiVersion, 'jobset.x-k8s.io/v1alpha2');
    assert.equal(event.type, 'Normal');
    assert.equal(event.action, EVENT_ACTION);
    assert.equal(event.reportingComponent, EVENT_REPORTER);
    assert.equal(event.source?.component, EVENT_REPORTER);
    assert.ok(event.eventTime, 'eventTime is set');
    assert.ok(event.firstTimestamp && event.lastTimestamp, 'first/lastTimestamp are set');
    assert.match(event.metadata.name ?? '', new RegExp(`^${name}\\.[0-9a-f]{16}$`));

    // Prepare: the driver runs and turns ready; the workers Job carries a startTime from an
    // earlier run, so resuming it must clear that first (upstream resumeJob).
    await admin.writeJobStatus(NS, `${name}-driver-0`, () => ({ startTime: nowSeconds(), active: 1, ready: 1 }));
    await admin.writeJobStatus(NS, `${name}-workers-0`, () => ({ startTime: nowSeconds() }));

    // Act: second pass
    const second = await pass(name);

    // Assess
    const resume = second.actions.find((action) => action.kind === 'ResumeJob');
    assert.ok(resume && resume.kind === 'ResumeJob', `second pass should resume the workers: ${second.reason}`);
    assert.equal(resume.clearStartTime, true);
    const resumed = await admin.job(NS, `${name}-workers-0`);
    assert.equal(resumed.spec.suspend, false);
    assert.equal(resumed.status?.startTime, undefined);

    // Act + Assess: a third pass on the same state creates and resumes nothing (level-triggered).
    const third = await pass(name);
    assert.deepEqual(
      third.actions.filter((action) => action.kind === 'CreateJob' || action.kind === 'ResumeJob' || action.kind === 'CreateService'),
      [],
    );
  });

  it('answers each write with what it left, and observe(since) reads the JobSet only when it changed and the Jobs only when one did', async () => {
    // Prepare + Act: a first pass, keeping what each write answered.
    const name = 'answers';
    await admin.createExampleJobSet('story1-driver-ready-worker-start.yaml', name, NS);
    const observed = await observe(name);
    assert.ok(observed);
    const decided = plan(observed, DEFAULT_PLAN_OPTIONS);
    const written: (Written | void)[] = [];
    for (const action of decided.actions) written.push(await apply(name, action));
    // Assess: every write but the Event answered with the object as the server stored it.
    const driverName = `${name}-driver-0`;
    const answeredDriver = written.find((w) => w?.kind === 'Job' && w.job.metadata.name === driverName);
    assert.ok(answeredDriver?.kind === 'Job');
    assert.equal(answeredDriver.job.metadata.resourceVersion, (await admin.job(NS, driverName)).metadata.resourceVersion);
    assert.ok(written.some((w) => w?.kind === 'Service' && w.service.metadata.name === name));
    assert.ok(written.some((w) => w?.kind === 'Unchanged'), 'the Event changed nothing a pass reads');
    const snapshot = afterWrites(observed, written);
    assert.ok(snapshot, 'every write answered');
    const requests = () => Object.entries(counters.snapshot()).filter(([counter]) => counter.startsWith(CounterName.KubePrefix)).reduce((sum, [, count]) => sum + count, 0);

    // Act + Assess: nothing changed — nothing read, and the snapshot is what a full read sees.
    let before = requests();
    const unchanged = await gateway.observe(NS, name, Date.now(), { observed: snapshot, jobSetChanged: false, jobs: [] });
    assert.equal(requests() - before, 0);
    const full = await observe(name);
    assert.ok(unchanged && full);
    assert.deepEqual(inputsOf(unchanged), inputsOf(full), 'the answers are what the server holds');

    // Act + Assess: the driver turns ready — one LIST of the Jobs, the JobSet and Service as held.
    await admin.writeJobStatus(NS, driverName, () => ({ startTime: nowSeconds(), active: 1, ready: 1 }));
    before = requests();
    const changed = await recordVerbs('observe', () => gateway.observe(NS, name, Date.now(), { observed: snapshot, jobSetChanged: false, jobs: [driverName] }));
    assert.equal(requests() - before, 1, 'one LIST');
    assert.equal(changed?.jobs.find((job) => job.metadata.name === driverName)?.status?.ready, 1);
    assert.deepEqual(changed?.jobs.map((job) => job.metadata.name), full.jobs.map((job) => job.metadata.name));
    assert.equal(changed?.jobSet, snapshot.jobSet);
    before = requests();
    const jobSetRead = await recordVerbs('observe', () => gateway.observe(NS, name, Date.now(), { observed: snapshot, jobSetChanged: true, jobs: [] }));
    assert.equal(requests() - before, 1, 'one GET of the JobSet');
    assert.equal(jobSetRead?.jobSet.metadata.resourceVersion, full.jobSet.metadata.resourceVersion);
  });

  it('CreateJob of an existing name fails with AlreadyExistsError; CreateService of an existing Service succeeds', async () => {
    // Prepare
    const job = jobNamed('twice');
    await apply('loose-jobs', { kind: 'CreateJob', job, replicatedJob: 'workers' });
    const service = { apiVersion: 'v1' as const, kind: 'Service' as const, metadata: { name: 'twice', namespace: NS }, spec: { clusterIP: 'None', selector: { app: 'x' } } };
    await apply('loose-jobs', { kind: 'CreateService', service });
    // Act + Assess
    await assertLineupError(apply('loose-jobs', { kind: 'CreateJob', job, replicatedJob: 'workers' }), ErrorCode.ALREADY_EXISTS);
    await apply('loose-jobs', { kind: 'CreateService', service });
    assert.equal(await admin.serviceExists(NS, 'twice'), true);
  });

  it('CreatePersistentVolumeClaim creates the claim as given; creating it again succeeds and keeps the stored one', async () => {
    // Prepare
    const claim = {
      apiVersion: 'v1' as const,
      kind: 'PersistentVolumeClaim' as const,
      metadata: { name: 'twice', namespace: NS, labels: { [Label.JobSetName]: 'loose-jobs' }, annotations: { note: 'kept' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    };
    // Act
    await apply('loose-jobs', { kind: 'CreatePersistentVolumeClaim', claim });
    const path = `/api/v1/namespaces/${NS}/persistentvolumeclaims/twice`;
    const first = await server?.request('GET', path);
    await apply('loose-jobs', { kind: 'CreatePersistentVolumeClaim', claim: { ...claim, spec: { ...claim.spec, accessModes: ['ReadWriteMany'] } } });
    const second = await server?.request('GET', path);
    // Assess
    assert.equal(first?.status, 200, first?.body.slice(0, 300));
    const stored = PersistentVolumeClaimSchema.parse(JSON.parse(first?.body ?? '{}'));
    assert.deepEqual([stored.metadata.labels, stored.metadata.annotations], [{ [Label.JobSetName]: 'loose-jobs' }, { note: 'kept' }]);
    assert.deepEqual((stored.spec as { accessModes?: unknown } | undefined)?.accessModes, ['ReadWriteOnce']);
    assert.equal(PersistentVolumeClaimSchema.parse(JSON.parse(second?.body ?? '{}')).metadata.resourceVersion, stored.metadata.resourceVersion, 'the stored claim is untouched');
  });

  it('SuspendJob sets spec.suspend, and refuses a stale resourceVersion with ConflictError', async () => {
    // Prepare
    const created = await admin.createJob(jobNamed('to-suspend', { suspend: false }), NS);
    const stale = created.metadata.resourceVersion;
    await admin.writeJobStatus(NS, 'to-suspend', () => ({ startTime: nowSeconds(), active: 1 }));
    // Act + Assess: the status write moved the resourceVersion on.
    await assertLineupError(apply('loose-jobs', { kind: 'SuspendJob', name: 'to-suspend', replicatedJob: 'workers', resourceVersion: stale }), ErrorCode.STALE_RESOURCE_VERSION);
    assert.equal((await admin.job(NS, 'to-suspend')).spec.suspend, false);
    const current = await admin.job(NS, 'to-suspend');
    await apply('loose-jobs', { kind: 'SuspendJob', name: 'to-suspend', replicatedJob: 'workers', resourceVersion: current.metadata.resourceVersion });
    assert.equal((await admin.job(NS, 'to-suspend')).spec.suspend, true);
  });

  it('ResumeJob clears startTime through the status subresource, merges the pod template (lists sent whole) and un-suspends', async () => {
    // Prepare: a suspended Job that ran before (startTime) and that the Job controller marked Suspended.
    const a: Toleration = { key: 'a', operator: 'Exists', effect: 'NoSchedule' };
    const b: Toleration = { key: 'b', operator: 'Equal', value: 'x', effect: 'NoExecute' };
    await admin.createJob(jobNamed('to-resume', { tolerations: [a] }), NS);
    await admin.writeJobStatus(NS, 'to-resume', () => ({ startTime: nowSeconds() }));
    const marked = await admin.markSuspended(NS, 'to-resume');
    // Act
    await apply('loose-jobs', {
      kind: 'ResumeJob',
      name: 'to-resume',
      replicatedJob: 'workers',
      resourceVersion: marked.metadata.resourceVersion,
      clearStartTime: true,
      podTemplate: {
        labels: { app: 'worker', queue: 'gpu' },
        annotations: { keep: 'me', added: 'yes' },
        nodeSelector: { pool: 'gpu' },
        nodeSelectorRemoved: [],
        tolerations: [a, b],
        schedulingGates: [{ name: 'example.com/gate' }],
      },
    });
    // Assess
    const resumed = await admin.job(NS, 'to-resume');
    assert.equal(resumed.spec.suspend, false);
    assert.equal(resumed.status?.startTime, undefined);
    // Labels and annotations merge (the server's own labels stay); lists are exactly what was sent.
    assert.equal(resumed.spec.template.metadata?.labels?.queue, 'gpu');
    assert.equal(resumed.spec.template.metadata?.labels?.['batch.kubernetes.io/job-name'], 'to-resume');
    assert.deepEqual(resumed.spec.template.metadata?.annotations, { keep: 'me', added: 'yes' });
    assert.deepEqual(resumed.spec.template.spec?.nodeSelector, { pool: 'gpu' });
    assert.deepEqual(resumed.spec.template.spec?.tolerations, [a, b]);
    assert.deepEqual(resumed.spec.template.spec?.schedulingGates, [{ name: 'example.com/gate' }]);
  });

  it('ResumeJob with a stale resourceVersion fails with ConflictError and changes nothing', async () => {
    // Prepare
    const created = await admin.createJob(jobNamed('resume-stale'), NS);
    await admin.writeJobStatus(NS, 'resume-stale', () => ({ startTime: nowSeconds() }));
    // Act + Assess: with and without the startTime clearing step.
    for (const clearStartTime of [true, false]) {
      await assertLineupError(
        apply('loose-jobs', { kind: 'ResumeJob', name: 'resume-stale', replicatedJob: 'workers', resourceVersion: created.metadata.resourceVersion, clearStartTime, podTemplate: undefined }),
        ErrorCode.STALE_RESOURCE_VERSION,
      );
    }
    const job = await admin.job(NS, 'resume-stale');
    assert.equal(job.spec.suspend, true);
    assert.notEqual(job.status?.startTime, undefined);
  });

  it('ResumeJob changing the template of a started Job not yet marked Suspended is a conflict to re-plan (422 on spec.template)', async () => {
    // Prepare: ran, then suspended, but no Suspended condition yet (the Job controller lags).
    await admin.createJob(jobNamed('not-yet-suspended', { suspend: false }), NS);
    await admin.writeJobStatus(NS, 'not-yet-suspended', () => ({ startTime: nowSeconds(), active: 1 }));
    await apply('loose-jobs', { kind: 'SuspendJob', name: 'not-yet-suspended', replicatedJob: 'workers', resourceVersion: undefined });
    // Act: planned from a view without the startTime, so nothing clears it first.
    const error = await assertLineupError(
      apply('loose-jobs', {
        kind: 'ResumeJob',
        name: 'not-yet-suspended',
        replicatedJob: 'workers',
        resourceVersion: undefined,
        clearStartTime: false,
        podTemplate: { labels: { app: 'worker', extra: 'label' }, annotations: {}, nodeSelector: {}, nodeSelectorRemoved: [], tolerations: [], schedulingGates: [] },
      }),
      ErrorCode.STALE_RESOURCE_VERSION,
    );
    // Assess: the server's refusal is kept as the cause; the Job is untouched.
    assert.ok(error.cause instanceof InvalidObjectError);
    assert.ok(error.cause.causes.some((cause) => cause.path === 'spec.template'), JSON.stringify(error.cause.causes));
    assert.equal((await admin.job(NS, 'not-yet-suspended')).spec.suspend, true);
  });

  it('DeleteJob honours the uid precondition and treats a missing Job as deleted', async () => {
    // Prepare
    const created = await admin.createJob(jobNamed('to-delete'), NS);
    // Act + Assess
    await assertLineupError(apply('loose-jobs', { kind: 'DeleteJob', name: 'to-delete', uid: '00000000-0000-0000-0000-000000000000', propagation: 'Background', reason: 'test' }), ErrorCode.STALE_RESOURCE_VERSION);
    assert.ok(await admin.getJob(NS, 'to-delete'));
    await apply('loose-jobs', { kind: 'DeleteJob', name: 'to-delete', uid: created.metadata.uid, propagation: 'Background', reason: 'test' });
    assert.equal(await admin.getJob(NS, 'to-delete'), undefined);
    await apply('loose-jobs', { kind: 'DeleteJob', name: 'to-delete', uid: created.metadata.uid, propagation: 'Foreground', reason: 'test' });
  });

  it('DeleteJob in the foreground leaves the Job to the garbage collector (deletionTimestamp, foregroundDeletion)', async () => {
    // Prepare
    const created = await admin.createJob(jobNamed('to-delete-fg'), NS);
    // Act
    await apply('loose-jobs', { kind: 'DeleteJob', name: 'to-delete-fg', uid: created.metadata.uid, propagation: 'Foreground', reason: 'test' });
    // Assess: no garbage collector runs in the test cluster, so the Job waits for it.
    const deleting = await admin.job(NS, 'to-delete-fg');
    assert.ok(deleting.metadata.deletionTimestamp);
    assert.ok(deleting.metadata.finalizers?.includes('foregroundDeletion'));
  });

  it('RemoveJobFinalizer removes only its finalizer, is a no-op when it is absent, and lets a deleted Job go', async () => {
    // Prepare
    const other = 'example.com/keep';
    await admin.createJob(jobNamed('held', { finalizers: [LineupKey.FinishedRecordFinalizer, other] }), NS);
    // Act + Assess: only Lineup's finalizer goes.
    await apply('loose-jobs', { kind: 'RemoveJobFinalizer', name: 'held', resourceVersion: undefined, finalizer: LineupKey.FinishedRecordFinalizer });
    assert.deepEqual((await admin.job(NS, 'held')).metadata.finalizers, [other]);
    const before = (await admin.job(NS, 'held')).metadata.resourceVersion;
    await apply('loose-jobs', { kind: 'RemoveJobFinalizer', name: 'held', resourceVersion: undefined, finalizer: LineupKey.FinishedRecordFinalizer });
    assert.equal((await admin.job(NS, 'held')).metadata.resourceVersion, before, 'no write when the finalizer is absent');

    // Prepare: a deleted Job held only by Lineup's finalizer.
    const held = await admin.createJob(jobNamed('held-deleted', { finalizers: [LineupKey.FinishedRecordFinalizer] }), NS);
    await apply('loose-jobs', { kind: 'DeleteJob', name: 'held-deleted', uid: held.metadata.uid, propagation: 'Background', reason: 'test' });
    const deleting = await admin.job(NS, 'held-deleted');
    assert.ok(deleting.metadata.deletionTimestamp);
    // Act + Assess
    await apply('loose-jobs', { kind: 'RemoveJobFinalizer', name: 'held-deleted', resourceVersion: deleting.metadata.resourceVersion, finalizer: LineupKey.FinishedRecordFinalizer });
    assert.equal(await admin.getJob(NS, 'held-deleted'), undefined);
    // A missing Job has no finalizer left to remove.
    await apply('loose-jobs', { kind: 'RemoveJobFinalizer', name: 'held-deleted', resourceVersion: undefined, finalizer: LineupKey.FinishedRecordFinalizer });
  });

  it('RemoveJobFinalizer with a stale resourceVersion fails with ConflictError', async () => {
    // Prepare
    const created = await admin.createJob(jobNamed('held-stale', { finalizers: [LineupKey.FinishedRecordFinalizer] }), NS);
    await admin.writeJobStatus(NS, 'held-stale', () => ({ startTime: nowSeconds() }));
    // Act + Assess
    await assertLineupError(
      apply('loose-jobs', { kind: 'RemoveJobFinalizer', name: 'held-stale', resourceVersion: created.metadata.resourceVersion, finalizer: LineupKey.FinishedRecordFinalizer }),
      ErrorCode.STALE_RESOURCE_VERSION,
    );
    assert.deepEqual((await admin.job(NS, 'held-stale')).metadata.finalizers, [LineupKey.FinishedRecordFinalizer]);
  });

  it('PatchJobSetAnnotations sets keys and deletes those given as null, and refuses a stale resourceVersion', async () => {
    // Prepare
    const name = 'annotated';
    const created = await admin.createJobSet(simpleJobSet(name), NS);
    // Act: conditional on the current resourceVersion.
    await apply(name, { kind: 'PatchJobSetAnnotations', resourceVersion: created.metadata.resourceVersion, annotations: { 'example.com/a': '1', 'example.com/b': '2' } });
    // Assess
    const patched = await admin.getJobSet(NS, name);
    assert.equal(patched?.metadata.annotations?.['example.com/a'], '1');
    assert.equal(patched?.metadata.annotations?.['example.com/b'], '2');
    // Act + Assess: the same resourceVersion is stale now.
    await assertLineupError(
      apply(name, { kind: 'PatchJobSetAnnotations', resourceVersion: created.metadata.resourceVersion, annotations: { 'example.com/a': null } }),
      ErrorCode.STALE_RESOURCE_VERSION,
    );
    // Act + Assess: unconditional, null deletes.
    await apply(name, { kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { 'example.com/a': null } });
    const after = await admin.getJobSet(NS, name);
    assert.equal(after?.metadata.annotations?.['example.com/a'], undefined);
    assert.equal(after?.metadata.annotations?.['example.com/b'], '2');
  });

  it('UpdateJobSetStatus replaces the status subresource; a stale resourceVersion is a ConflictError; without one it replaces unconditionally', async () => {
    // Prepare
    const name = 'with-status';
    const created = await admin.createJobSet(simpleJobSet(name), NS);
    const condition = { type: 'StartupPolicyCompleted', status: 'True' as const, reason: 'DependsOnStartupCompleted', message: 'done', lastTransitionTime: nowSeconds() };
    // Act
    await apply(name, { kind: 'UpdateJobSetStatus', resourceVersion: created.metadata.resourceVersion, status: { restarts: 1, conditions: [condition] } });
    // Assess
    const written = await admin.getJobSet(NS, name);
    assert.equal(written?.status?.restarts, 1);
    assert.deepEqual(written?.status?.conditions, [condition]);
    assert.deepEqual(written?.spec, created.spec, 'a status write leaves the spec alone');
    // Act + Assess: stale.
    await assertLineupError(apply(name, { kind: 'UpdateJobSetStatus', resourceVersion: created.metadata.resourceVersion, status: { restarts: 2 } }), ErrorCode.STALE_RESOURCE_VERSION);
    assert.equal((await admin.getJobSet(NS, name))?.status?.restarts, 1);
    // Act + Assess: unconditional replace (the conditions are gone: the status is replaced whole).
    await apply(name, { kind: 'UpdateJobSetStatus', resourceVersion: undefined, status: { restarts: 3 } });
    const replaced = await admin.getJobSet(NS, name);
    assert.equal(replaced?.status?.restarts, 3);
    assert.equal(replaced?.status?.conditions, undefined);
  });

  it('EmitEvent records a core/v1 Event on the JobSet, its message cut to the API limit', async () => {
    // Prepare: a JobSet observe() has not seen, so the gateway reads its uid itself.
    const name = 'eventful';
    const created = await admin.createJobSet(simpleJobSet(name), NS);
    const long = `${'é'.repeat(EVENT_NOTE_MAX_BYTES)}end`;
    // Act
    await apply(name, { kind: 'EmitEvent', eventType: 'Warning', reason: 'JobCreationFailed', message: long });
    // Assess
    const events = await admin.eventsOf(NS, name);
    assert.equal(events.length, 1);
    const [event] = events;
    assert.ok(event);
    assert.equal(event.type, 'Warning');
    assert.equal(event.reason, 'JobCreationFailed');
    assert.equal(event.involvedObject.uid, created.metadata.uid);
    assert.equal(event.involvedObject.kind, 'JobSet');
    assert.equal(event.count, 1);
    assert.ok(Buffer.byteLength(event.message ?? '', 'utf8') <= EVENT_NOTE_MAX_BYTES);
    assert.ok((event.message ?? '').startsWith('éé'));
  });

  it('DeleteJobSet deletes in the foreground with the uid precondition; a missing JobSet is already deleted', async () => {
    // Prepare
    const name = 'expired-ttl';
    const created = await admin.createJobSet(simpleJobSet(name), NS);
    // Act + Assess: wrong uid.
    await assertLineupError(apply(name, { kind: 'DeleteJobSet', uid: '00000000-0000-0000-0000-000000000000', propagation: 'Foreground' }), ErrorCode.STALE_RESOURCE_VERSION);
    assert.equal((await admin.getJobSet(NS, name))?.metadata.deletionTimestamp, undefined);
    // Act + Assess: foreground deletion waits for the garbage collector, which this cluster lacks.
    await apply(name, { kind: 'DeleteJobSet', uid: created.metadata.uid, propagation: 'Foreground' });
    const deleting = await admin.getJobSet(NS, name);
    assert.ok(deleting?.metadata.deletionTimestamp);
    assert.ok(deleting?.metadata.finalizers?.includes('foregroundDeletion'));
    await apply('never-created', { kind: 'DeleteJobSet', uid: undefined, propagation: 'Foreground' });
  });

  it('writes to a missing object fail with NotFoundError', async () => {
    await assertLineupError(apply('loose-jobs', { kind: 'SuspendJob', name: 'missing-job', replicatedJob: 'workers', resourceVersion: undefined }), ErrorCode.NOT_FOUND);
    await assertLineupError(
      apply('loose-jobs', { kind: 'ResumeJob', name: 'missing-job', replicatedJob: 'workers', resourceVersion: undefined, clearStartTime: true, podTemplate: undefined }),
      ErrorCode.NOT_FOUND,
    );
    await assertLineupError(apply('missing-jobset', { kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { a: 'b' } }), ErrorCode.NOT_FOUND);
    await assertLineupError(apply('missing-jobset', { kind: 'UpdateJobSetStatus', resourceVersion: undefined, status: {} }), ErrorCode.NOT_FOUND);
    await assertLineupError(apply('missing-jobset', { kind: 'UpdateJobSetStatus', resourceVersion: '1', status: {} }), ErrorCode.NOT_FOUND);
  });

  it('every action kind was carried out, using only the verbs actionVerbs lists for it (observe: observeVerbs)', () => {
    const declared = (accesses: readonly { verbs: readonly string[] }[]): Set<string> => new Set(accesses.flatMap((access) => access.verbs));
    for (const [kind, accesses] of Object.entries(actionVerbs) as [ActionKind, (typeof actionVerbs)[ActionKind]][]) {
      const verbs = used.get(kind);
      assert.ok(verbs, `${kind} was never applied in this suite`);
      const allowed = declared(accesses);
      for (const verb of verbs) assert.ok(allowed.has(verb), `${kind} used ${verb}, which actionVerbs does not list (${[...allowed].join(', ')})`);
    }
    const allowed = declared(observeVerbs);
    for (const verb of used.get('observe') ?? []) assert.ok(allowed.has(verb), `observe used ${verb}, which observeVerbs does not list`);
    assert.equal(counters.get(CounterName.KubeRetries), 0, 'a healthy server needs no retries');
  });
});
