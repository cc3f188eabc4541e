/**
 * The simulator checked against the real control plane: the same scenarios (test/conformance/
 * generate.ts simulatorCases: every startup form, a failure policy with restarts, a Job failure,
 * a success policy ending early) through `lineup simulate` (in process, virtual time, the
 * behaviour file derived from the Pods' kwok annotations) and through Lineup's whole pipeline on
 * kube-apiserver with kube-controller-manager, kube-scheduler and a kwok node. Per JobSet the
 * order in which replicatedJobs started and the final status must be the same: a difference is
 * a bug in the simulator (lib/sim).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { DEFAULT_CONTROLLER_NAME } from '../../../lib/jobset/managedBy.ts';
import type { SimulationReport } from '../../../lib/sim/simulate.ts';
import { TimelineType } from '../../../lib/sim/timeline.ts';
import { runCli } from '../../cli/inProcess.ts';
import { compareRuns, differenceTable, startOrder, type RunRecord } from '../../conformance/compare.ts';
import { behaviourFileOf, manifestOf, simulatorCases, type ConformanceCase, type JsonObject } from '../../conformance/generate.ts';
import { COLD_START_TIMEOUT_MS } from '../k8s/support.ts';
import { ConformanceBed, NAMESPACES } from './bed.ts';
import { isObject } from '../../../lib/json.ts';

/** RUN_TIMEOUT_MS: every JobSet to a terminal state on a loaded 2-core machine. */
const RUN_TIMEOUT_MS = 3 * 60_000;

/** comparedStatus: the fields `lineup simulate` reports as final (conditions, counters, restarts, terminal state), from a JobSet's status. */
const comparedStatus = (status: JsonObject): JsonObject => {
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
  const terminal =
    status.terminalState ??
    (conditions.some((c) => c.type === 'Completed' && c.status === 'True') ? 'Completed' : conditions.some((c) => c.type === 'Failed' && c.status === 'True') ? 'Failed' : undefined);
  return {
    status: {
      conditions,
      replicatedJobsStatus: status.replicatedJobsStatus ?? [],
      restarts: status.restarts ?? 0,
      ...(terminal === undefined || terminal === null ? {} : { terminalState: terminal }),
    },
  };
};

/** simulated: one case through `lineup simulate --output json --until never`, as a RunRecord. */
const simulated = async (c: ConformanceCase): Promise<RunRecord> => {
  const files = {
    'jobset.yaml': stringify(manifestOf(c, NAMESPACES.lineup, DEFAULT_CONTROLLER_NAME)),
    'behaviour.yaml': stringify(behaviourFileOf(c)),
  };
  const run = await runCli(['simulate', 'jobset.yaml', '--behaviour', 'behaviour.yaml', '--until', 'never', '--output', 'json'], files);
  assert.equal(run.code, 0, `lineup simulate ${c.name}: exit ${run.code}\n${run.stderr}`);
  const report = JSON.parse(run.stdout) as SimulationReport;
  const starts: Record<string, number> = {};
  for (const entry of report.timeline) {
    const started = entry.type === TimelineType.JobResumed || (entry.type === TimelineType.JobCreated && entry.suspended === false);
    if (started && entry.replicatedJob !== undefined) starts[entry.replicatedJob] ??= entry.at;
  }
  const { final } = report;
  return { starts, final: comparedStatus({ ...final, terminalState: final.terminalState ?? undefined }), deleted: false };
};

describe('lineup simulate beside the real pipeline on the real control plane', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let bed: ConformanceBed | undefined;

  before(async () => {
    bed = await ConformanceBed.start({ upstream: false, clusterId: 'conformance-sim' });
  });

  after(async () => {
    await bed?.stop();
  });

  it('starts replicatedJobs in the same order and ends with the same status as the real cluster, JobSet by JobSet', async () => {
    assert.ok(bed);
    const cases = simulatorCases();
    assert.ok(cases.length >= 8, `at least 8 scenarios, got ${cases.length}`);

    // Act
    const real = (await bed.run(cases, ['lineup'], RUN_TIMEOUT_MS)).lineup;
    const simulatedRuns = new Map<string, RunRecord>();
    for (const c of cases) simulatedRuns.set(c.name, await simulated(c));

    // Assess
    const realRuns = new Map(
      [...real.entries()].map(([name, record]) => [name, { ...record, final: comparedStatus(isObject(record.final?.status) ? record.final.status : {}) }]),
    );
    for (const [name, record] of realRuns) assert.notEqual(startOrder(record.starts), '', `${name}: the real pipeline started no replicatedJob`);
    // Timing verdicts (a controller that saw the last stage only once it had finished) are the real cluster's speed, not the simulator's rules.
    const differences = compareRuns(simulatedRuns, realRuns).filter((d) => d.verdict.kind !== 'timing');
    assert.deepEqual(differences, [], `lineup simulate differs from the real cluster (simulator bugs):\n${differenceTable(differences, 'real pipeline').join('\n')}`);
  });
});
