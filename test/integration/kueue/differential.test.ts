/**
 * Lineup beside upstream JobSet v0.12.0 under one real Kueue v0.17.0, on the real control plane
 * minus kubelet (test/integration/conformance/bed.ts with `kueue`). Every scenario runs as a twin
 * per controller — the same JobSet in `conformance-lineup` (managedBy lineup.dev/controller) and in
 * `conformance-upstream` (upstream's) — each side with ClusterQueues of its own, so the twins never
 * compete for quota. Pods behave on the kwok node as their annotations say (no test hand drives
 * them). The scenarios:
 * - admitted: an InOrder JobSet and a dependsOn JobSet wait suspended, with no Job running, while
 *   their ClusterQueue holds admission; admitted, they start in order on the admitted flavor;
 * - queued: two JobSets over the quota; the second is admitted once the first's finished
 *   initializer gives back its quota (Kueue's reclaimable pods), while the first still runs;
 * - preempted: a higher-priority JobSet preempts one whose first stage runs: every Job of the
 *   victim is suspended and its Pods go, nothing counts as failed; admitted again on the other
 *   flavor, it starts over from its first stage and its Jobs carry that flavor's node labels;
 * - waitForPodsReady (Kueue restarted with a 15 s timeout, a 1 s back-off, one requeue): an
 *   InOrder JobSet whose first stage needs longer than the timeout to be Ready, and a dependsOn
 *   Complete initializer that runs longer than it, are evicted twice and deactivated with every
 *   Job suspended; one whose whole startup fits the timeout completes.
 * Every difference between the twins must be one compare.ts explains, and the Kueue
 * table in docs/kueue.md must be the table of this run (test/conformance/kueueTable.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CONTROLLER_NAME } from '../../../lib/jobset/managedBy.ts';
import { Label } from '../../../lib/jobset/api.ts';
import { differenceTable, undocumented } from '../../conformance/compare.ts';
import { conformanceCases, manifestOf, POD_READY_AFTER_MS, type ConformanceCase, type JsonObject, type PodPlan } from '../../conformance/generate.ts';
import { compareKueueRuns, kueueTable, type KueueRecord, type KueueTableRow } from '../../conformance/kueueTable.ts';
import { repoPath } from '../../repoFiles.ts';
import { ConformanceBed, isTerminal, NAMESPACES, type Side } from '../conformance/bed.ts';
import { podAnnotations } from '../harness/controlPlane.ts';
import { KUEUE_API, KUEUE_PRIORITY_LABEL, KUEUE_QUEUE_LABEL, type KueueOptions } from '../harness/kueue.ts';
import { COLD_START_TIMEOUT_MS } from '../k8s/support.ts';
import { isObject } from '../../../lib/json.ts';

const SIDES: readonly Side[] = ['lineup', 'upstream'];
/** FLAVOR_LABELS: both match the kwok node (harness/controlPlane.ts), each its own label. */
const FLAVOR_LABELS = { 'flavor-a': { type: 'kwok' }, 'flavor-b': { 'kubernetes.io/os': 'linux' } } as const;
type Flavor = keyof typeof FLAVOR_LABELS;
/** CPU_PER_POD_MILLI: what every container asks for, so that Kueue counts quota. */
const CPU_PER_POD_MILLI = 100;
/** WAIT_FOR_PODS_READY: the second phase's Kueue: evict after 15 s not all ready, requeue once after 1 s, then deactivate. */
const WAIT_FOR_PODS_READY: KueueOptions['waitForPodsReady'] = {
  timeout: '15s',
  requeuingStrategy: { timestamp: 'Eviction', backoffLimitCount: 1, backoffBaseSeconds: 1, backoffMaxSeconds: 2 },
};
/** SLOW_MS: longer than the waitForPodsReady timeout: a first stage this long to be Ready, an initializer this long to finish. */
const SLOW_MS = 60_000;
/** SCENARIO_TIMEOUT_MS: one scenario, both twins, on a loaded 2-core machine. */
const SCENARIO_TIMEOUT_MS = 3 * 60_000;
/** TABLE_DOC: where the table of this run is shown. */
const TABLE_DOC = repoPath('docs/kueue.md');
const TABLE_BEGIN = '<!-- kueue-table: test/integration/kueue/differential.test.ts -->';
const TABLE_END = '<!-- /kueue-table -->';

