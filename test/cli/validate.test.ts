/** `lineup validate` in process (runValidate): each verdict, its exit code and what it prints. As a real process: validate.process.test.ts. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { CliIo } from '../../lib/cli/io.ts';
import { runValidate } from '../../lib/cli/validate.ts';
import { exampleFiles } from '../repoFiles.ts';
import { dependsOn, examplesValid, jobSetYaml, rjob } from './validateFixtures.ts';

/** memoryIo: a CliIo over in-memory files that records what the command writes. */
const memoryIo = (files: Readonly<Record<string, string>>): { io: CliIo; stdout: () => string; stderr: () => string } => {
  const out: string[] = [];
  const err: string[] = [];
  const contents = new Map(Object.entries(files));
  const io: CliIo = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readFile: (path) => {
      const text = contents.get(path);
      // Thrown like fs.readFileSync does, code included.
      if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
      return text;
    },
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
};

const valid = jobSetYaml('valid', [rjob('driver'), rjob('workers', dependsOn('{name: driver, status: Ready}'))]);

describe('cli/validate', () => {
  describe('runValidate', () => {
    const cases: { name: string; files: Record<string, string>; args: string[]; wantExit: number; wantStdout: string; wantStderr: string | RegExp }[] = [
      {
        name: 'a valid JobSet exits 0 and says so',
        files: { 'js.yaml': valid },
        args: ['js.yaml'],
        wantExit: 0,
        wantStdout: 'js.yaml: valid: 2 replicatedJobs, 2 Jobs, 2 Pods\n',
        wantStderr: '',
      },
      {
        name: 'a valid JobSet says how many Jobs and Pods it makes: replicas summed, pods per Job bounded by completions',
        files: { 'size.yaml': jobSetYaml('size', [rjob('driver'), rjob('workers', '    replicas: 2\n').replace('      spec:\n', '      spec:\n        parallelism: 4\n        completions: 3\n')]) },
        args: ['size.yaml'],
        wantExit: 0,
        wantStdout: 'size.yaml: valid: 2 replicatedJobs, 3 Jobs, 7 Pods\n',
        wantStderr: '',
      },
      {
        name: 'a JobSet naming a Kueue queue is valid, with a note on stderr of what Kueue does and what to set',
        files: { 'queued.yaml': valid.replace('  name: valid\n', '  name: valid\n  labels: {kueue.x-k8s.io/queue-name: team-a, kueue.x-k8s.io/priority-class: high}\n') },
        args: ['queued.yaml'],
        wantExit: 0,
        wantStdout: 'queued.yaml: valid: 2 replicatedJobs, 2 Jobs, 2 Pods\n',
        wantStderr: /^queued\.yaml: note: names Kueue queue team-a, priority class high: Kueue holds it suspended until it admits it, then Lineup starts it; with waitForPodsReady, set the timeout longer than its whole startup \(lineup simulate prints it\)\n$/,
      },
      {
        name: 'a JobSet bigger than the controller accepts is invalid (exit 1), in one line naming the bound and its variable',
        files: { 'huge.yaml': jobSetYaml('huge', [rjob('driver'), rjob('workers', '    replicas: 100000\n')]) },
        args: ['huge.yaml'],
        wantExit: 1,
        wantStdout:
          'huge.yaml: spec.replicatedJobs: JobSet makes 100001 Jobs and 100001 Pods, more than the 10000 Jobs (LINEUP_MAX_JOBS_PER_JOBSET) and 100000 Pods (LINEUP_MAX_PODS_PER_JOBSET) this controller accepts\n',
        wantStderr: '',
      },
      {
        name: 'a JobSet at the default bound of 10,000 Jobs is valid',
        files: { 'edge.yaml': jobSetYaml('edge', [rjob('workers', '    replicas: 10000\n')]) },
        args: ['edge.yaml'],
        wantExit: 0,
        wantStdout: 'edge.yaml: valid: 1 replicatedJob, 10000 Jobs, 10000 Pods\n',
        wantStderr: '',
      },
      {
        name: 'a file that is not YAML is unusable input (exit 2)',
        files: { 'bad.yaml': 'kind: JobSet\nspec: [unclosed\n' },
        args: ['bad.yaml'],
        wantExit: 2,
        wantStdout: '',
        wantStderr: /^bad\.yaml: not valid YAML: .+ at line \d+, column \d+\n$/,
      },
      {
        name: 'a YAML file that holds no JobSet, only another kind, is unusable input (exit 2)',
        files: { 'pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n' },
        args: ['pod.yaml'],
        wantExit: 2,
        wantStdout: '',
        wantStderr: 'pod.yaml: no JobSet found: the file holds only Pod p, expected at least one document with kind: JobSet\n',
      },
      {
        name: 'a document without kind or apiVersion is unusable input (exit 2)',
        files: { 'bare.yaml': 'metadata: {name: p}\n' },
        args: ['bare.yaml'],
        wantExit: 2,
        wantStdout: '',
        wantStderr: 'bare.yaml: not a JobSet: kind is missing, expected JobSet\n',
      },
      {
        name: 'a manifest as upstream examples are written (Workload, PodGroup and RBAC beside the JobSet): the JobSet is checked, each other document named as skipped (exit 0)',
        files: {
          'gang.yaml': [
            'apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: gang-training}\nspec: {podGroups: [{name: all}]}\n',
            valid,
            'apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: gang-training}\n',
            'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: trainer}\nrules: []\n',
          ].join('---\n'),
        },
        args: ['gang.yaml'],
        wantExit: 0,
        wantStdout: 'gang.yaml: valid: valid: 2 replicatedJobs, 2 Jobs, 2 Pods\n',
        wantStderr: [
          'gang.yaml: document 1 (line 1): skipped Workload gang-training (scheduling.k8s.io/v1alpha1): not a JobSet\n',
          'gang.yaml: document 3 (line 26): skipped PodGroup gang-training (scheduling.x-k8s.io/v1alpha1): not a JobSet\n',
          'gang.yaml: document 4 (line 30): skipped Role trainer (rbac.authorization.k8s.io/v1): not a JobSet\n',
        ].join(''),
      },
      {
        name: 'a manifest of other kinds only is unusable input and names them (exit 2)',
        files: { 'rbac.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: rb}\n' },
        args: ['rbac.yaml'],
        wantExit: 2,
        wantStdout: '',
        wantStderr: 'rbac.yaml: no JobSet found: the file holds only ServiceAccount sa, RoleBinding rb, expected at least one document with kind: JobSet\n',
      },
      {
        name: 'an invalid JobSet beside other kinds is still invalid (exit 1)',
        files: { 'mixed.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n---\n${jobSetYaml('broken', [rjob('a', '    replicas: -2\n')])}` },
        args: ['mixed.yaml'],
        wantExit: 1,
        wantStdout: 'mixed.yaml: broken: spec.replicatedJobs[0].replicas: must be 0 or more, got -2\n',
        wantStderr: 'mixed.yaml: document 1 (line 1): skipped ConfigMap cm (v1): not a JobSet\n',
      },
      {
        name: 'a JobSet of another API version is unusable input (exit 2)',
        files: { 'old.yaml': valid.replace('jobset.x-k8s.io/v1alpha2', 'jobset.x-k8s.io/v1alpha1') },
        args: ['old.yaml'],
        wantExit: 2,
        wantStdout: '',
        wantStderr: 'old.yaml: not a JobSet: apiVersion is jobset.x-k8s.io/v1alpha1, expected jobset.x-k8s.io/v1alpha2\n',
      },
      {
        name: 'a YAML list is unusable input (exit 2)',
        files: { 'list.yaml': '- a\n- b\n' },
        args: ['list.yaml'],
        wantExit: 2,
        wantStdout: '',
        wantStderr: 'list.yaml: not a JobSet: the document is a list of 2, expected a mapping with kind: JobSet\n',
      },
      {
        name: 'an empty file is unusable input (exit 2)',
        files: { 'empty.yaml': '# nothing here\n' },
        args: ['empty.yaml'],
        wantExit: 2,
        wantStdout: '',
        wantStderr: 'empty.yaml: no JobSet found: the file holds no YAML document\n',
      },
      {
        name: 'a missing file is unusable input (exit 2)',
        files: {},
        args: ['missing.yaml'],
        wantExit: 2,
        wantStdout: '',
        wantStderr: 'missing.yaml: cannot read file: no such file\n',
      },
      {
        name: 'no FILE at all is a usage error (exit 2)',
        files: {},
        args: [],
        wantExit: 2,
        wantStdout: '',
        wantStderr: 'lineup validate: expected at least one FILE\n',
      },
      {
        name: 'negative replicas are invalid (exit 1)',
        files: { 'neg.yaml': jobSetYaml('neg', [rjob('a', '    replicas: -1\n')]) },
        args: ['neg.yaml'],
        wantExit: 1,
        wantStdout: 'neg.yaml: spec.replicatedJobs[0].replicas: must be 0 or more, got -1\n',
        wantStderr: '',
      },
      {
        name: 'an unknown dependsOn status breaks the schema (exit 1)',
        files: { 'status.yaml': jobSetYaml('status', [rjob('a'), rjob('b', dependsOn('{name: a, status: Failed}'))]) },
        args: ['status.yaml'],
        wantExit: 1,
        wantStdout: 'status.yaml: spec.replicatedJobs[1].dependsOn[0].status: unsupported value "Failed", expected one of: "Ready", "Complete"\n',
        wantStderr: '',
      },
      {
        name: 'six dependencies are invalid (exit 1)',
        files: {
          'six.yaml': jobSetYaml('six', [
            ...['a', 'b', 'c', 'd', 'e', 'f'].map((n) => rjob(n)),
            rjob('g', dependsOn(...['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `{name: ${n}, status: Ready}`))),
          ]),
        },
        args: ['six.yaml'],
        wantExit: 1,
        wantStdout: `six.yaml: spec.replicatedJobs[6].dependsOn: dependsOn has 6 items, expected at most 5\n`,
        wantStderr: '',
      },
      {
        name: 'a forward reference that closes a cycle (the only cycle upstream can express) is invalid and names the cycle (exit 1)',
        files: { 'cycle.yaml': jobSetYaml('cycle', [rjob('a'), rjob('b', dependsOn('{name: c, status: Ready}')), rjob('c', dependsOn('{name: b, status: Ready}'))]) },
        args: ['cycle.yaml'],
        wantExit: 1,
        wantStdout:
          'cycle.yaml: spec.replicatedJobs[1].dependsOn[0].name: dependsOn names c, which leads back to b: a cycle b → c → b, whose replicatedJobs would wait for each other forever (a replicatedJob may depend only on one declared before it)\n',
        wantStderr: '',
      },
      {
        name: 'a forward reference is invalid and names the replicatedJob declared later (exit 1)',
        files: { 'forward.yaml': jobSetYaml('forward', [rjob('a'), rjob('b', dependsOn('{name: c, status: Ready}')), rjob('c')]) },
        args: ['forward.yaml'],
        wantExit: 1,
        wantStdout:
          'forward.yaml: spec.replicatedJobs[1].dependsOn[0].name: dependsOn names c, which is declared after b (spec.replicatedJobs[2]): a replicatedJob may depend only on one declared before it\n',
        wantStderr: '',
      },
      {
        name: 'a dependsOn naming no replicatedJob is invalid and lists the replicatedJobs (exit 1)',
        files: { 'ghost.yaml': jobSetYaml('ghost', [rjob('a'), rjob('b', dependsOn('{name: ghost, status: Ready}'))]) },
        args: ['ghost.yaml'],
        wantExit: 1,
        wantStdout: 'ghost.yaml: spec.replicatedJobs[1].dependsOn[0].name: dependsOn names ghost, which is not a replicatedJob of this JobSet; the replicatedJobs are a, b\n',
        wantStderr: '',
      },
      {
        name: 'a self-dependency is invalid (exit 1)',
        files: { 'self.yaml': jobSetYaml('self', [rjob('a'), rjob('b', dependsOn('{name: b, status: Complete}'))]) },
        args: ['self.yaml'],
        wantExit: 1,
        wantStdout: `self.yaml: spec.replicatedJobs[1].dependsOn[0].name: replicatedJob: b cannot depend on itself (upstream admits this and the replicatedJob never starts; Lineup rejects it)\n`,
        wantStderr: '',
      },
      {
        name: 'a startup-rules annotation that is not a list is invalid (exit 1)',
        files: { 'rules.yaml': jobSetYaml('rules', [rjob('a'), rjob('b')], { annotations: '  annotations:\n    lineup.dev/startup-rules: "a, then b"\n' }) },
        args: ['rules.yaml'],
        wantExit: 1,
        wantStdout: `rules.yaml: metadata.annotations[lineup.dev/startup-rules]: expected a list of rules ({targetReplicatedJobs: [names], status} or {name, status}), got the string "a, then b"\n`,
        wantStderr: '',
      },
      {
        name: 'several JobSets in one file are named on each line',
        files: { 'many.yaml': `${valid}---\n${jobSetYaml('broken', [rjob('a', '    replicas: -2\n')])}` },
        args: ['many.yaml'],
        wantExit: 1,
        wantStdout: 'many.yaml: valid: valid: 2 replicatedJobs, 2 Jobs, 2 Pods\nmany.yaml: broken: spec.replicatedJobs[0].replicas: must be 0 or more, got -2\n',
        wantStderr: '',
      },
      {
        name: 'empty documents are skipped and do not count as several',
        files: { 'sep.yaml': `---\n# only a comment\n---\n${valid}---\n` },
        args: ['sep.yaml'],
        wantExit: 0,
        wantStdout: 'sep.yaml: valid: 2 replicatedJobs, 2 Jobs, 2 Pods\n',
        wantStderr: '',
      },
      {
        name: 'a document without a name is named by its number and line',
        files: { 'anon.yaml': `${valid}---\napiVersion: v1\nkind: ConfigMap\n---\n${jobSetYaml('', [rjob('a')]).replace('  name: \n', '  generateName: anon-\n')}` },
        args: ['anon.yaml'],
        wantExit: 0,
        wantStdout: 'anon.yaml: valid: valid: 2 replicatedJobs, 2 Jobs, 2 Pods\nanon.yaml: document 3 (line 24): valid: 1 replicatedJob, 1 Job, 1 Pod\n',
        wantStderr: 'anon.yaml: document 2 (line 21): skipped ConfigMap (v1): not a JobSet\n',
      },
      {
        name: 'every file is checked and unusable input wins over invalid',
        files: { 'neg.yaml': jobSetYaml('neg', [rjob('a', '    replicas: -1\n')]), 'ok.yaml': valid },
        args: ['neg.yaml', 'missing.yaml', 'ok.yaml'],
        wantExit: 2,
        wantStdout: 'neg.yaml: spec.replicatedJobs[0].replicas: must be 0 or more, got -1\nok.yaml: valid: 2 replicatedJobs, 2 Jobs, 2 Pods\n',
        wantStderr: 'missing.yaml: cannot read file: no such file\n',
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        // Prepare
        const { io, stdout, stderr } = memoryIo(tc.files);
        // Act
        const exit = runValidate(tc.args, io);
        // Assess
        assert.equal(stdout(), tc.wantStdout);
        if (typeof tc.wantStderr === 'string') assert.equal(stderr(), tc.wantStderr);
        else assert.match(stderr(), tc.wantStderr);
        assert.equal(exit, tc.wantExit);
      });
    }

    it('validates every reference example (exit 0)', () => {
      // Prepare
      const files = exampleFiles();
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIo = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readFile: (p) => readFileSync(p, 'utf8') };
      // Act
      const exit = runValidate(files, io);
      // Assess
      assert.deepEqual(err, []);
      assert.match(out.join(''), examplesValid(files));
      assert.equal(exit, 0);
    });
  });
});
