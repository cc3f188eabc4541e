import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UntilNeverText } from '../../lib/sim/constants.ts';
import { formatSimulationText } from '../../lib/sim/format.ts';
import type { SimulationResult } from '../../lib/sim/simulate.ts';
import { TimelineType } from '../../lib/sim/timeline.ts';
import type { TimelineEntry } from '../../lib/sim/timeline.ts';
import { makeJobSet } from '../builders.ts';

const jobSet = makeJobSet('js').replicatedJob('worker', 1).obj();

/** resultOf: a finished run's result around the given timeline. */
const resultOf = (timeline: readonly TimelineEntry[], overrides: Partial<SimulationResult> = {}): SimulationResult => ({
  jobSet: 'default/js',
  timeline,
  final: { conditions: [], replicatedJobsStatus: [], restarts: 0, terminalState: null },
  counters: { passes: 0, writes: 0, actions: {}, errors: 0 },
  passes: [],
  errors: [],
  endedAt: timeline.at(-1)?.at ?? 0,
  stoppedBy: 'quiescent',
  startupForm: 'AnyOrder',
  ...overrides,
});

describe('sim/format', () => {
  it('prints a timeline of more lines than a function call takes arguments', () => {
    // A JobSet restarting every few seconds for a day prints about this many lines.
    const lines = 300_000;
    const timeline: TimelineEntry[] = Array.from({ length: lines }, (_, i) => ({ at: i, type: TimelineType.JobReady, job: `js-worker-0`, replicatedJob: 'worker' }));
    const text = formatSimulationText(resultOf(timeline), { jobSet, until: Infinity, latency: 0 });
    assert.equal(text.split('\n').filter((line) => line.includes('JobReady')).length, lines);
    assert.match(text, /\n {2}299\.999s {2}JobReady {10}worker-0\n/);
  });

  it('says when --until never stopped a run at its limit', () => {
    const text = formatSimulationText(resultOf([], { stoppedBy: 'limit', endedAt: 7 * 24 * 3_600_000 }), { jobSet, until: Infinity, latency: 0 });
    assert.match(text, /\n {2}behaviour built-in defaults, latency 0s, until never\n/);
    assert.ok(text.includes(`Result: not finished, restarts 0 (${UntilNeverText.stoppedAtLimit('168h')})\n`), text);
  });
});
