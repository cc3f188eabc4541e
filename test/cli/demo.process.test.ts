import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { runDemoCommand, type DemoFlags } from '../../lib/cli/demo.ts';
import type { CliIo } from '../../lib/cli/io.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));

describe('cli/demo', () => {
  it('lineup demo runs the bundled examples through the pipeline and prints a timeline and a summary', () => {
    // The launcher, as a user runs it (it re-executes on the pinned Node 24 when needed).
    const result = spawnSync(process.execPath, ['bin/lineup.js', 'demo', '--speed', '0'], { cwd: repo, encoding: 'utf8', timeout: 120_000 });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /JobResumed/);
    assert.match(result.stdout, /messagequeue-driver-worker\s+Completed/);
    assert.match(result.stdout, /reconciler\s+\d+ events handled, \d+ passes/);
    assert.doesNotMatch(result.stdout, /still running/);
  });

  it('exits 2 with a clear message for a bad --speed', () => {
    const result = spawnSync(process.execPath, ['bin/lineup.js', 'demo', '--speed', 'fast'], { cwd: repo, encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /lineup demo: .*fast/);
  });
});

describe('cli/demo: rejected JobSets, behaviour files, --until never', () => {
  const JOBSET = (name: string, dependsOnItself: boolean): string => `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: ${name}}
spec:
  replicatedJobs:
  - name: driver
    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
  - name: workers
    replicas: 2
${dependsOnItself ? '    dependsOn: [{name: workers, status: Ready}]\n' : ''}    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
`;
  const FILES: Record<string, string> = {
    'fine.yaml': JOBSET('fine', false),
    'self.yaml': JOBSET('self', true),
    'huge.yaml': JOBSET('huge', false).replace('replicas: 2', 'replicas: 100000000'),
    'typo-behaviour.yaml': 'replicatedJobs: {worker: {readyAfter: 2s}}\njobs: {fine-driver-0: {}}\nactions: [{at: 1s, deleteJob: fine-workers-2}]\n',
    'forever-behaviour.yaml': 'default: {succeedAfter: never}\n',
    'other.yaml': JOBSET('other', false),
    'actions-behaviour.yaml': 'actions: [{at: 5s, suspend: true}, {at: 8s, deleteJob: fine-workers-1}, {at: 20s, suspend: false}]\n',
  };
  const demo = async (files: string[], flags: DemoFlags = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      readFile: (path) => {
        const text = FILES[path];
        if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
        return text;
      },
    };
    const code = await runDemoCommand(files, { speed: '0', ...flags }, io);
    return { code, stdout: out.join(''), stderr: err.join('') };
  };

  it('says Rejected, with the reason, for a JobSet the controller rejects, counts it, and exits 1', async () => {
    const { code, stdout, stderr } = await demo(['self.yaml', 'fine.yaml']);
    assert.equal(code, 1, stderr);
    assert.doesNotMatch(stdout, /still running/);
    assert.match(stdout, /\nResult after 30s of virtual time: 1 Completed, 1 Rejected\n/);
    assert.match(stdout, /\n {2}self +Rejected: spec\.replicatedJobs\[1\]\.dependsOn\[0\]\.name: replicatedJob: workers cannot depend on itself/);
    assert.match(stdout, /\n {2}fine +Completed\n/);
  });

  it('refuses a behaviour file naming what the JobSets do not have, naming those and the names that exist', async () => {
    const { code, stdout, stderr } = await demo(['fine.yaml'], { behaviour: 'typo-behaviour.yaml' });
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      'lineup demo: typo-behaviour.yaml: the behaviour file names what the JobSet does not have: ' +
        'replicatedJobs: worker (expected one of driver, workers); actions deleteJob: fine-workers-2 (expected one of fine-driver-0, fine-workers-0..1)\n',
    );
  });

  const oneLine: { name: string; files: string[]; flags: DemoFlags; line: string }[] = [
    { name: 'a missing behaviour file', files: ['fine.yaml'], flags: { behaviour: 'nope.yaml' }, line: 'lineup demo: cannot read behaviour file nope.yaml: no such file\n' },
    { name: 'a missing JobSet file', files: ['nope.yaml'], flags: {}, line: 'lineup demo: nope.yaml: cannot read file: no such file\n' },
    {
      name: 'a JobSet of more Jobs than the simulator holds (before any other file runs)',
      files: ['fine.yaml', 'huge.yaml'],
      flags: {},
      line: 'lineup demo: huge.yaml: JobSet huge makes 100000001 Jobs and 100000001 Pods, more than the 10000 Jobs the simulator runs: it holds every Job in memory (lower replicas to simulate it)\n',
    },
    {
      name: 'a --speed that is no duration',
      files: ['fine.yaml'],
      flags: { speed: 'fast' },
      line: 'lineup demo: --speed: duration "fast" is not valid: expected terms like 500ms, 5s, 2m, 1h30m (units h, m, s, ms), 0 or never\n',
    },
    {
      name: 'an --until that is no duration',
      files: ['fine.yaml'],
      flags: { until: 'soon' },
      line: 'lineup demo: --until: duration "soon" is not valid: expected terms like 500ms, 5s, 2m, 1h30m (units h, m, s, ms), 0 or never\n',
    },
    { name: '--speed never (the clock would never move)', files: ['fine.yaml'], flags: { speed: 'never' }, line: 'lineup demo: --speed: never is not allowed: expected a finite duration such as 40ms, or 0 for as fast as possible\n' },
  ];
  for (const tc of oneLine) {
    it(`exits 2 with one line for ${tc.name}`, async () => {
      const { code, stdout, stderr } = await demo(tc.files, tc.flags);
      assert.equal(code, 2);
      assert.equal(stderr, tc.line);
      assert.equal(stdout, '');
    });
  }

  it("applies the behaviour file's actions at their times to every JobSet, as simulate does: suspend, deleteJob, resume", async () => {
    const { code, stdout, stderr } = await demo(['fine.yaml', 'other.yaml'], { behaviour: 'actions-behaviour.yaml' });
    assert.equal(code, 0, stderr);
    const lines = stdout.split('\n');
    const at = (time: string, what: RegExp): string[] => lines.filter((line) => line.startsWith(time.padStart(7)) && what.test(line));
    for (const jobSet of ['fine', 'other']) {
      assert.equal(at('5.0s', new RegExp(`^ +5\\.0s {2}${jobSet} +JobSuspended {6}`)).length, 3, `${jobSet}: its 3 Jobs suspended at 5s`);
      assert.equal(at('5.0s', new RegExp(`^ +5\\.0s {2}${jobSet} +ConditionChanged {2}Suspended=True {2}jobset is suspended$`)).length, 1);
      assert.equal(at('20.0s', new RegExp(`^ +20\\.0s {2}${jobSet} +JobResumed {8}`)).length, 3, `${jobSet}: its 3 Jobs resumed at 20s`);
      assert.equal(at('20.0s', new RegExp(`^ +20\\.0s {2}${jobSet} +ConditionChanged {2}Suspended=False {2}jobset is resumed$`)).length, 1);
    }
    // The deleted Job is made again by the controller, suspended as its JobSet is.
    assert.match(stdout, /\n {3}8\.0s {2}fine {3}JobDeleted {8}workers-1\n {3}8\.0s {2}fine {3}JobCreated {8}workers-1 \(suspended\)\n/);
    assert.doesNotMatch(stdout, /other +JobDeleted/);
    // 15s suspended: the 30s of work ends at 50s.
    assert.match(stdout, /\nResult after 50s of virtual time: 2 Completed\n/);
  });

  it('runs --until never until nothing more is scheduled, and says so', async () => {
    const { code, stdout, stderr } = await demo(['fine.yaml'], { until: 'never', behaviour: 'forever-behaviour.yaml' });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /\nResult after 1s of virtual time \(nothing left to happen\): 1 still running\n/);
  });
});
