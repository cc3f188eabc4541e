import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidInputError } from '../../lib/errors.ts';
import { checkBehaviourNames, EMPTY_BEHAVIOUR, loadBehaviour, readBehaviourFile, resolveBehaviour, unknownBehaviourNames } from '../../lib/sim/behaviour.ts';
import type { JobTiming } from '../../lib/sim/behaviour.ts';
import { DEFAULT_FAIL_MESSAGE, DEFAULT_FAIL_REASON } from '../../lib/sim/constants.ts';
import { makeJobSet } from '../builders.ts';

const BUILT_IN: JobTiming = {
  readyAfter: 1_000,
  succeedAfter: 30_000,
  failAfter: Infinity,
  failReason: DEFAULT_FAIL_REASON,
  failMessage: DEFAULT_FAIL_MESSAGE,
};

const LAYERED = `
default: {readyAfter: 2s, succeedAfter: 1m}
replicatedJobs:
  driver: {readyAfter: 5s, succeedAfter: never}
jobs:
  js-driver-1: {failAfter: 3s, failReason: PodFailurePolicy, failMessage: container exited 42}
  js-worker-0: {readyAfter: 0}
`;

describe('sim/behaviour', () => {
  describe('resolveBehaviour', () => {
    const behaviour = loadBehaviour(LAYERED, 'layered.yaml');
    const cases: { name: string; job: { name: string; replicatedJob?: string }; want: JobTiming }[] = [
      {
        name: 'a Job named by nothing takes the file default over the built-in one',
        job: { name: 'js-other-0', replicatedJob: 'other' },
        want: { ...BUILT_IN, readyAfter: 2_000, succeedAfter: 60_000 },
      },
      {
        name: 'a replicatedJob entry overrides the default field by field',
        job: { name: 'js-driver-0', replicatedJob: 'driver' },
        want: { ...BUILT_IN, readyAfter: 5_000, succeedAfter: Infinity },
      },
      {
        name: 'a jobs entry overrides its replicatedJob, and the fields it leaves out fall through',
        job: { name: 'js-driver-1', replicatedJob: 'driver' },
        want: { readyAfter: 5_000, succeedAfter: Infinity, failAfter: 3_000, failReason: 'PodFailurePolicy', failMessage: 'container exited 42' },
      },
      {
        name: 'a jobs entry overrides the default when its replicatedJob has no entry',
        job: { name: 'js-worker-0', replicatedJob: 'worker' },
        want: { ...BUILT_IN, readyAfter: 0, succeedAfter: 60_000 },
      },
      {
        name: 'a Job without a replicatedJob label still gets the default',
        job: { name: 'loose' },
        want: { ...BUILT_IN, readyAfter: 2_000, succeedAfter: 60_000 },
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        assert.deepEqual(resolveBehaviour(behaviour, tc.job), tc.want);
      });
    }

    it('gives the built-in timing when there is no behaviour file', () => {
      assert.deepEqual(resolveBehaviour(EMPTY_BEHAVIOUR, { name: 'x', replicatedJob: 'y' }), BUILT_IN);
    });

    it('treats a Job named like an Object.prototype member as just a name', () => {
      const behaviour = loadBehaviour('jobs: {constructor: {readyAfter: 7s}}', 'b.yaml');
      assert.equal(resolveBehaviour(behaviour, { name: 'constructor' }).readyAfter, 7_000);
      assert.equal(resolveBehaviour(behaviour, { name: 'toString' }).readyAfter, 1_000);
    });
  });

  describe('loadBehaviour', () => {
    it('reads never as Infinity at every level', () => {
      const behaviour = loadBehaviour('default: {succeedAfter: never}\nreplicatedJobs: {a: {readyAfter: never}}', 'b.yaml');
      assert.equal(behaviour.default.succeedAfter, Infinity);
      assert.equal(behaviour.replicatedJobs.get('a')?.readyAfter, Infinity);
    });

    it("reads the behaviour file's actions and sorts them by time, keeping file order at equal times", () => {
      const behaviour = loadBehaviour(
        `actions:
  - {at: 12s, deleteJob: js-worker-0}
  - {at: 4s, suspend: true}
  - {at: 9s, suspend: false}
  - {at: 4s, deleteJob: js-driver-0}`,
        'b.yaml',
      );
      assert.deepEqual(behaviour.actions, [
        { at: 4_000, kind: 'suspend', suspend: true },
        { at: 4_000, kind: 'deleteJob', job: 'js-driver-0' },
        { at: 9_000, kind: 'suspend', suspend: false },
        { at: 12_000, kind: 'deleteJob', job: 'js-worker-0' },
      ]);
    });

    it('reads an empty file as no behaviour at all', () => {
      assert.deepEqual(loadBehaviour('', 'b.yaml'), EMPTY_BEHAVIOUR);
      assert.deepEqual(loadBehaviour('# only a comment\n', 'b.yaml'), EMPTY_BEHAVIOUR);
    });

    const bad: { name: string; text: string; mentions: string[] }[] = [
      { name: 'an unknown top-level key', text: 'defaults: {readyAfter: 1s}', mentions: ['(root)', '"defaults"', 'expected default, replicatedJobs, jobs, actions'] },
      { name: 'a misspelt timing key under default', text: 'default: {raedyAfter: 1s}', mentions: ['default:', '"raedyAfter"', 'expected readyAfter'] },
      { name: 'a misspelt timing key under a replicatedJob', text: 'replicatedJobs: {driver: {succeedafter: 1s}}', mentions: ['replicatedJobs.driver', '"succeedafter"'] },
      { name: 'a misspelt timing key under a Job', text: 'jobs: {js-a-0: {failAftr: 1s}}', mentions: ['jobs.js-a-0', '"failAftr"'] },
      { name: 'an unknown key in an action', text: 'actions: [{at: 1s, suspend: true, resume: true}]', mentions: ['actions.0', '"resume"'] },
      { name: 'a bad duration', text: 'default: {readyAfter: 5 seconds}', mentions: ['default.readyAfter', '"5 seconds"'] },
      { name: 'an action that does nothing', text: 'actions: [{at: 1s}]', mentions: ['actions.0', 'exactly one of suspend, deleteJob (got 0)'] },
      { name: 'an action that does two things', text: 'actions: [{at: 1s, suspend: true, deleteJob: x}]', mentions: ['got 2'] },
      { name: 'an action at never', text: 'actions: [{at: never, suspend: true}]', mentions: ['actions.0.at', 'finite'] },
      { name: 'a file that is a list', text: '- readyAfter: 1s', mentions: ['(root)'] },
      { name: 'text that is not YAML', text: 'default: {readyAfter: [1s', mentions: ['not valid YAML'] },
      {
        name: 'YAML nested deeper than Lineup reads',
        text: `default: ${'['.repeat(100_000)}${']'.repeat(100_000)}`,
        mentions: ['behaviour file: document nested too deeply: more than 100 levels of lists and mappings at line 1, column 109, expected at most 100'],
      },
    ];
    for (const tc of bad) {
      it(`refuses ${tc.name}, naming the file and the place`, () => {
        assert.throws(
          () => loadBehaviour(tc.text, 'b.yaml'),
          (error: unknown) => {
            assert.ok(error instanceof InvalidInputError);
            assert.ok(error.message.startsWith('b.yaml: '), error.message);
            for (const part of tc.mentions) assert.ok(error.message.includes(part), `${JSON.stringify(part)} not in: ${error.message}`);
            // One line: the CLI prints the message as its only line (the yaml package adds a code frame after its first).
            assert.doesNotMatch(error.message, /\n/);
            return true;
          },
        );
      });
    }
  });
});

