/**
 * Differential conformance against upstream JobSet v0.12.0: the integration tier's share of the
 * scenarios (test/conformance/generate.ts integrationCases: every startup form and every
 * variant), each as a Lineup twin and an upstream twin on one API server with the real control
 * plane minus kubelet, both controllers at once. Per JobSet the order in which replicatedJobs
 * started (from the request times that ran the Jobs) and the final status (counters, terminal
 * state, restarts, conditions) must match, or the difference must have a verdict whose check
 * against the run's recorded data holds (test/conformance/verdictChecks.ts, the same checks as
 * bench/differential.ts, which runs the whole matrix): a difference not documented, or one whose
 * data contradict its explanation (not explained), fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compareRuns, differenceTable, startOrder, undocumented } from '../../conformance/compare.ts';
import { integrationCases } from '../../conformance/generate.ts';
import { COLD_START_TIMEOUT_MS } from '../k8s/support.ts';
import { ConformanceBed } from './bed.ts';

/** RUN_TIMEOUT_MS: every twin to a terminal state on a loaded 2-core machine. */
const RUN_TIMEOUT_MS = 4 * 60_000;

describe('differential conformance: Lineup twins beside upstream JobSet twins on the real control plane', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let bed: ConformanceBed | undefined;

  before(async () => {
    bed = await ConformanceBed.start({ upstream: true, clusterId: 'conformance-diff' });
  });

  after(async () => {
    await bed?.stop();
  });

  it('starts replicatedJobs in the same order and ends with the same status, but for the documented deviations', async () => {
    assert.ok(bed);
    const cases = integrationCases();
    assert.ok(cases.length >= 10, `the integration tier runs at least 10 scenarios, got ${cases.length}`);

    // Act
    const runs = await bed.run(cases, ['lineup', 'upstream'], RUN_TIMEOUT_MS);

    // Assess
    for (const c of cases) {
      const ours = runs.lineup.get(c.name);
      const theirs = runs.upstream.get(c.name);
      assert.ok(ours?.final !== undefined && theirs?.final !== undefined, `${c.name}: both twins were seen`);
      // Every JobSet started something on both sides (a run that started nothing would compare equal and prove nothing).
      assert.notEqual(startOrder(ours.starts), '', `${c.name}: Lineup started no replicatedJob`);
      assert.notEqual(startOrder(theirs.starts), '', `${c.name}: upstream started no replicatedJob`);
    }
    const differences = compareRuns(runs.lineup, runs.upstream);
    process.stderr.write(`differential conformance, ${cases.length} JobSets:\n${differenceTable(differences).join('\n')}\n`);
    const failing = undocumented(differences);
    assert.deepEqual(failing, [], `differences not documented or not explained:\n${differenceTable(failing).join('\n')}\n${failing.flatMap((d) => Object.entries(d.evidence ?? {}).map(([name, lines]) => `${name}: ${lines.join(' | ')}`)).join('\n')}`);
    // Every difference carries the recorded data its verdict rests on.
    for (const d of differences.filter((d) => d.field !== 'start order')) assert.ok(d.evidence !== undefined, `${d.field}: a verdict without evidence`);
    // The gated forms really ran in stages (equal orders of one stage would prove little); upstream
    // reacts in milliseconds, so its twin always reaches a second stage before the JobSet ends.
    for (const c of cases.filter((c) => c.form !== 'none' && c.form !== 'any')) {
      assert.match(startOrder(runs.upstream.get(c.name)?.starts ?? {}), / \| /, `${c.name}: upstream started it in stages`);
    }
  });
});
