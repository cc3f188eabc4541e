/**
 * The real control plane minus kubelet (harness/controlPlane.ts): kube-controller-manager's Job
 * controller, TTL-after-finished controller and garbage collector, kube-scheduler and a kwok node,
 * on the test API server. Each case checks a behaviour of the real controllers that Lineup relies
 * on and that no stand-in shows by itself: Pods scheduled and run to completion, suspension
 * deleting Pods and resetting startTime, backoffLimit retries, garbage collection of dependents,
 * and ttlSecondsAfterFinished. A component that cannot start fails the suite with its log tail.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BatchV1Api, CoreV1Api, type V1Job, type V1JobCondition, type V1OwnerReference, type V1Pod } from '@kubernetes/client-node';
import {
  podAnnotations,
  startControlPlane,
  startKubeApiServer,
  type ControlPlane,
  type KubeServer,
  type PodBehaviour,
} from '../harness/index.ts';
import { eventually } from '../k8s/support.ts';

/** COLD_START_TIMEOUT_MS: a first run builds kube-apiserver, kube-controller-manager, kube-scheduler and kwok (minutes each). */
const COLD_START_TIMEOUT_MS = 30 * 60_000;
/** SETTLE_MS: how long a behaviour of the controllers may take to show on a loaded 2-core machine. */
const SETTLE_MS = 60_000;
/** RETRY_SETTLE_MS: the Job controller waits 10 s (its default pod-failure backoff) before replacing a failed Pod. */
const RETRY_SETTLE_MS = 90_000;
/** CASE_TIMEOUT_MS: one case's bound. */
const CASE_TIMEOUT_MS = 3 * 60_000;

interface JobOptions {
  readonly pods?: number;
  readonly backoffLimit?: number;
  readonly ttlSecondsAfterFinished?: number;
  readonly behaviour?: PodBehaviour;
  readonly ownerReferences?: readonly V1OwnerReference[];
}

/** jobManifest: a NonIndexed Job of `pods` Pods run at once, whose Pods behave as `behaviour` says on the kwok node. */
const jobManifest = (name: string, options: JobOptions = {}): V1Job => {
  const pods = options.pods ?? 1;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ...(options.ownerReferences === undefined ? {} : { ownerReferences: [...options.ownerReferences] }) },
    spec: {
      completions: pods,
      parallelism: pods,
      backoffLimit: options.backoffLimit ?? 0,
      ...(options.ttlSecondsAfterFinished === undefined ? {} : { ttlSecondsAfterFinished: options.ttlSecondsAfterFinished }),
      template: {
        metadata: { annotations: podAnnotations(options.behaviour ?? {}) },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.invalid/lineup-test:not-pulled' }] },
      },
    },
  };
};

/** condition: the Job's condition of `type`, if any. */
const condition = (job: V1Job, type: string): V1JobCondition | undefined => job.status?.conditions?.find((c) => c.type === type);

/** isTrue: the Job has condition `type` with status True. */
const isTrue = (job: V1Job, type: string): boolean => condition(job, type)?.status === 'True';

/** view: a short view of a Job's status for failure messages. */
const view = (job: V1Job): string =>
  JSON.stringify({
    active: job.status?.active,
    ready: job.status?.ready,
    succeeded: job.status?.succeeded,
    failed: job.status?.failed,
    terminating: job.status?.terminating,
    startTime: job.status?.startTime,
    conditions: job.status?.conditions?.map((c) => `${c.type}=${c.status}:${c.reason ?? ''}`),
  });

