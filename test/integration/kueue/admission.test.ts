/**
 * Lineup under a real Kueue (test/integration/harness/kueue.ts), through the whole pipeline on
 * the real control plane minus kubelet (test/integration/e2e): a JobSet that names a queue is
 * suspended at creation by Kueue's webhook, so Lineup creates its Jobs suspended and starts
 * none; its Workload waits while the ClusterQueue holds admission; once Kueue admits it and
 * un-suspends the JobSet — writing the admitted flavor's node labels into its replicatedJobs'
 * pod templates — Lineup starts it in order, and every Job it resumes carries those labels. The
 * same for a JobSet of dependsOn gates (Complete, then Ready). Two JobSets over the quota: the
 * second waits suspended with no pod until the first has finished. A JobSet MultiKueue manages is
 * not Lineup's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConditionType, Reason } from '../../../lib/jobset/api.ts';
import type { JobSet } from '../../../lib/jobset/schema.ts';
import { startDynalite, startMoto, type DynaliteServer, type MotoServer } from '../harness/index.ts';
import { KUEUE_API, KUEUE_QUEUE_LABEL, startKueue, type KueueManager } from '../harness/kueue.ts';
import { COLD_START_TIMEOUT_MS, eventually } from '../k8s/support.ts';
import { exampleJobSet, startE2eCluster, type E2eCluster } from '../e2e/cluster.ts';
import { Pipeline, synthesizedRule, type RuleSource } from '../e2e/pipeline.ts';
import { Scenario, STEP_TIMEOUT_MS } from '../e2e/scenario.ts';

const CLUSTER_ID = 'kueue-admission';
const NAMESPACE = 'kueue-admission';
const CLUSTER_QUEUE = 'lineup-cq';
const LOCAL_QUEUE = 'lineup-lq';
/** The two flavors' node labels: both match the kwok node (harness/controlPlane.ts), each its own. */
const FLAVOR_LABELS = { 'flavor-a': { type: 'kwok' }, 'flavor-b': { 'kubernetes.io/os': 'linux' } } as const;

/** queued: `jobSet` in `queue`, each container asking for 100m CPU (Kueue assigns a flavor per resource requested). */
const queued = (jobSet: JobSet, queue: string): JobSet => ({
  ...jobSet,
  metadata: { ...jobSet.metadata, labels: { ...jobSet.metadata.labels, [KUEUE_QUEUE_LABEL]: queue } },
  spec: {
    ...jobSet.spec,
    replicatedJobs: jobSet.spec.replicatedJobs?.map((rjob) => {
      const podSpec = rjob.template.spec.template.spec;
      return {
        ...rjob,
        template: {
          ...rjob.template,
          spec: {
            ...rjob.template.spec,
            template: { ...rjob.template.spec.template, spec: { ...podSpec, containers: (podSpec?.containers ?? []).map((container) => ({ ...container, resources: { requests: { cpu: '100m' } } })) } },
          },
        },
      };
    }),
  },
});

/** queueObjects: two flavors, a ClusterQueue of 10 CPUs on flavor-a then flavor-b (held when `hold`), a LocalQueue in `namespace`. */
const queueObjects = (namespace: string, hold: boolean): string =>
  [
    ...Object.entries(FLAVOR_LABELS).map(([name, nodeLabels]) => ({ apiVersion: KUEUE_API, kind: 'ResourceFlavor', metadata: { name }, spec: { nodeLabels } })),
    {
      apiVersion: KUEUE_API,
      kind: 'ClusterQueue',
      metadata: { name: CLUSTER_QUEUE },
      spec: {
        namespaceSelector: {},
        stopPolicy: hold ? 'Hold' : 'None',
        resourceGroups: [{ coveredResources: ['cpu'], flavors: Object.keys(FLAVOR_LABELS).map((name) => ({ name, resources: [{ name: 'cpu', nominalQuota: '10' }] })) }],
      },
    },
    { apiVersion: KUEUE_API, kind: 'LocalQueue', metadata: { name: LOCAL_QUEUE, namespace }, spec: { clusterQueue: CLUSTER_QUEUE } },
  ]
    .map((object) => JSON.stringify(object))
    .join('\n---\n');

interface WorkloadView {
  readonly name: string;
  readonly conditions: Record<string, string>;
  readonly flavors: Record<string, string>;
}