describe('sim/behaviour: names the JobSets must have', () => {
  const js = makeJobSet('js').replicatedJob('driver', 1).replicatedJob('workers', 3).obj();
  const other = makeJobSet('other').replicatedJob('ps', 2).obj();
  const problems = (text: string, jobSets = [js]): string[] => unknownBehaviourNames(loadBehaviour(text, 'b.yaml'), jobSets);

  it('accepts every replicatedJob and every Job the JobSet has, in jobs, replicatedJobs and deleteJob', () => {
    const text = 'replicatedJobs: {driver: {readyAfter: 1s}, workers: {}}\njobs: {js-driver-0: {}, js-workers-0: {}, js-workers-2: {}}\nactions: [{at: 1s, deleteJob: js-workers-1}]';
    assert.deepEqual(problems(text), []);
  });

  const cases: { name: string; text: string; want: string[] }[] = [
    { name: 'a misspelt replicatedJob', text: 'replicatedJobs: {wrkers: {readyAfter: 1s}}', want: ['replicatedJobs: wrkers (expected one of driver, workers)'] },
    { name: 'a Job past the last index', text: 'jobs: {js-workers-3: {failAfter: 1s}}', want: ['jobs: js-workers-3 (expected one of js-driver-0, js-workers-0..2)'] },
    { name: 'a Job of another JobSet', text: 'jobs: {other-ps-0: {}}', want: ['jobs: other-ps-0 (expected one of js-driver-0, js-workers-0..2)'] },
    { name: 'a Job index with a leading zero', text: 'jobs: {js-workers-01: {}}', want: ['jobs: js-workers-01 (expected one of js-driver-0, js-workers-0..2)'] },
    { name: 'a Job named without index', text: 'jobs: {js-driver: {}}', want: ['jobs: js-driver (expected one of js-driver-0, js-workers-0..2)'] },
    {
      name: 'a deleteJob of a Job that does not exist, named once however often it is deleted',
      text: 'actions: [{at: 1s, deleteJob: js-drivr-0}, {at: 2s, deleteJob: js-drivr-0}]',
      want: ['actions deleteJob: js-drivr-0 (expected one of js-driver-0, js-workers-0..2)'],
    },
    {
      name: 'unknown names in every place at once, each place reported',
      text: 'replicatedJobs: {a: {}, b: {}}\njobs: {js-a-0: {}}\nactions: [{at: 1s, deleteJob: js-b-0}]',
      want: [
        'replicatedJobs: a, b (expected one of driver, workers)',
        'jobs: js-a-0 (expected one of js-driver-0, js-workers-0..2)',
        'actions deleteJob: js-b-0 (expected one of js-driver-0, js-workers-0..2)',
      ],
    },
  ];
  for (const tc of cases) {
    it(`reports ${tc.name}, with the names that exist`, () => assert.deepEqual(problems(tc.text), tc.want));
  }

  it('knows the names of every JobSet it is given (lineup demo runs several)', () => {
    assert.deepEqual(problems('replicatedJobs: {ps: {}}\njobs: {other-ps-1: {}, js-driver-0: {}}', [js, other]), []);
    assert.deepEqual(problems('jobs: {other-ps-2: {}}', [js, other]), ['jobs: other-ps-2 (expected one of js-driver-0, js-workers-0..2, other-ps-0..1)']);
  });

  it('checkBehaviourNames throws InvalidInputError naming the file and every problem', () => {
    assert.doesNotThrow(() => checkBehaviourNames(loadBehaviour('replicatedJobs: {driver: {}}', 'b.yaml'), [js], 'b.yaml'));
    assert.throws(
      () => checkBehaviourNames(loadBehaviour('replicatedJobs: {drivr: {}}\njobs: {js-x-0: {}}', 'b.yaml'), [js], 'b.yaml'),
      (error: unknown) => {
        assert.ok(error instanceof InvalidInputError);
        assert.equal(
          error.message,
          'b.yaml: the behaviour file names what the JobSet does not have: replicatedJobs: drivr (expected one of driver, workers); jobs: js-x-0 (expected one of js-driver-0, js-workers-0..2)',
        );
        return true;
      },
    );
  });
});

describe('sim/behaviour: readBehaviourFile', () => {
  const enoent = (path: string): never => {
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT', errno: -2, syscall: 'open', path });
  };

  it('says in one line that the file does not exist', () => {
    assert.throws(
      () => readBehaviourFile('nope.yaml', enoent),
      (error: unknown) => {
        assert.ok(error instanceof InvalidInputError);
        assert.equal(error.message, 'cannot read behaviour file nope.yaml: no such file');
        return true;
      },
    );
  });

  it('loads the file it reads', () => {
    assert.equal(readBehaviourFile('b.yaml', () => 'default: {readyAfter: 2s}').default.readyAfter, 2_000);
  });
});
