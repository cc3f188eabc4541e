/**
 * The rehearsal of the deployed stack (infra/rehearsal/rehearse.ts, `npm run rehearse`) as the
 * integration tier runs it: synthesized once into a temporary cloud assembly, then
 *   - as synthesized: both scenarios (story 2, and the reconciler cut off from the API server for
 *     a while) from cdk.out, with no difference from the in-process pipeline's run of the same
 *     JobSets, and every function initialised and invoked in the emulator;
 *   - with one environment variable removed from the template: the rehearsal fails, naming the
 *     function and the variable;
 *   - with a function's handler renamed: it fails, naming the function and the handler.
 * Prints the rehearsal's report (its figures) on stderr.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { copyAssembly, readTemplate, runRehearsal, synthesize } from '../../../infra/rehearsal/rehearse.ts';
import type { Template } from '../../../infra/rehearsal/wiring.ts';

/** REHEARSAL_TIMEOUT_MS: synthesis, the servers and both scenarios on a loaded 2-core machine. */
const REHEARSAL_TIMEOUT_MS = 15 * 60_000;

/** TemplateFunction: what the edits touch of a function. */
interface EditableFunction {
  Type?: string;
  Properties: { Handler: string; Environment?: { Variables?: Record<string, unknown> } };
}

/** editedAssembly: a copy of `cdkOut` whose template `edit` changed; its directory. */
const editedAssembly = (cdkOut: string, into: string, edit: (resources: Record<string, EditableFunction>) => string): { dir: string; what: string } => {
  copyAssembly(cdkOut, into);
  const { file } = readTemplate(into);
  const template = JSON.parse(readFileSync(file, 'utf8')) as { Resources: Record<string, EditableFunction> };
  const what = edit(template.Resources);
  writeFileSync(file, JSON.stringify(template));
  return { dir: into, what };
};

/** queueFedFunction: the logical id of a function an event source mapping invokes (found, not named). */
const queueFedFunction = (template: Template): string => {
  const mapping = Object.values(template.Resources ?? {}).find((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping');
  const ref = (mapping?.Properties?.['FunctionName'] as { Ref?: string } | undefined)?.Ref;
  assert.ok(ref, 'the template has an event source mapping naming a function');
  return ref;
};

describe('npm run rehearse: the deployed stack from cdk.out', () => {
  let work = '';
  let cdkOut = '';

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'lineup-rehearse-test-'));
    cdkOut = join(work, 'cdk.out');
    synthesize(cdkOut);
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('fails, naming the function and the variable, when the template lacks an environment variable the function needs', { timeout: REHEARSAL_TIMEOUT_MS }, async () => {
    // Arrange: the table's name removed from the function the queue feeds.
    const { template } = readTemplate(cdkOut);
    const fn = queueFedFunction(template);
    const { dir } = editedAssembly(cdkOut, join(work, 'no-variable'), (resources) => {
      const variables = resources[fn]?.Properties.Environment?.Variables ?? {};
      assert.ok('LINEUP_TABLE_NAME' in variables, `${fn} sets LINEUP_TABLE_NAME`);
      delete variables['LINEUP_TABLE_NAME'];
      return 'LINEUP_TABLE_NAME';
    });
    // Act
    const result = await runRehearsal({ cdkOut: dir, progress: () => undefined });
    // Assert
    assert.ok(
      result.failures.some((failure) => failure.includes(`function ${fn}`) && failure.includes('LINEUP_TABLE_NAME')),
      `a failure names ${fn} and LINEUP_TABLE_NAME:\n${result.failures.join('\n')}`,
    );
  });

  it('fails, naming the function and the handler, when a handler is renamed', { timeout: REHEARSAL_TIMEOUT_MS }, async () => {
    const { template } = readTemplate(cdkOut);
    const fn = queueFedFunction(template);
    const { dir } = editedAssembly(cdkOut, join(work, 'renamed-handler'), (resources) => {
      const properties = resources[fn]?.Properties;
      assert.ok(properties, fn);
      properties.Handler = 'main.handler';
      return 'main.handler';
    });
    const result = await runRehearsal({ cdkOut: dir, progress: () => undefined });
    assert.ok(result.failures.some((failure) => failure.includes(`function ${fn}`) && failure.includes('main.handler')), `a failure names ${fn} and main.handler:\n${result.failures.join('\n')}`);
  });

  it('fails, naming the function and the variable, when a variable is misspelt', { timeout: REHEARSAL_TIMEOUT_MS }, async () => {
    const { template } = readTemplate(cdkOut);
    const fn = queueFedFunction(template);
    const { dir } = editedAssembly(cdkOut, join(work, 'misspelt'), (resources) => {
      const variables = resources[fn]?.Properties.Environment?.Variables ?? {};
      variables['LINEUP_TABLE'] = variables['LINEUP_TABLE_NAME'];
      delete variables['LINEUP_TABLE_NAME'];
      return 'LINEUP_TABLE';
    });
    const result = await runRehearsal({ cdkOut: dir, progress: () => undefined });
    assert.ok(result.failures.some((failure) => failure.startsWith(`function ${fn}: the template sets environment variable LINEUP_TABLE,`)), result.failures.join('\n'));
  });

  it('runs story 2 and the fault as the template wires them, with no difference from the in-process pipeline', { timeout: REHEARSAL_TIMEOUT_MS }, async () => {
    const started = Date.now();
    const result = await runRehearsal({ cdkOut });
    process.stderr.write(`${result.lines.join('\n')}\nrehearsal test: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    assert.deepEqual(result.failures, []);
    assert.deepEqual(result.scenarios.map(({ rehearsal }) => rehearsal.scenario), ['story 2', 'fault']);
    for (const { rehearsal, inProcess } of result.scenarios) {
      assert.equal(rehearsal.completed, rehearsal.jobSets);
      assert.deepEqual(rehearsal.orders, inProcess.orders);
    }
    assert.match(result.scenarios[1]?.rehearsal.fault ?? '', /[1-9]\d* records failed/);
    for (const fn of result.functions) {
      assert.ok(fn.initMs.length === fn.instances, `${fn.function}: every instance reported its init`);
      assert.ok(fn.invokeMs.length > fn.instances, `${fn.function} was invoked beyond its init`);
    }
  });
});