describe('a real control plane minus kubelet', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let kube: KubeServer;
  let controlPlane: ControlPlane;
  let batch: BatchV1Api;
  let core: CoreV1Api;
  let namespaces = 0;

  before(
    async (t) => {
      kube = await startKubeApiServer({ installJobSetCrd: false });
      try {
        controlPlane = await startControlPlane(kube);
      } catch (error) {
        await kube.stop();
        throw error;
      }
      t.diagnostic(`control plane ready in ${controlPlane.startToReadyMs} ms (kube-apiserver before it: ${kube.startToReadyMs} ms)`);
      batch = kube.kubeConfig('admin').makeApiClient(BatchV1Api);
      core = kube.kubeConfig('admin').makeApiClient(CoreV1Api);
    },
    { timeout: COLD_START_TIMEOUT_MS },
  );

  after(async () => {
    await controlPlane?.stop();
    await kube?.stop();
  });

  /** newNamespace: a fresh namespace for one case. */
  const newNamespace = async (): Promise<string> => {
    namespaces += 1;
    const name = `control-plane-${namespaces}`;
    await core.createNamespace({ body: { metadata: { name } } });
    return name;
  };

  const readJob = (namespace: string, name: string): Promise<V1Job> => batch.readNamespacedJob({ namespace, name });

  const podsOf = async (namespace: string, job: string): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace, labelSelector: `batch.kubernetes.io/job-name=${job}` })).items;

  /** jobGone: true once GET of the Job answers 404. */
  const jobGone = async (namespace: string, name: string): Promise<boolean> =>
    (await kube.request('GET', `/apis/batch/v1/namespaces/${namespace}/jobs/${name}`)).status === 404;

  it('runs a Job of 2 Pods to Complete: Pods scheduled onto the kwok node, Running and Ready, then Succeeded', { timeout: CASE_TIMEOUT_MS }, async () => {
    const namespace = await newNamespace();
    await batch.createNamespacedJob({ namespace, body: jobManifest('two-pods', { pods: 2, behaviour: { readyAfterMs: 200, finishAfterMs: 3_000 } }) });

    const ready = await eventually(
      'both Pods Running and Ready, counted by the Job controller',
      async () => {
        const job = await readJob(namespace, 'two-pods');
        assert.equal(job.status?.ready, 2, view(job));
        return job;
      },
      SETTLE_MS,
    );
    assert.equal(ready.status?.active, 2, view(ready));
    assert.ok(ready.status?.startTime, `a running Job has a startTime: ${view(ready)}`);
    const running = await podsOf(namespace, 'two-pods');
    assert.equal(running.length, 2);
    for (const pod of running) {
      assert.equal(pod.spec?.nodeName, controlPlane.nodeName, `${pod.metadata?.name} bound by the scheduler to the kwok node`);
      assert.equal(pod.status?.phase, 'Running');
      assert.ok(pod.metadata?.finalizers?.includes('batch.kubernetes.io/job-tracking'), 'the Job controller tracks its Pods with a finalizer');
    }

    const complete = await eventually(
      'the Job Complete',
      async () => {
        const job = await readJob(namespace, 'two-pods');
        assert.ok(isTrue(job, 'Complete'), view(job));
        return job;
      },
      SETTLE_MS,
    );
    assert.equal(complete.status?.succeeded, 2, view(complete));
    assert.ok(isTrue(complete, 'SuccessCriteriaMet'), `SuccessCriteriaMet precedes Complete: ${view(complete)}`);
    const { startTime, completionTime } = complete.status ?? {};
    assert.ok(startTime !== undefined && completionTime !== undefined, view(complete));
    assert.ok(new Date(completionTime).getTime() >= new Date(startTime).getTime(), `${String(completionTime)} >= ${String(startTime)}`);
    const finished = await podsOf(namespace, 'two-pods');
    assert.deepEqual(
      finished.map((pod) => pod.status?.phase),
      ['Succeeded', 'Succeeded'],
    );
    assert.ok(
      finished.every((pod) => !(pod.metadata?.finalizers ?? []).includes('batch.kubernetes.io/job-tracking')),
      'the Job controller releases its finalizer once it has counted a Pod',
    );
  });

  it('suspending a running Job deletes its Pods, resets startTime and counts no failure', { timeout: CASE_TIMEOUT_MS }, async () => {
    const namespace = await newNamespace();
    await batch.createNamespacedJob({ namespace, body: jobManifest('suspended', { pods: 2, behaviour: { readyAfterMs: 100, outcome: 'Running' } }) });
    await eventually(
      'both Pods Ready',
      async () => {
        const job = await readJob(namespace, 'suspended');
        assert.equal(job.status?.ready, 2, view(job));
        assert.ok(job.status?.startTime, view(job));
      },
      SETTLE_MS,
    );

    const patched = await kube.request('PATCH', `/apis/batch/v1/namespaces/${namespace}/jobs/suspended`, { spec: { suspend: true } }, { contentType: 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.body);

    const suspended = await eventually(
      'the Pods deleted and the Job Suspended',
      async () => {
        const job = await readJob(namespace, 'suspended');
        assert.ok(isTrue(job, 'Suspended'), view(job));
        assert.equal(job.status?.active ?? 0, 0, view(job));
        assert.equal(job.status?.terminating ?? 0, 0, view(job));
        assert.deepEqual(
          (await podsOf(namespace, 'suspended')).map((pod) => pod.metadata?.name),
          [],
        );
        return job;
      },
      SETTLE_MS,
    );
    assert.equal(suspended.status?.startTime, undefined, `suspension resets startTime: ${view(suspended)}`);
    assert.equal(suspended.status?.failed ?? 0, 0, `Pods deleted by suspension are not failures: ${view(suspended)}`);
    assert.equal(condition(suspended, 'Suspended')?.reason, 'JobSuspended');
  });

  it('a Job whose Pod fails with backoffLimit 1 retries once, then fails with BackoffLimitExceeded', { timeout: CASE_TIMEOUT_MS }, async () => {
    const namespace = await newNamespace();
    await batch.createNamespacedJob({
      namespace,
      body: jobManifest('retried', { backoffLimit: 1, behaviour: { readyAfterMs: 100, finishAfterMs: 500, outcome: 'Failed' } }),
    });

    const failedOnce = await eventually(
      'the first Pod failed and the Job still running',
      async () => {
        const job = await readJob(namespace, 'retried');
        assert.equal(job.status?.failed, 1, view(job));
        return job;
      },
      SETTLE_MS,
    );
    assert.ok(!isTrue(failedOnce, 'Failed'), `one failure is within backoffLimit 1: ${view(failedOnce)}`);

    const failed = await eventually(
      'the Job Failed',
      async () => {
        const job = await readJob(namespace, 'retried');
        assert.ok(isTrue(job, 'Failed'), view(job));
        return job;
      },
      RETRY_SETTLE_MS,
    );
    assert.equal(failed.status?.failed, 2, `the replacement Pod failed too: ${view(failed)}`);
    assert.equal(condition(failed, 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.ok(isTrue(failed, 'FailureTarget'), `FailureTarget precedes Failed: ${view(failed)}`);
    const pods = await podsOf(namespace, 'retried');
    assert.deepEqual(
      pods.map((pod) => pod.status?.phase),
      ['Failed', 'Failed'],
      'two Pods ran: the first and its one retry',
    );
  });

  it('the garbage collector deletes dependents: background propagation from a ConfigMap owner, foreground from a Job', { timeout: CASE_TIMEOUT_MS }, async () => {
    const namespace = await newNamespace();
    const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'owner' } } });
    const ownerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' };
    await batch.createNamespacedJob({ namespace, body: jobManifest('owned', { pods: 2, behaviour: { outcome: 'Running' }, ownerReferences: [ownerReference] }) });
    await batch.createNamespacedJob({ namespace, body: jobManifest('foreground', { pods: 2, behaviour: { outcome: 'Running' } }) });
    await eventually(
      'both Jobs running 2 Pods',
      async () => {
        assert.equal((await readJob(namespace, 'owned')).status?.active, 2);
        assert.equal((await readJob(namespace, 'foreground')).status?.active, 2);
      },
      SETTLE_MS,
    );

    const background = await kube.request('DELETE', `/api/v1/namespaces/${namespace}/configmaps/owner`, { propagationPolicy: 'Background' });
    assert.equal(background.status, 200, background.body);
    await eventually(
      'the owned Job and its Pods garbage-collected',
      async () => {
        assert.ok(await jobGone(namespace, 'owned'), 'Job owned still exists');
        assert.equal((await podsOf(namespace, 'owned')).length, 0);
      },
      SETTLE_MS,
    );

    const foreground = await kube.request('DELETE', `/apis/batch/v1/namespaces/${namespace}/jobs/foreground`, { propagationPolicy: 'Foreground' });
    assert.equal(foreground.status, 200, foreground.body);
    const deleting = await readJob(namespace, 'foreground').catch(() => undefined);
    if (deleting !== undefined) {
      assert.ok(deleting.metadata?.finalizers?.includes('foregroundDeletion'), 'a foreground deletion holds the owner until its dependents are gone');
    }
    await eventually(
      'the Pods deleted before their Job',
      async () => {
        assert.ok(await jobGone(namespace, 'foreground'), 'Job foreground still exists');
        assert.equal((await podsOf(namespace, 'foreground')).length, 0);
      },
      SETTLE_MS,
    );
  });

  it('ttlSecondsAfterFinished deletes a finished Job and, through the garbage collector, its Pods', { timeout: CASE_TIMEOUT_MS }, async () => {
    const namespace = await newNamespace();
    await batch.createNamespacedJob({ namespace, body: jobManifest('short-lived', { ttlSecondsAfterFinished: 2, behaviour: { readyAfterMs: 100, finishAfterMs: 500 } }) });
    const complete = await eventually(
      'the Job Complete',
      async () => {
        const job = await readJob(namespace, 'short-lived');
        assert.ok(isTrue(job, 'Complete'), view(job));
        return job;
      },
      SETTLE_MS,
    );
    assert.equal(complete.spec?.ttlSecondsAfterFinished, 2);
    await eventually(
      'the finished Job deleted by the TTL-after-finished controller, its Pods by the garbage collector',
      async () => {
        assert.ok(await jobGone(namespace, 'short-lived'), 'Job short-lived still exists');
        assert.equal((await podsOf(namespace, 'short-lived')).length, 0);
      },
      SETTLE_MS,
    );
  });
});
