/** `lineup simulate` in process (runSimulate): reports, refusals, --until never and behaviour files. As a real process: simulate.process.test.ts. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runSimulate } from '../../lib/cli/simulate.ts';
import type { SimulateFlags } from '../../lib/cli/simulate.ts';
import type { CliIo } from '../../lib/cli/io.ts';
import { examplePath } from '../repoFiles.ts';

const STORY2 = examplePath('story2-messagequeue-driver-worker.yaml');

const VALID = `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: two-steps}
spec:
  managedBy: lineup.dev/controller
  startupPolicy: {startupPolicyOrder: InOrder}
  replicatedJobs:
  - name: driver
    replicas: 1
    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
  - name: workers
    replicas: 3
    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
`;
// dependsOn on the first replicatedJob: fits the schema, breaks a validation rule.
const INVALID = VALID.replace('  - name: driver\n', '  - name: driver\n    dependsOn: [{name: workers, status: Ready}]\n');
// replicas as a word: does not fit the schema at all.
const SCHEMA_INVALID = VALID.replace('replicas: 3', 'replicas: three');
const NOT_A_JOBSET = 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {}\n';

const FILES: Record<string, string> = {
  'valid.yaml': VALID,
  'invalid.yaml': INVALID,
  'schema-invalid.yaml': SCHEMA_INVALID,
  'not-a-jobset.yaml': NOT_A_JOBSET,
  'not-yaml.yaml': 'spec: {replicatedJobs: [',
  // A million Jobs: the simulator would hold them all in memory; refused before any work.
  'huge.yaml': VALID.replace('two-steps', 'huge').replace('replicas: 3', 'replicas: 1000000'),
  'two.yaml': `${VALID}---\n${VALID.replace('two-steps', 'other')}`,
  'queued.yaml': VALID.replace('metadata: {name: two-steps}', 'metadata: {name: two-steps, labels: {kueue.x-k8s.io/queue-name: team-a}}'),
  'behaviour.yaml': 'default: {readyAfter: 2s, succeedAfter: 10s}\n',
  'bad-behaviour.yaml': 'default: {readyAftr: 2s}\n',
  'never-behaviour.yaml': 'replicatedJobs: {workers: {succeedAfter: never}}\n',
  'long-behaviour.yaml': 'default: {succeedAfter: 30h}\n',
  'typo-behaviour.yaml': 'replicatedJobs: {wrkers: {readyAfter: 2s}}\njobs: {two-steps-workers-3: {failAfter: 1s}, two-steps-driver-0: {readyAfter: 1s}}\nactions: [{at: 5s, deleteJob: two-steps-drivr-0}]\n',
};

/** memoryIo: a CliIo over the files above (and the real file system for the examples). */
const memoryIo = () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readFile: (path) => FILES[path] ?? readFileSync(path, 'utf8'),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
};

const simulateFile = (file: string, flags: SimulateFlags = {}) => {
  const { io, stdout, stderr } = memoryIo();
  const code = runSimulate(file, flags, io);
  return { code, stdout: stdout(), stderr: stderr() };
};

const ENTRY_TYPES = ['JobCreated', 'JobResumed', 'JobSuspended', 'JobReady', 'JobSucceeded', 'JobFailed', 'JobDeleted', 'ConditionChanged', 'Rejected'];
const ENTRY_KEYS = ['at', 'type', 'job', 'replicatedJob', 'suspended', 'condition', 'message'];