describe('Lineup under Kueue: admission, quota, MultiKueue', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let cluster: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let pipeline: Pipeline | undefined;
  let kueue: KueueManager | undefined;

  before(async (t) => {
    let rule: RuleSource;
    [cluster, moto, dynamo, rule] = await Promise.all([startE2eCluster(), startMoto(), startDynalite(), synthesizedRule()]);
    // One after the other: a failed start leaves nothing unstopped for the after hook.
    pipeline = await Pipeline.start({ kube: cluster.kube, moto, dynamo, clusterId: CLUSTER_ID, rule });
    kueue = await startKueue(cluster.kube);
    t.diagnostic(`kueue ${kueue.build.version}: found or built in ${kueue.build.buildMs} ms, ready in ${kueue.startToReadyMs} ms`);
  });

  after(async () => {
    await kueue?.stop();
    await pipeline?.stop();
    await Promise.all([cluster?.stop(), moto?.stop(), dynamo?.stop()]);
  });

  /** workloads: the Workloads of `namespace`: their conditions (type → status) and each pod set's cpu flavor. */
  const workloads = async (namespace: string): Promise<WorkloadView[]> => {
    assert.ok(cluster);
    const response = await cluster.kube.request('GET', `/apis/${KUEUE_API}/namespaces/${namespace}/workloads`);
    assert.equal(response.status, 200, response.body.slice(0, 500));
    const list = JSON.parse(response.body) as {
      items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[]; admission?: { podSetAssignments?: { name: string; flavors?: Record<string, string> }[] } } }[];
    };
    return list.items.map((item) => ({
      name: item.metadata.name,
      conditions: Object.fromEntries((item.status?.conditions ?? []).map((condition) => [condition.type, condition.status])),
      flavors: Object.fromEntries((item.status?.admission?.podSetAssignments ?? []).map((assignment) => [assignment.name, assignment.flavors?.['cpu'] ?? ''])),
    }));
  };

  it('story 2 naming a queue: suspended at creation, no Job running while the queue holds it; admitted, started in order on the admitted flavor', async () => {
    assert.ok(cluster && pipeline && kueue);
    await cluster.admin.createNamespace(NAMESPACE);
    await cluster.kube.applyYaml(queueObjects(NAMESPACE, true));

    const s = await Scenario.start(cluster, pipeline, NAMESPACE, queued(exampleJobSet('story2-messagequeue-driver-worker.yaml', 'queued-story2'), LOCAL_QUEUE));
    assert.equal((await s.jobSet()).spec.suspend, true, "Kueue's webhook suspended the JobSet at creation");
    await s.expectFlags('every Job created suspended', { messagequeue: 'S', driver: 'SS', worker: 'SS' });
    await eventually('a Workload for the JobSet, not admitted', async () => {
      const [workload] = await workloads(NAMESPACE);
      assert.ok(workload, 'no Workload yet');
      assert.notEqual(workload.conditions['Admitted'], 'True');
    });
    await s.expectHeld('nothing starts while the ClusterQueue holds admission', { messagequeue: 'S', driver: 'SS', worker: 'SS' });
    await s.expectCondition(ConditionType.Suspended, { status: 'True', reason: Reason.SuspendedJobs });

    // Admission: the ClusterQueue lets workloads in.
    await cluster.kube.applyYaml(queueObjects(NAMESPACE, false));
    await eventually('the Workload admitted on flavor-a', async () => {
      const [workload] = await workloads(NAMESPACE);
      assert.equal(workload?.conditions['Admitted'], 'True', JSON.stringify(workload));
      assert.deepEqual(workload?.flavors, { messagequeue: 'flavor-a', driver: 'flavor-a', worker: 'flavor-a' });
    }, STEP_TIMEOUT_MS);
    await s.expectFlags('un-suspended by Kueue: the message queue runs first', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    await s.expectHeld('drivers and workers wait for the message queue', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    await s.markReady('messagequeue');
    await s.expectFlags('the drivers released', { messagequeue: 'R', driver: 'RR', worker: 'SS' });
    await s.markReady('driver');
    await s.expectFlags('the workers released', { messagequeue: 'R', driver: 'RR', worker: 'RR' });
    await s.markReady('worker');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);

    // Every Job runs its pods on the admitted flavor's nodes.
    const jobs = await cluster.jobs.list(NAMESPACE, s.name);
    assert.equal(jobs.length, 5);
    for (const job of jobs) {
      assert.deepEqual(job.spec?.template.spec?.nodeSelector, FLAVOR_LABELS['flavor-a'], `${job.metadata.name}: the flavor's node labels in its pod template`);
    }
    s.expectNoProblems();
  });

  it('a dependsOn JobSet naming a queue: nothing runs until admitted, then Complete and Ready gates in order', async () => {
    assert.ok(cluster && pipeline && kueue);
    const namespace = `${NAMESPACE}-depends-on`;
    await cluster.admin.createNamespace(namespace);
    await cluster.kube.applyYaml(queueObjects(namespace, true));

    const s = await Scenario.start(cluster, pipeline, namespace, queued(exampleJobSet('depends-on.yaml', 'queued-depends-on'), LOCAL_QUEUE));
    await s.expectFlags('every Job created suspended', { initializer: 'S', launcher: 'S', worker: 'S' });
    await s.expectHeld('nothing starts while the ClusterQueue holds admission', { initializer: 'S', launcher: 'S', worker: 'S' });

    await cluster.kube.applyYaml(queueObjects(namespace, false));
    await eventually('the Workload admitted', async () => {
      const [workload] = await workloads(namespace);
      assert.equal(workload?.conditions['Admitted'], 'True', JSON.stringify(workload));
    }, STEP_TIMEOUT_MS);
    await s.expectFlags('the initializer runs first', { initializer: 'R', launcher: 'S', worker: 'S' });
    await s.expectHeld('the launcher waits for the initializer to complete', { initializer: 'R', launcher: 'S', worker: 'S' });
    await s.markComplete('initializer');
    await s.expectFlags('the launcher released', { initializer: 'R', launcher: 'R', worker: 'S' });
    await s.markReady('launcher');
    await s.expectFlags('the worker released', { initializer: 'R', launcher: 'R', worker: 'R' });
    s.expectNoProblems();
  });

  it('two JobSets over the quota: the second waits suspended, with no pod, until the first has finished enough', async () => {
    assert.ok(cluster && pipeline && kueue);
    const namespace = `${NAMESPACE}-quota`;
    await cluster.admin.createNamespace(namespace);
    // 1200m of CPU: one story 2 at a time (nine pods of 100m: 1 + 2 × 2 + 2 × 2).
    await cluster.kube.applyYaml(
      [
        { apiVersion: KUEUE_API, kind: 'ClusterQueue', metadata: { name: 'tight-cq' }, spec: { namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ name: 'flavor-a', resources: [{ name: 'cpu', nominalQuota: '1200m' }] }] }] } },
        { apiVersion: KUEUE_API, kind: 'LocalQueue', metadata: { name: 'tight-lq', namespace }, spec: { clusterQueue: 'tight-cq' } },
      ]
        .map((object) => JSON.stringify(object))
        .join('\n---\n'),
    );
    const first = await Scenario.start(cluster, pipeline, namespace, queued(exampleJobSet('story2-messagequeue-driver-worker.yaml', 'first'), 'tight-lq'));
    await first.expectFlags('admitted: the message queue first', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    const second = await Scenario.start(cluster, pipeline, namespace, queued(exampleJobSet('story2-messagequeue-driver-worker.yaml', 'second'), 'tight-lq'));
    await second.expectFlags('every Job created suspended', { messagequeue: 'S', driver: 'SS', worker: 'SS' });

    await first.markReady('messagequeue');
    await first.expectFlags('the first: drivers released', { messagequeue: 'R', driver: 'RR', worker: 'SS' });
    await first.markReady('driver');
    await first.expectFlags('the first: workers released', { messagequeue: 'R', driver: 'RR', worker: 'RR' });
    await second.expectHeld('the second: over the quota, nothing runs', { messagequeue: 'S', driver: 'SS', worker: 'SS' });
    for (const name of await cluster.jobs.namesOf(namespace, 'second', 'messagequeue')) assert.deepEqual(await cluster.jobs.allPodsOf(namespace, name), [], `${name}: no pod`);

    // The first finishes; its pods' quota comes back and the second is admitted.
    for (const rjob of ['messagequeue', 'driver', 'worker']) await first.markComplete(rjob);
    await first.expectCondition(ConditionType.Completed, { status: 'True', reason: Reason.AllJobsCompleted });
    await second.expectFlags('the second admitted once the first finished: its message queue first', { messagequeue: 'R', driver: 'SS', worker: 'SS' }, 60_000);
    const byName = Object.fromEntries((await workloads(namespace)).map((workload) => [workload.name, workload.conditions]));
    const firstWorkload = Object.entries(byName).find(([name]) => name.includes('first'))?.[1];
    const secondWorkload = Object.entries(byName).find(([name]) => name.includes('second'))?.[1];
    assert.equal(firstWorkload?.['Finished'], 'True', JSON.stringify(byName));
    assert.equal(secondWorkload?.['Admitted'], 'True', JSON.stringify(byName));
    first.expectNoProblems();
    second.expectNoProblems();
  });

  it('a JobSet MultiKueue manages (spec.managedBy kueue.x-k8s.io/multikueue) is left alone', async () => {
    assert.ok(cluster && pipeline);
    const namespace = `${NAMESPACE}-multikueue`;
    await cluster.admin.createNamespace(namespace);
    const jobSet = exampleJobSet('story1-driver-ready-worker-start.yaml', 'multikueue-managed');
    const s = await Scenario.start(cluster, pipeline, namespace, { ...jobSet, spec: { ...jobSet.spec, managedBy: 'kueue.x-k8s.io/multikueue' } });
    await pipeline.settle(`${namespace}: the JobSet's events handled`);
    assert.deepEqual(await s.flags(), {}, 'Lineup created no Job');
    assert.equal((await s.jobSet()).status, undefined, 'Lineup wrote no status');
  });
});
