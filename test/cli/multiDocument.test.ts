/**
 * Manifests as people write them: `lineup validate`, `plan` and `simulate` on a multi-document
 * file that holds other kinds beside its JobSet (as upstream's workload-aware-scheduling examples
 * do: a Workload, a PodGroup, RBAC). The JobSet is checked, each other document is named as
 * skipped, and only a file with no JobSet at all is unusable input (exit 2).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from './inProcess.ts';

/** lineup: the CLI in this process, with what it printed. */
const lineup = (...argv: string[]) => runCli(argv);

const WORKLOAD = `apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: gang-training
spec:
  podGroups: [{name: all, policy: {gang: {minCount: 3}}}]
`;
const JOBSET = `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: gang-training
spec:
  startupPolicy: {startupPolicyOrder: InOrder}
  replicatedJobs:
  - name: driver
    template: {spec: {template: {spec: {containers: [{name: driver, image: busybox}]}}}}
  - name: workers
    replicas: 2
    template: {spec: {template: {spec: {containers: [{name: worker, image: busybox}]}}}}
`;
const POD_GROUP = `apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: gang-training
spec: {minMember: 3}
`;
const ROLE = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: trainer
rules: []
`;

describe('cli: multi-document manifests with other kinds beside the JobSet', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-multidoc-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const manifest = join(scratch, 'gang.yaml');
  writeFileSync(manifest, [WORKLOAD, JOBSET, POD_GROUP, ROLE].join('---\n'));
  const noJobSet = join(scratch, 'scheduling.yaml');
  writeFileSync(noJobSet, [WORKLOAD, POD_GROUP].join('---\n'));
  const skipped = [
    `${manifest}: document 1 (line 1): skipped Workload gang-training (scheduling.k8s.io/v1alpha1): not a JobSet`,
    `${manifest}: document 3 (line 20): skipped PodGroup gang-training (scheduling.x-k8s.io/v1alpha1): not a JobSet`,
    `${manifest}: document 4 (line 26): skipped Role trainer (rbac.authorization.k8s.io/v1): not a JobSet`,
  ];
  const noJobSetLine = `${noJobSet}: no JobSet found: the file holds only Workload gang-training, PodGroup gang-training, expected at least one document with kind: JobSet`;

  it('lineup validate checks the JobSet and names each skipped document (exit 0)', async () => {
    const { code, stdout, stderr } = await lineup('validate', manifest);
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`^${manifest.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: gang-training: valid: \\d+ replicatedJobs?, \\d+ Jobs?, \\d+ Pods?\\n$`));
    assert.equal(stderr, skipped.map((line) => `${line}\n`).join(''));
  });

  it('lineup plan plans the JobSet and names each skipped document (exit 0)', async () => {
    const { code, stdout, stderr } = await lineup('plan', manifest);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^gang-training: InOrder \(startupPolicy\), 2 stages\n/);
    assert.equal(stderr, skipped.map((line) => `lineup plan: ${line}\n`).join(''));
  });

  it('lineup simulate runs the JobSet to Completed and names each skipped document (exit 0)', async () => {
    const { code, stdout, stderr } = await lineup('simulate', manifest, '--output', 'json');
    assert.equal(code, 0, stderr);
    assert.equal((JSON.parse(stdout) as { final: { terminalState: string } }).final.terminalState, 'Completed');
    assert.equal(stderr, skipped.map((line) => `lineup simulate: ${line}\n`).join(''));
  });

  for (const command of ['validate', 'plan', 'simulate']) {
    it(`lineup ${command} on a file with no JobSet at all: exit 2, one line naming what it holds`, async () => {
      const { code, stdout, stderr } = await lineup(command, noJobSet);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.equal(stderr, `${command === 'simulate' ? 'lineup simulate: ' : ''}${noJobSetLine}\n`);
    });
  }
});
