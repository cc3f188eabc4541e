/** The conformance scenarios: enough of them, deterministic, valid, and covering what the issue asks. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { applyDefaults } from '../../lib/jobset/defaults.ts';
import { loadJobSets } from '../../lib/jobset/load.ts';
import { validateJobSet } from '../../lib/jobset/validation.ts';
import { parseBehaviour } from '../../lib/sim/behaviour.ts';
import { behaviourFileOf, conformanceCases, FORMS, integrationCases, manifestOf, SIMULATOR_FAILURE_AFTER_MS, simulatorCases, VARIANTS } from './generate.ts';

describe('conformance scenarios', () => {
  const cases = conformanceCases();

  it('are at least 40, with unique names, the same list on every call', () => {
    assert.ok(cases.length >= 40, `${cases.length} scenarios`);
    assert.equal(new Set(cases.map((c) => c.name)).size, cases.length);
    assert.deepEqual(conformanceCases(), cases);
  });

  it('cover every startup form and every variant, replicas 1 to 5 and parallelism above 1', () => {
    assert.deepEqual([...new Set(cases.map((c) => c.form))].sort(), Object.keys(FORMS).sort());
    assert.deepEqual([...new Set(cases.map((c) => c.variant))].sort(), [...VARIANTS].sort());
    const replicatedJobs = cases.flatMap((c) => c.spec.replicatedJobs as { replicas: number; template: { spec: { parallelism: number; completions: number } } }[]);
    assert.deepEqual([...new Set(replicatedJobs.map((r) => r.replicas))].sort(), [1, 2, 3, 4, 5]);
    assert.ok(replicatedJobs.some((r) => r.template.spec.parallelism === 2 && r.template.spec.completions === 2));
    const specs = cases.map((c) => JSON.stringify(c.spec));
    for (const needle of ['"operator":"Any","targetReplicatedJobs"', '"operator":"All","targetReplicatedJobs"', '"maxRestarts":1', '"action":"FailJobSet"', '"ttlSecondsAfterFinished"', '"dependsOn"', '"InOrder"']) {
      assert.ok(specs.some((spec) => spec.includes(needle)), `some scenario has ${needle}`);
    }
    assert.ok(cases.some((c) => Object.values(c.pods).some((p) => p.outcome === 'Failed')), 'some scenario has a failing Job');
    assert.ok(cases.some((c) => c.actions.some((a) => a.suspend) && c.actions.some((a) => !a.suspend)), 'some scenario suspends and resumes');
  });

  it('are valid JobSets for Lineup, and their behaviour files valid for lineup simulate', () => {
    for (const c of cases) {
      const loaded = loadJobSets(stringify(manifestOf(c, 'ns', DEFAULT_CONTROLLER_NAME)), `${c.name}.yaml`);
      assert.deepEqual(
        loaded.documents.map((d) => d.outcome),
        ['loaded'],
        `${c.name}: ${JSON.stringify(loaded.documents.map((d) => (d.outcome === 'invalid' ? d.errors : d.outcome)))}`,
      );
      const document = loaded.documents[0];
      assert.ok(document?.outcome === 'loaded');
      assert.deepEqual(validateJobSet(applyDefaults(document.jobSet)), [], c.name);
      parseBehaviour(behaviourFileOf(c), c.name);
    }
  });

  it('give the integration tier at least 10, covering every form and variant, and the simulator test at least 8', () => {
    const integration = integrationCases();
    assert.ok(integration.length >= 10);
    assert.deepEqual([...new Set(integration.map((c) => c.form))].sort(), Object.keys(FORMS).sort());
    assert.deepEqual([...new Set(integration.map((c) => c.variant))].sort(), [...VARIANTS].sort());
    const simulator = simulatorCases();
    assert.ok(simulator.length >= 8);
    assert.deepEqual([...new Set(simulator.map((c) => c.form))].sort(), Object.keys(FORMS).sort());
    assert.ok(simulator.some((c) => c.variant === 'restarts'));
    // Failing Pods fail late enough for the real pipeline to see their stage Ready first, in the behaviour and the annotations alike.
    const failing = simulator.flatMap((c) => Object.entries(c.pods).filter(([, plan]) => plan.outcome === 'Failed').map(([name, plan]) => ({ c, name, plan })));
    assert.ok(failing.length >= 2);
    for (const { c, name, plan } of failing) {
      assert.equal(plan.finishAfterMs, SIMULATOR_FAILURE_AFTER_MS, `${c.name}/${name}`);
      const rjob = (c.spec.replicatedJobs as { name: string; template: { spec: { template: { metadata: { annotations: Record<string, string> } } } } }[]).find((candidate) => candidate.name === name);
      assert.equal(rjob?.template.spec.template.metadata.annotations['lineup.test/finish-after'], `${SIMULATOR_FAILURE_AFTER_MS}ms`, `${c.name}/${name}`);
    }
  });

  it('name no upstream manager: the twin without managedBy is upstream\'s', () => {
    const manifest = manifestOf(cases[0]!, 'ns', undefined);
    assert.equal((manifest.spec as Record<string, unknown>).managedBy, undefined);
    assert.equal((manifestOf(cases[0]!, 'ns', DEFAULT_CONTROLLER_NAME).spec as Record<string, unknown>).managedBy, DEFAULT_CONTROLLER_NAME);
  });
});
