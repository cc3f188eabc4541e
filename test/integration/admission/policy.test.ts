/**
 * The shipped ValidatingAdmissionPolicy (infra/manifests/validating-admission-policy.yaml)
 * against a real kube-apiserver with the upstream JobSet CRD: JobSets that break a startup
 * rule are refused with the message `lineup validate` gives for them (lib/jobset/validation.ts)
 * (for a dependsOn naming no earlier replicatedJob: upstream's one message, where validate names
 * the cause: an unknown name, a later one or a cycle, which CEL cannot find),
 * valid ones and other controllers' JobSets are admitted, and updates are judged only when the
 * startup-rules annotation changes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { AdmissionMessage } from '../../../lib/jobset/admission.ts';
import { LineupKey } from '../../../lib/jobset/api.ts';
import { applyDefaults } from '../../../lib/jobset/defaults.ts';
import type { JobSet } from '../../../lib/jobset/schema.ts';
import { validateJobSet } from '../../../lib/jobset/validation.ts';
import { makeJobSet } from '../../builders.ts';
import { startKubeApiServer } from '../harness/index.ts';
import type { KubeServer } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS, eventually } from '../k8s/support.ts';

const POLICY_FILE = fileURLToPath(new URL('../../../infra/manifests/validating-admission-policy.yaml', import.meta.url));
const NS = 'default';
const JOBSETS = `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NS}/jobsets`;
const RULES = '[{name: driver, status: Ready}]';

/** asCreated: the JobSet as a user writes it (no uid or resourceVersion). */
const asCreated = (jobSet: JobSet): JobSet => {
  const { uid: _uid, resourceVersion: _rv, ...metadata } = jobSet.metadata;
  return { ...jobSet, metadata };
};

/** lineupMessages: what `lineup validate` says about the JobSet (its messages only). */
const lineupMessages = (jobSet: JobSet): string[] => validateJobSet(applyDefaults(jobSet)).map((error) => error.message);

/** statusMessage: the message of a Kubernetes Status body. */
const statusMessage = (body: string): string => (JSON.parse(body) as { message?: string }).message ?? body;