const caseNamed = (name: string): ConformanceCase => {
  const found = conformanceCases().find((c) => c.name === name);
  if (found === undefined) throw new Error(`no conformance case ${name}`);
  return found;
};

/** Shape: how a JobSet of a scenario differs from its conformance case. */
interface Shape {
  readonly name: string;
  readonly from: string;
  readonly queue: string;
  readonly priorityClass?: string;
  /** Replica counts by replicatedJob (default: the case's). */
  readonly replicas?: Readonly<Record<string, number>>;
  /** Pod plans by replicatedJob (default: the case's). */
  readonly pods?: Readonly<Record<string, Partial<PodPlan>>>;
}

/** replicatedJobsOf: a JobSet manifest's replicatedJobs. */
const replicatedJobsOf = (jobSet: JsonObject): JsonObject[] => {
  const spec = isObject(jobSet.spec) ? jobSet.spec : {};
  return Array.isArray(spec.replicatedJobs) ? spec.replicatedJobs.filter(isObject) : [];
};

/** podTemplateOf: a replicatedJob's pod template. */
const podTemplateOf = (rjob: JsonObject): JsonObject => {
  const template = rjob.template as { spec: { template: JsonObject } };
  return template.spec.template;
};

/** manifest: the shape's JobSet for `side`, naming its queue (and priority), every container asking for CPU_PER_POD_MILLI. */
const manifest = (shape: Shape, side: Side): JsonObject => {
  const c = caseNamed(shape.from);
  const base = manifestOf({ ...c, name: shape.name }, NAMESPACES[side], side === 'lineup' ? DEFAULT_CONTROLLER_NAME : undefined);
  const labels = { [KUEUE_QUEUE_LABEL]: shape.queue, ...(shape.priorityClass === undefined ? {} : { [KUEUE_PRIORITY_LABEL]: shape.priorityClass }) };
  const replicatedJobs = replicatedJobsOf(base).map((rjob) => {
    const name = String(rjob.name);
    const plan = { ...c.pods[name], ...shape.pods?.[name] } as PodPlan;
    const podTemplate = podTemplateOf(rjob);
    const podSpec = podTemplate.spec as { containers: JsonObject[] };
    const template = rjob.template as { spec: JsonObject };
    return {
      ...rjob,
      replicas: shape.replicas?.[name] ?? rjob.replicas,
      template: {
        ...template,
        spec: {
          ...template.spec,
          template: {
            ...podTemplate,
            metadata: { annotations: podAnnotations(plan) },
            spec: { ...podSpec, containers: podSpec.containers.map((container) => ({ ...container, resources: { requests: { cpu: `${CPU_PER_POD_MILLI}m` } } })) },
          },
        },
      },
    };
  });
  const metadata = base.metadata as JsonObject;
  return { ...base, metadata: { ...metadata, labels }, spec: { ...(base.spec as JsonObject), replicatedJobs } };
};

/** podCount: the Pods a shape's JobSet runs (replicas × parallelism). */
const podCount = (shape: Shape): number =>
  replicatedJobsOf(manifest(shape, 'lineup')).reduce((sum, rjob) => sum + Number(rjob.replicas) * Number((rjob.template as { spec: { parallelism?: number } }).spec.parallelism ?? 1), 0);

/** queues: a ClusterQueue `<side>-<queue>` with these quotas (milli-CPU per flavor) and a LocalQueue `<queue>` pointing at it. */
const queues = (side: Side, queue: string, quota: Readonly<Record<Flavor, number>>, extra: JsonObject = {}): JsonObject[] => [
  {
    apiVersion: KUEUE_API,
    kind: 'ClusterQueue',
    metadata: { name: `${side}-${queue}` },
    spec: {
      namespaceSelector: {},
      resourceGroups: [{ coveredResources: ['cpu'], flavors: (Object.keys(FLAVOR_LABELS) as Flavor[]).map((name) => ({ name, resources: [{ name: 'cpu', nominalQuota: `${quota[name]}m` }] })) }],
      ...extra,
    },
  },
  { apiVersion: KUEUE_API, kind: 'LocalQueue', metadata: { name: queue, namespace: NAMESPACES[side] }, spec: { clusterQueue: `${side}-${queue}` } },
];

/** admittedFlavors: the cpu flavor Kueue assigned each pod set (a replicatedJob), once admitted. */
const admittedFlavors = (record: KueueRecord): Record<string, string> => {
  const admission = (record.workload?.status as { admission?: { podSetAssignments?: { name: string; flavors?: Record<string, string> }[] } } | undefined)?.admission;
  return Object.fromEntries((admission?.podSetAssignments ?? []).map((assignment) => [assignment.name, assignment.flavors?.['cpu'] ?? '']));
};

