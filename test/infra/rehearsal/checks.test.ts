/**
 * The rehearsal's checks of a function against its asset (infra/rehearsal/checks.ts): the
 * handler's module and export found as the runtime finds them, a variable the template sets that
 * no code names reported with the function's name, and the export forms esbuild writes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkFunction, exportedNames, namedVariables, splitHandler } from '../../../infra/rehearsal/checks.ts';
import type { LambdaFunctionWiring } from '../../../infra/rehearsal/wiring.ts';

const fn = (overrides: Partial<LambdaFunctionWiring> = {}): LambdaFunctionWiring => ({
  logicalId: 'Reconciler1',
  assetDir: 'asset.abc',
  handler: 'index.handler',
  runtime: 'nodejs24.x',
  memoryMb: 512,
  timeoutSeconds: 60,
  environment: { LINEUP_TABLE_NAME: { ref: 'Table' }, NODE_OPTIONS: { literal: '--enable-source-maps' } },
  ...overrides,
});
const BUNDLE = { path: 'index.mjs', text: 'var a=process.env;const t=a["LINEUP_TABLE_NAME"],b=a["LINEUP_STATIC_CLUSTERS"];async function h(){}export{h as handler};' };

describe('checkFunction', () => {
  it('passes a handler the asset exports and variables the code names; lists the ones it defaults', () => {
    assert.deepEqual(checkFunction(fn(), [BUNDLE]), { function: 'Reconciler1', handlerFile: 'index.mjs', problems: [], defaulted: ['LINEUP_STATIC_CLUSTERS'] });
  });

  it('names the function and the module when the handler is renamed', () => {
    const check = checkFunction(fn({ handler: 'main.handler' }), [BUNDLE]);
    assert.deepEqual(check.problems, ['function Reconciler1: Handler main.handler names module main.js|.mjs|.cjs, which asset.abc lacks (it holds index.mjs)']);
  });

  it('names the function and the export when the module exports another name', () => {
    const check = checkFunction(fn({ handler: 'index.main' }), [BUNDLE]);
    assert.deepEqual(check.problems, ['function Reconciler1: Handler index.main: index.mjs in asset.abc exports no main (it exports handler)']);
  });

  it("leaves a CommonJS module's exports to the runtime (a bundler builds them at load)", () => {
    const check = checkFunction(fn({ environment: {} }), [{ path: 'index.js', text: 'var x={};module.exports=u(x);' }]);
    assert.deepEqual(check.problems, []);
    assert.equal(check.handlerFile, 'index.js');
  });

  it('names the function and the variable when the template sets one no code names', () => {
    const check = checkFunction(fn({ environment: { LINEUP_TABLE: { literal: 't' } } }), [BUNDLE]);
    assert.equal(check.problems.length, 1);
    assert.match(check.problems[0] ?? '', /^function Reconciler1: the template sets environment variable LINEUP_TABLE, which no code in asset\.abc names/);
    assert.match(check.problems[0] ?? '', /LINEUP_STATIC_CLUSTERS, LINEUP_TABLE_NAME/);
  });

  it('finds a variable in a chunk beside the handler module', () => {
    const check = checkFunction(fn({ environment: { LINEUP_X: { literal: '1' } } }), [BUNDLE, { path: 'chunks/a.mjs', text: 'process.env.LINEUP_X' }]);
    assert.deepEqual(check.problems, []);
  });
});

describe('the parts', () => {
  it('splits a handler at its last dot', () => {
    assert.deepEqual(splitHandler('dir/index.handler'), { module: 'dir/index', exportName: 'handler' });
    assert.equal(splitHandler('handler'), undefined);
    assert.equal(splitHandler('index.'), undefined);
  });

  it('reads the export forms', () => {
    assert.deepEqual([...exportedNames('export{a as handler,b};export const c=1;export async function d(){}')].sort(), ['b', 'c', 'd', 'handler']);
    assert.deepEqual([...exportedNames('exports.handler = async () => {}')], ['handler']);
    assert.deepEqual([...exportedNames('const handler = 1;')], []);
  });

  it('collects LINEUP_ names held as strings', () => {
    assert.deepEqual([...namedVariables(['a["LINEUP_A"]', "b='LINEUP_B_2'", 'LINEUP_NOT_A_STRING'])].sort(), ['LINEUP_A', 'LINEUP_B_2']);
  });
});