describe('cli/simulate', () => {
  it('prints JSON exactly in its stable shape (SimulationReport)', () => {
    // Act
    const { code, stdout, stderr } = simulateFile('valid.yaml', { output: 'json', behaviour: 'behaviour.yaml' });
    // Assess
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(report), ['jobSet', 'timeline', 'final']);
    assert.equal(report.jobSet, 'default/two-steps');
    const final = report.final as Record<string, unknown>;
    assert.deepEqual(Object.keys(final), ['conditions', 'replicatedJobsStatus', 'restarts', 'terminalState']);
    assert.equal(final.terminalState, 'Completed');
    assert.equal(final.restarts, 0);
    const timeline = report.timeline as Record<string, unknown>[];
    assert.ok(timeline.length > 0);
    for (const entry of timeline) {
      assert.equal(typeof entry.at, 'number');
      assert.ok(ENTRY_TYPES.includes(entry.type as string), `unknown entry type ${String(entry.type)}`);
      const keys = Object.keys(entry);
      assert.ok(keys.every((key) => ENTRY_KEYS.includes(key)), `unexpected keys ${keys.join(', ')}`);
      // Keys come in the documented order.
      assert.deepEqual(keys, [...keys].sort((a, b) => ENTRY_KEYS.indexOf(a) - ENTRY_KEYS.indexOf(b)));
      if (entry.type === 'JobCreated') assert.equal(typeof entry.suspended, 'boolean');
      else assert.equal(entry.suspended, undefined);
      if (entry.condition !== undefined) assert.deepEqual(Object.keys(entry.condition as object), ['type', 'status', 'reason', 'message']);
    }
    assert.deepEqual(
      timeline.filter((e) => e.type === 'JobCreated').map((e) => [e.job, e.replicatedJob, e.suspended]),
      [
        ['two-steps-driver-0', 'driver', false],
        ['two-steps-workers-0', 'workers', true],
        ['two-steps-workers-1', 'workers', true],
        ['two-steps-workers-2', 'workers', true],
      ],
    );
  });

  it('prints the same JSON twice for the same input', () => {
    assert.equal(simulateFile(STORY2, { output: 'json' }).stdout, simulateFile(STORY2, { output: 'json' }).stdout);
  });

  it('prints a readable text timeline by default: header, grouped lines, summary', () => {
    const { code, stdout } = simulateFile('valid.yaml', { behaviour: 'behaviour.yaml' });
    assert.equal(code, 0);
    assert.match(stdout, /^JobSet default\/two-steps\n {2}startup InOrder, 2 replicatedJobs, 4 jobs/);
    assert.match(stdout, /\n {4}0\.000s {2}JobCreated {8}driver-0 +running\n/);
    assert.match(stdout, /\n {4}0\.000s {2}JobCreated {8}workers-0\.\.2 \(3 jobs\) +suspended\n/);
    assert.match(stdout, /\n {4}2\.000s {2}JobResumed {8}workers-0\.\.2 \(3 jobs\)\n/);
    assert.match(stdout, /ConditionChanged {2}StartupPolicyCompleted=True +InOrderStartupPolicyCompleted: /);
    assert.match(stdout, /\nResult: Completed, restarts 0/);
    assert.match(stdout, /\n {2}workers +0 +3 +0 +0 +0\n/);
    assert.match(stdout, /\nController: \d+ passes, \d+ writes \(/);
  });

  it('simulates a JobSet naming a Kueue queue as admitted at once, and says when Kueue would count it all ready', () => {
    const queued = simulateFile('queued.yaml', { behaviour: 'behaviour.yaml' });
    assert.equal(queued.code, 0, queued.stderr);
    assert.match(queued.stdout, /\n {2}kueue queue team-a: simulated as admitted at once, never preempted or evicted\n/);
    // The driver is ready at 2 s, the workers resumed then are ready at 4 s: only then is every Job ready.
    assert.match(queued.stdout, /\nKueue: every Job ready or succeeded at 4\.000s: a waitForPodsReady timeout shorter than that evicts it mid-startup\n$/);
    const plain = simulateFile('valid.yaml', { behaviour: 'behaviour.yaml' });
    assert.doesNotMatch(plain.stdout, /kueue|Kueue/);
    // The JSON report keeps its shape.
    assert.deepEqual(Object.keys(JSON.parse(simulateFile('queued.yaml', { output: 'json' }).stdout) as object), ['jobSet', 'timeline', 'final']);
  });

  const exits: { name: string; file: string; flags?: SimulateFlags; code: number; stderr?: RegExp }[] = [
    { name: 'a run that finished', file: 'valid.yaml', code: 0 },
    { name: 'a run stopped by --until', file: 'valid.yaml', flags: { until: '5s' }, code: 0 },
    { name: 'a bad --until value', file: 'valid.yaml', flags: { until: '5 parsecs' }, code: 2, stderr: /--until: duration "5 parsecs" is not valid/ },
    { name: '--latency never (no pass would ever run)', file: 'valid.yaml', flags: { latency: 'never' }, code: 2, stderr: /--latency: never is not allowed/ },
    {
      name: 'a bad --latency value',
      file: 'valid.yaml',
      flags: { latency: 'soon' },
      code: 2,
      stderr: /^lineup simulate: --latency: duration "soon" is not valid: expected terms like 500ms, 5s, 2m, 1h30m \(units h, m, s, ms\), 0 or never\n$/,
    },
    { name: 'an unknown --output', file: 'valid.yaml', flags: { output: 'yaml' }, code: 2, stderr: /--output: "yaml" is not an output format: expected one of text, json/ },
    { name: 'a missing file', file: 'nowhere.yaml', code: 2, stderr: /nowhere\.yaml: / },
    { name: 'a file that is not YAML', file: 'not-yaml.yaml', code: 2, stderr: /not-yaml\.yaml: / },
    { name: 'a file that is not a JobSet', file: 'not-a-jobset.yaml', code: 2, stderr: /not-a-jobset\.yaml: .*Job/ },
    { name: 'a file with two JobSets', file: 'two.yaml', code: 2, stderr: /holds 2 JobSets/ },
    { name: 'a missing behaviour file', file: 'valid.yaml', flags: { behaviour: 'no-behaviour.yaml' }, code: 2, stderr: /^lineup simulate: cannot read behaviour file no-behaviour\.yaml: no such file\n$/ },
    { name: 'a behaviour file with a typo', file: 'valid.yaml', flags: { behaviour: 'bad-behaviour.yaml' }, code: 2, stderr: /bad-behaviour\.yaml: .*"readyAftr"/ },
    {
      name: 'a JobSet of more Jobs than the simulator holds',
      file: 'huge.yaml',
      code: 2,
      stderr: /^lineup simulate: huge\.yaml: JobSet huge makes 1000001 Jobs and 1000001 Pods, more than the 10000 Jobs the simulator runs: it holds every Job in memory \(lower replicas to simulate it\)\n$/,
    },
    { name: 'a JobSet that breaks a validation rule', file: 'invalid.yaml', code: 1 },
    { name: 'a JobSet that does not fit the schema', file: 'schema-invalid.yaml', code: 1 },
  ];
  for (const tc of exits) {
    it(`exits ${tc.code} for ${tc.name}`, () => {
      const { code, stderr } = simulateFile(tc.file, tc.flags);
      assert.equal(code, tc.code, stderr);
      if (tc.stderr) assert.match(stderr, tc.stderr);
      if (tc.code === 2) assert.ok(stderr.startsWith('lineup simulate: '), stderr);
    });
  }

  for (const file of ['invalid.yaml', 'schema-invalid.yaml']) {
    it(`still prints the JSON, with a Rejected entry, for ${file}`, () => {
      const { code, stdout } = simulateFile(file, { output: 'json' });
      assert.equal(code, 1);
      const report = JSON.parse(stdout) as { timeline: { type: string; message?: string }[]; final: { conditions: { type: string; status: string }[] } };
      const rejected = report.timeline.find((entry) => entry.type === 'Rejected');
      assert.ok(rejected?.message, JSON.stringify(report.timeline));
      assert.ok(report.final.conditions.some((c) => c.type === 'Rejected' && c.status === 'True'));
      assert.equal(report.timeline.filter((entry) => entry.type === 'JobCreated').length, 0);
    });
  }
});