describe('ValidatingAdmissionPolicy lineup-startup-policy against kube-apiserver', () => {
  let kube: KubeServer | undefined;
  const server = (): KubeServer => {
    if (!kube) throw new Error('kube-apiserver did not start');
    return kube;
  };
  const create = (jobSet: JobSet) => server().request('POST', JOBSETS, asCreated(jobSet));

  before(
    async () => {
      kube = await startKubeApiServer();
      await kube.applyYamlFile(POLICY_FILE);
      // The API server compiles and loads a new policy asynchronously: wait until it refuses.
      const probe = makeJobSet('probe').replicatedJob('driver', 1, { dependsOn: [{ name: 'worker', status: 'Ready' }] }).replicatedJob('worker', 1).obj();
      await eventually(
        'the policy is in force',
        async () => {
          const response = await create(probe);
          if (response.status < 400) await server().request('DELETE', `${JOBSETS}/probe`);
          assert.equal(response.status, 422, response.body);
        },
        30_000,
        250,
      );
    },
    { timeout: COLD_START_TIMEOUT_MS },
  );
  after(() => kube?.stop());

  /** denial: what the policy says when it is not lineup validate's message (see the header). */
  const refused: { name: string; jobSet: JobSet; denial?: string }[] = [
    {
      name: 'dependsOn on the first replicatedJob',
      jobSet: makeJobSet('first-depends').replicatedJob('driver', 1, { dependsOn: [{ name: 'worker', status: 'Ready' }] }).replicatedJob('worker', 1).obj(),
    },
    {
      name: 'a forward reference',
      jobSet: makeJobSet('forward-ref')
        .replicatedJob('mq', 1)
        .replicatedJob('driver', 1, { dependsOn: [{ name: 'worker', status: 'Ready' }] })
        .replicatedJob('worker', 1)
        .obj(),
      denial: AdmissionMessage.cannotDependOn('driver', 'worker'),
    },
    {
      name: 'an unknown name',
      jobSet: makeJobSet('unknown-ref').replicatedJob('driver', 1).replicatedJob('worker', 1, { dependsOn: [{ name: 'nobody', status: 'Complete' }] }).obj(),
      denial: AdmissionMessage.cannotDependOn('worker', 'nobody'),
    },
    {
      name: 'a self-dependency',
      jobSet: makeJobSet('self-ref').replicatedJob('driver', 1).replicatedJob('worker', 1, { dependsOn: [{ name: 'worker', status: 'Ready' }] }).obj(),
    },
    {
      name: 'the startup-rules annotation with InOrder',
      jobSet: makeJobSet('rules-inorder').inOrder().annotation(LineupKey.StartupRulesAnnotation, RULES).replicatedJob('driver', 1).replicatedJob('worker', 1).obj(),
    },
    {
      name: 'the startup-rules annotation with dependsOn',
      jobSet: makeJobSet('rules-depends')
        .annotation(LineupKey.StartupRulesAnnotation, RULES)
        .replicatedJob('driver', 1)
        .replicatedJob('worker', 1, { dependsOn: [{ name: 'driver', status: 'Ready' }] })
        .obj(),
    },
  ];
  for (const tc of refused) {
    it(`refuses ${tc.name} with the message lineup validate gives`, async () => {
      // Prepare
      const expected = lineupMessages(tc.jobSet);
      assert.notEqual(expected.length, 0, 'the case must be invalid for lineup validate too');
      // Act
      const response = await create(tc.jobSet);
      // Assess
      assert.equal(response.status, 422, response.body);
      const message = statusMessage(response.body);
      assert.match(message, /ValidatingAdmissionPolicy 'lineup-startup-policy'/);
      const carried = tc.denial === undefined ? expected : [tc.denial];
      assert.ok(carried.some((text) => message.includes(text)), `denial ${JSON.stringify(message)} carries none of ${JSON.stringify(carried)}`);
    });
  }

  const admitted: { name: string; jobSet: JobSet }[] = [
    {
      name: 'a valid dependsOn chain',
      jobSet: makeJobSet('good-depends')
        .replicatedJob('mq', 1)
        .replicatedJob('driver', 2, { dependsOn: [{ name: 'mq', status: 'Ready' }] })
        .replicatedJob('worker', 2, { dependsOn: [{ name: 'mq', status: 'Ready' }, { name: 'driver', status: 'Complete' }] })
        .obj(),
    },
    { name: 'an InOrder JobSet', jobSet: makeJobSet('good-inorder').inOrder().replicatedJob('driver', 1).replicatedJob('worker', 2).obj() },
    {
      name: 'the startup-rules annotation alone',
      jobSet: makeJobSet('good-rules').annotation(LineupKey.StartupRulesAnnotation, RULES).replicatedJob('driver', 1).replicatedJob('worker', 1).obj(),
    },
    {
      name: "another controller's JobSet, even with dependsOn on its first replicatedJob",
      jobSet: makeJobSet('not-lineups')
        .managedBy('example.com/other')
        .replicatedJob('driver', 1, { dependsOn: [{ name: 'worker', status: 'Ready' }] })
        .replicatedJob('worker', 1)
        .obj(),
    },
  ];
  for (const tc of admitted) {
    it(`admits ${tc.name}`, async () => {
      const response = await create(tc.jobSet);
      assert.equal(response.status, 201, response.body);
    });
  }

  it('judges an update only when it changes the startup-rules annotation', async () => {
    // Prepare: an InOrder JobSet the policy admitted.
    const created = await create(makeJobSet('update-me').inOrder().replicatedJob('driver', 1).replicatedJob('worker', 1).obj());
    assert.equal(created.status, 201, created.body);
    const path = `${JOBSETS}/update-me`;
    const patch = (annotations: Record<string, string>) =>
      server().request('PATCH', path, { metadata: { annotations } }, { contentType: 'application/merge-patch+json' });
    // Act + Assess: another annotation passes; adding the rules to an InOrder JobSet does not.
    const other = await patch({ 'example.com/note': 'fine' });
    assert.equal(other.status, 200, other.body);
    const rules = await patch({ [LineupKey.StartupRulesAnnotation]: RULES });
    assert.equal(rules.status, 422, rules.body);
    assert.match(statusMessage(rules.body), /two startup forms at once/);
  });
});