const conditionIsTrue = (record: KueueRecord, type: string): boolean =>
  ((record.workload?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

describe('Lineup beside upstream JobSet under one real Kueue: admission, quota, preemption, waitForPodsReady', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let bed: ConformanceBed | undefined;
  const rows: KueueTableRow[] = [];

  before(async (t) => {
    bed = await ConformanceBed.start({ upstream: true, clusterId: 'kueue-differential', kueue: {} });
    t.diagnostic(`kueue ${bed.kueue.build.version}: found or built in ${bed.kueue.build.buildMs} ms, ready in ${bed.kueue.startToReadyMs} ms`);
    await bed.apply([
      ...Object.entries(FLAVOR_LABELS).map(([name, nodeLabels]) => ({ apiVersion: KUEUE_API, kind: 'ResourceFlavor', metadata: { name }, spec: { nodeLabels } })),
      { apiVersion: KUEUE_API, kind: 'WorkloadPriorityClass', metadata: { name: 'low' }, value: 100, description: 'may be preempted' },
      { apiVersion: KUEUE_API, kind: 'WorkloadPriorityClass', metadata: { name: 'high' }, value: 1000, description: 'preempts low' },
    ]);
  });

  after(async () => {
    await bed?.stop();
  });

  /** jobSetsPath: a side's JobSet collection. */
  const jobSetsPath = (side: Side): string => `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NAMESPACES[side]}/jobsets`;
  const record = (side: Side, name: string): KueueRecord => {
    assert.ok(bed);
    return bed.record(NAMESPACES[side], name);
  };
  const explain = (side: Side, names: readonly string[]) => (): string =>
    names.map((name) => `${side}/${name}: ${JSON.stringify({ starts: record(side, name).startEvents.map((e) => e.replicatedJob), suspend: (record(side, name).final?.spec as JsonObject | undefined)?.suspend, workload: (record(side, name).workload?.status as JsonObject | undefined)?.conditions })}`).join('; ');

  /** jobsOf: a JobSet's Jobs as stored, with their live Pods. */
  const jobsOf = async (side: Side, jobSet: string): Promise<{ name: string; replicatedJob: string; suspended: boolean; nodeSelector: unknown; pods: number }[]> => {
    assert.ok(bed);
    const jobs = await bed.cluster.jobs.list(NAMESPACES[side], jobSet);
    return Promise.all(
      jobs.map(async (job) => ({
        name: job.metadata.name ?? '',
        replicatedJob: job.metadata.labels?.[Label.ReplicatedJobName] ?? '',
        suspended: job.spec.suspend === true,
        nodeSelector: job.spec.template.spec?.nodeSelector,
        pods: (await bed?.cluster.jobs.podsOf(NAMESPACES[side], job.metadata.name ?? ''))?.length ?? 0,
      })),
    );
  };

  /** expectAdmittedFlavors: the Workload assigned each pod set `flavors` (all, or by replicatedJob), and every Job runs with its flavor's node labels. */
  const expectAdmittedFlavors = async (side: Side, jobSet: string, flavor: Flavor): Promise<void> => {
    const assigned = admittedFlavors(record(side, jobSet));
    assert.ok(Object.keys(assigned).length > 0, `${side}/${jobSet}: admitted`);
    for (const [podSet, got] of Object.entries(assigned)) assert.equal(got, flavor, `${side}/${jobSet}: pod set ${podSet} on ${flavor}: ${JSON.stringify(assigned)}`);
    for (const job of await jobsOf(side, jobSet)) {
      const selector = (job.nodeSelector ?? {}) as Record<string, string>;
      for (const [key, value] of Object.entries(FLAVOR_LABELS[flavor])) assert.equal(selector[key], value, `${side}/${job.name}: runs with ${flavor}'s node labels`);
      // Lineup's carry only the admission in force (lib/plan/resume.ts); upstream's may keep an earlier one's (the table shows it).
      if (side === 'lineup') assert.deepEqual(selector, FLAVOR_LABELS[flavor], `${side}/${job.name}: only ${flavor}'s node labels`);
    }
  };

  /** jobFlavors: which flavors' node labels each replicatedJob's Jobs carry, grouped ("flavor-a", or "mq: flavor-a+flavor-b; driver workers: flavor-b"). */
  const jobFlavors = async (side: Side, jobSet: string): Promise<string> => {
    const byReplicatedJob = new Map<string, Set<string>>();
    for (const job of await jobsOf(side, jobSet)) {
      const selector = (job.nodeSelector ?? {}) as Record<string, string>;
      const carried = (Object.keys(FLAVOR_LABELS) as Flavor[]).filter((flavor) => Object.entries(FLAVOR_LABELS[flavor]).every(([key, value]) => selector[key] === value));
      const set = byReplicatedJob.get(job.replicatedJob) ?? new Set<string>();
      set.add(carried.length === 0 ? '(none)' : carried.join('+'));
      byReplicatedJob.set(job.replicatedJob, set);
    }
    const groups = new Map<string, string[]>();
    for (const [replicatedJob, values] of byReplicatedJob) {
      const value = [...values].sort().join(' or ');
      groups.set(value, [...(groups.get(value) ?? []), replicatedJob]);
    }
    if (groups.size <= 1) return [...groups.keys()][0] ?? '(no Job)';
    return [...groups.entries()].map(([value, names]) => `${names.sort().join(' ')}: ${value}`).sort().join('; ');
  };

  const keep = async (scenario: string, names: readonly string[]): Promise<void> => {
    for (const jobSet of names) {
      rows.push({
        scenario,
        jobSet,
        lineup: { ...record('lineup', jobSet), jobFlavors: await jobFlavors('lineup', jobSet) },
        upstream: { ...record('upstream', jobSet), jobFlavors: await jobFlavors('upstream', jobSet) },
      });
    }
  };

  it('admitted: nothing runs while the ClusterQueue holds admission; admitted, each JobSet starts in order on the admitted flavor', async () => {
    assert.ok(bed);
    const shapes: Shape[] = [
      { name: 'inorder', from: 'inorder-succeed', queue: 'admitted' },
      { name: 'depends-on', from: 'mixed-succeed', queue: 'admitted' },
    ];
    const names = shapes.map((shape) => shape.name);
    await Promise.all(
      SIDES.map(async (side) => {
        assert.ok(bed);
        await bed.apply(queues(side, 'admitted', { 'flavor-a': 10_000, 'flavor-b': 10_000 }, { stopPolicy: 'Hold' }));
        for (const shape of shapes) await bed.create(jobSetsPath(side), manifest(shape, side));
        await bed.until(`${side}: a Workload for each JobSet, none admitted`, () => names.every((name) => record(side, name).workload !== undefined), SCENARIO_TIMEOUT_MS, explain(side, names));
      }),
    );
    await bed.quiet(SCENARIO_TIMEOUT_MS);
    for (const side of SIDES) {
      for (const name of names) {
        assert.deepEqual(record(side, name).startEvents, [], `${side}/${name}: no Job ran while held`);
        assert.equal(conditionIsTrue(record(side, name), 'Admitted'), false, `${side}/${name}: not admitted while held`);
        for (const job of await jobsOf(side, name)) assert.equal(job.pods, 0, `${side}/${job.name}: no pod while held`);
      }
    }

    await Promise.all(
      SIDES.map(async (side) => {
        assert.ok(bed);
        await bed.apply(queues(side, 'admitted', { 'flavor-a': 10_000, 'flavor-b': 10_000 }, { stopPolicy: 'None' }));
        await bed.until(`${side}: both JobSets finished`, () => names.every((name) => isTerminal(record(side, name).final) && conditionIsTrue(record(side, name), 'Finished')), SCENARIO_TIMEOUT_MS, explain(side, names));
      }),
    );
    for (const side of SIDES) {
      for (const name of names) await expectAdmittedFlavors(side, name, 'flavor-a');
    }
    await keep('admitted', names);
  });

  it("queued: over the quota, the second waits until the first's finished initializer gives back its quota, then starts while the first still runs", async () => {
    assert.ok(bed);
    // The first: an initializer (1 Pod) that finishes fast, then 4 workers that run for a while.
    const first: Shape = { name: 'first', from: 'complete-succeed', queue: 'queued', pods: { init: { finishAfterMs: POD_READY_AFTER_MS }, workers: { finishAfterMs: 15_000 } } };
    const second: Shape = { name: 'second', from: 'mixed-succeed', queue: 'queued' };
    // Room for the first, and for the second only once the initializer's Pod is reclaimable.
    const quota = (podCount(first) + podCount(second) - 1) * CPU_PER_POD_MILLI;
    const startedWhileFirstRan = new Map<Side, boolean>();
    await Promise.all(
      SIDES.map(async (side) => {
        assert.ok(bed);
        await bed.apply(queues(side, 'queued', { 'flavor-a': quota, 'flavor-b': 0 }));
        await bed.create(jobSetsPath(side), manifest(first, side));
        await bed.until(`${side}: the first admitted`, () => conditionIsTrue(record(side, 'first'), 'Admitted'), SCENARIO_TIMEOUT_MS, explain(side, ['first']));
        await bed.create(jobSetsPath(side), manifest(second, side));
        await bed.until(`${side}: the second started`, () => record(side, 'second').startEvents.length > 0, SCENARIO_TIMEOUT_MS, explain(side, ['first', 'second']));
        startedWhileFirstRan.set(side, !isTerminal(record(side, 'first').final) && record(side, 'first').startEvents.some((e) => e.replicatedJob === 'workers'));
        await bed.until(`${side}: both finished`, () => ['first', 'second'].every((name) => isTerminal(record(side, name).final)), SCENARIO_TIMEOUT_MS, explain(side, ['first', 'second']));
      }),
    );
    for (const side of SIDES) {
      assert.equal(startedWhileFirstRan.get(side), true, `${side}: the second started after the first's initializer finished, while its workers ran`);
      const firstInitEnded = record(side, 'first').startEvents.find((e) => e.replicatedJob === 'workers')?.at ?? Number.POSITIVE_INFINITY;
      assert.ok((record(side, 'second').startEvents[0]?.at ?? 0) >= firstInitEnded, `${side}: the second started only once the first's initializer had finished`);
    }
    await keep('queued', ['first', 'second']);
  });

  it('preempted mid-startup: every Job of the victim suspended, its Pods gone, nothing failed; admitted again on the other flavor, it starts over from its first stage', async () => {
    assert.ok(bed);
    // The victim's message queue takes 6 s to be Ready: the urgent JobSet preempts it in its first stage.
    const victim: Shape = { name: 'victim', from: 'inorder-succeed', queue: 'preempt', priorityClass: 'low', replicas: { workers: 2 }, pods: { mq: { readyAfterMs: 6_000 } } };
    // As big as the victim: it takes the whole of flavor-a, so the victim goes whole to flavor-b.
    const urgent: Shape = { name: 'urgent', from: 'none-succeed', queue: 'preempt', priorityClass: 'high', replicas: { workers: 2 }, pods: { leader: { finishAfterMs: 15_000 }, workers: { finishAfterMs: 15_000 } } };
    const quota = podCount(victim) * CPU_PER_POD_MILLI;
    assert.equal(podCount(urgent) * CPU_PER_POD_MILLI, quota, 'the urgent JobSet needs the whole of a flavor');
    // Preempt on the first flavor where preemption would make room, rather than try the next:
    // the urgent JobSet preempts the victim on flavor-a, and the victim, which can preempt
    // nothing, is admitted again on flavor-b.
    const preemptionSettings = { preemption: { withinClusterQueue: 'LowerPriority' }, flavorFungibility: { whenCanBorrow: 'MayStopSearch', whenCanPreempt: 'MayStopSearch' } };
    await Promise.all(
      SIDES.map(async (side) => {
        assert.ok(bed);
        await bed.apply(queues(side, 'preempt', { 'flavor-a': quota, 'flavor-b': quota }, preemptionSettings));
        await bed.create(jobSetsPath(side), manifest(victim, side));
        await bed.until(`${side}: the victim's message queue running`, () => record(side, 'victim').startEvents.length > 0, SCENARIO_TIMEOUT_MS, explain(side, ['victim']));
        await bed.create(jobSetsPath(side), manifest(urgent, side));
        await bed.until(`${side}: the victim evicted and suspended`, () => record(side, 'victim').suspendedAt.length > 0, SCENARIO_TIMEOUT_MS, explain(side, ['victim', 'urgent']));
        const deadline = Date.now() + SCENARIO_TIMEOUT_MS;
        for (;;) {
          const jobs = await jobsOf(side, 'victim');
          if (jobs.length > 0 && jobs.every((job) => job.suspended && job.pods === 0)) break;
          assert.ok(Date.now() < deadline, `${side}: the victim's Jobs still run after the eviction: ${JSON.stringify(jobs)}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        const victimStatus = record(side, 'victim').final?.status as { conditions?: { type: string; status: string }[]; restarts?: number } | undefined;
        assert.equal(victimStatus?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True') ?? false, false, `${side}: the victim is not failed`);
        assert.equal(victimStatus?.restarts ?? 0, 0, `${side}: the preemption counts as no restart`);
        await bed.until(`${side}: both finished`, () => ['victim', 'urgent'].every((name) => isTerminal(record(side, name).final)), SCENARIO_TIMEOUT_MS, explain(side, ['victim', 'urgent']));
      }),
    );
    for (const side of SIDES) {
      await expectAdmittedFlavors(side, 'victim', 'flavor-b');
      await expectAdmittedFlavors(side, 'urgent', 'flavor-a');
    }
    await keep('preempted', ['victim', 'urgent']);
  });

  it('waitForPodsReady shorter than the startup: evicted, requeued, deactivated, with every Job suspended; a startup that fits completes', async () => {
    assert.ok(bed);
    const restarted = await bed.restartKueue({ waitForPodsReady: WAIT_FOR_PODS_READY });
    process.stderr.write(`kueue restarted with waitForPodsReady ${JSON.stringify(WAIT_FOR_PODS_READY)} in ${restarted.startToReadyMs} ms\n`);
    const shapes: Shape[] = [
      { name: 'slow-first-stage', from: 'inorder-succeed', queue: 'ready', replicas: { workers: 2 }, pods: { mq: { readyAfterMs: SLOW_MS } } },
      { name: 'long-initializer', from: 'complete-succeed', queue: 'ready', pods: { init: { finishAfterMs: SLOW_MS } } },
      { name: 'fits', from: 'inorder-succeed', queue: 'ready', replicas: { workers: 2 } },
    ];
    const evicted = ['slow-first-stage', 'long-initializer'];
    await Promise.all(
      SIDES.map(async (side) => {
        assert.ok(bed);
        await bed.apply(queues(side, 'ready', { 'flavor-a': 10_000, 'flavor-b': 10_000 }));
        for (const shape of shapes) await bed.create(jobSetsPath(side), manifest(shape, side));
        await bed.until(
          `${side}: the slow JobSets deactivated, the fitting one finished`,
          () => evicted.every((name) => (record(side, name).workload?.spec as JsonObject | undefined)?.active === false) && isTerminal(record(side, 'fits').final),
          SCENARIO_TIMEOUT_MS,
          explain(side, shapes.map((shape) => shape.name)),
        );
      }),
    );
    await bed.quiet(SCENARIO_TIMEOUT_MS);
    for (const side of SIDES) {
      for (const name of evicted) {
        const jobs = await jobsOf(side, name);
        assert.ok(jobs.length > 0, `${side}/${name}: has Jobs`);
        for (const job of jobs) assert.ok(job.suspended && job.pods === 0, `${side}/${job.name}: suspended with no Pod after the last eviction: ${JSON.stringify(job)}`);
        assert.equal(record(side, name).suspendedAt.length, 2, `${side}/${name}: suspended at each of its two evictions`);
      }
    }
    await keep('waitForPodsReady 15 s', shapes.map((shape) => shape.name));
  });

  it('every difference between the twins is explained, and docs/kueue.md shows the table of this run', () => {
    assert.equal(rows.length, 9, 'every scenario kept its JobSets');
    const differences = compareKueueRuns(new Map(rows.map((row) => [row.jobSet, row.lineup])), new Map(rows.map((row) => [row.jobSet, row.upstream])));
    const table = kueueTable(rows);
    process.stderr.write(`Kueue differential, ${rows.length} JobSets per controller:\n${table.join('\n')}\ndifferences:\n${differenceTable(differences).join('\n')}\n`);
    assert.deepEqual(undocumented(differences), [], `differences nothing explains:\n${differenceTable(undocumented(differences)).join('\n')}`);
    const doc = readFileSync(TABLE_DOC, 'utf8');
    const begin = doc.indexOf(TABLE_BEGIN);
    const end = doc.indexOf(TABLE_END);
    assert.ok(begin >= 0 && end > begin, `docs/kueue.md has the table between ${TABLE_BEGIN} and ${TABLE_END}`);
    const shown = doc
      .slice(begin + TABLE_BEGIN.length, end)
      .split('\n')
      .filter((line) => line.startsWith('|'));
    assert.deepEqual(shown, table, "docs/kueue.md's table is this run's");
  });
});