describe('cli/simulate --until never and behaviour files', () => {
  it('runs --until never past the 24h default until the JobSet finishes', () => {
    const { code, stdout, stderr } = simulateFile('valid.yaml', { until: 'never', behaviour: 'long-behaviour.yaml' });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /until never\n/);
    assert.match(stdout, /\nResult: Completed, restarts 0 \(nothing left to happen after 1\d\d\d\d\d\.\d{3}s\)\n/);
  });

  it('stops --until never when nothing more is scheduled, and says so', () => {
    const { code, stdout, stderr } = simulateFile('valid.yaml', { until: 'never', behaviour: 'never-behaviour.yaml', output: 'json' });
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
    const report = JSON.parse(stdout) as { final: { terminalState: string | null }; timeline: { at: number }[] };
    assert.equal(report.final.terminalState, null);
    assert.ok(report.timeline.every((entry) => entry.at < 60_000), 'nothing happens after the workers are ready');
    const text = simulateFile('valid.yaml', { until: 'never', behaviour: 'never-behaviour.yaml' });
    assert.match(text.stdout, /\nResult: not finished, restarts 0 \(nothing left to happen after \d+\.\d{3}s\)\n/);
  });

  it('refuses a behaviour file naming replicatedJobs and Jobs the JobSet does not have, listing the ones it has', () => {
    const { code, stdout, stderr } = simulateFile('valid.yaml', { behaviour: 'typo-behaviour.yaml' });
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      'lineup simulate: typo-behaviour.yaml: the behaviour file names what the JobSet does not have: ' +
        'replicatedJobs: wrkers (expected one of driver, workers); ' +
        'jobs: two-steps-workers-3 (expected one of two-steps-driver-0, two-steps-workers-0..2); ' +
        'actions deleteJob: two-steps-drivr-0 (expected one of two-steps-driver-0, two-steps-workers-0..2)\n',
    );
  });
});
