import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MAX_YAML_NESTING, tooDeeplyNested } from '../../lib/jobset/nesting.ts';
import { runCli } from '../cli/inProcess.ts';
import { exampleFiles } from '../repoFiles.ts';

/** blockMaps: `levels` mappings each indented one step deeper than the last, a value at the bottom. */
const blockMaps = (levels: number): string => Array.from({ length: levels }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';

// 100,000 levels of each form that can be written that deep (indented mappings would need gigabytes of spaces).
const HUGE = 100_000;
const DEEP: Readonly<Record<string, string>> = {
  'flow-lists.yaml': `${'['.repeat(HUGE)}${']'.repeat(HUGE)}\n`,
  'flow-maps.yaml': `${'{a: '.repeat(HUGE)}1${'}'.repeat(HUGE)}\n`,
  'block-lists.yaml': `${'- '.repeat(HUGE)}x\n`,
  'block-maps.yaml': blockMaps(1_000),
};

describe('jobset/nesting', () => {
  describe('tooDeeplyNested', () => {
    const forms: { name: string; text: (levels: number) => string }[] = [
      { name: 'flow lists', text: (n) => `${'['.repeat(n)}${']'.repeat(n)}` },
      { name: 'flow mappings', text: (n) => `${'{a: '.repeat(n)}1${'}'.repeat(n)}` },
      { name: 'compact block lists', text: (n) => `${'- '.repeat(n)}x\n` },
      { name: 'indented block mappings', text: blockMaps },
      { name: 'lists and mappings mixed', text: (n) => Array.from({ length: n }, (_, i) => `${' '.repeat(2 * i)}${i % 2 === 0 ? 'a:' : '-'}`).join('\n') + ' 1\n' },
    ];
    for (const form of forms) {
      it(`counts ${form.name}: the limit passes, one level more does not`, () => {
        assert.equal(tooDeeplyNested(form.text(10), 10), undefined);
        assert.notEqual(tooDeeplyNested(form.text(11), 10), undefined);
      });
    }

    it('says where the level too many opens: line and column of the bracket', () => {
      assert.deepEqual(tooDeeplyNested('[[[1]]]', 2), { line: 1, column: 3 });
      assert.deepEqual(tooDeeplyNested('ok: 1\nlist: [[[1]]]\n', 2), { line: 2, column: 8 }); // the mapping is a level: its second bracket is the third
    });

    it('measures every document of a stream, not only the first', () => {
      assert.deepEqual(tooDeeplyNested('a: 1\n---\nb: [[1]]\n', 2), { line: 3, column: 5 });
    });

    it('counts lists and mappings only, not the scalars in them nor long flat lists', () => {
      assert.equal(tooDeeplyNested(`a: |\n  text\nb: [${Array.from({ length: 5_000 }, (_, i) => i).join(', ')}]\n`, 2), undefined);
    });

    it(`finds the shipped examples far below MAX_YAML_NESTING (${MAX_YAML_NESTING})`, () => {
      for (const file of exampleFiles()) assert.equal(tooDeeplyNested(readFileSync(file, 'utf8'), 20), undefined, file);
    });

    it(`stops at the limit: ${HUGE} levels are measured at once, without overflowing the stack`, () => {
      for (const [file, text] of Object.entries(DEEP)) {
        const started = performance.now();
        assert.notEqual(tooDeeplyNested(text), undefined, file);
        assert.ok(performance.now() - started < 2_000, `${file} took ${performance.now() - started} ms`);
      }
    });
  });

  describe('a JobSet file nested too deeply: one line, exit 2, for each command that reads one', () => {
    const commands: { argv: (file: string) => string[]; prefix: string }[] = [
      { argv: (file) => ['validate', file], prefix: '' },
      { argv: (file) => ['plan', file], prefix: '' },
      { argv: (file) => ['simulate', file], prefix: 'lineup simulate: ' },
      { argv: (file) => ['demo', '--speed', '0', file], prefix: 'lineup demo: ' },
    ];
    const where: Readonly<Record<string, string>> = {
      'flow-lists.yaml': 'line 1, column 101',
      'flow-maps.yaml': 'line 1, column 401',
      'block-lists.yaml': 'line 1, column 201',
      'block-maps.yaml': 'line 101, column 102',
    };
    for (const command of commands) {
      for (const file of Object.keys(DEEP)) {
        it(`lineup ${command.argv(file)[0]} ${file}`, async () => {
          const run = await runCli(command.argv(file), DEEP);
          assert.equal(run.code, 2);
          assert.equal(run.stdout, '');
          assert.equal(run.stderr, `${command.prefix}${file}: document nested too deeply: more than 100 levels of lists and mappings at ${where[file]}, expected at most 100\n`);
        });
      }
    }

    it('lineup simulate --behaviour B: the behaviour file too', async () => {
      const run = await runCli(['simulate', '--behaviour', 'deep-behaviour.yaml', exampleFiles()[0] ?? ''], { 'deep-behaviour.yaml': `default: ${DEEP['flow-lists.yaml']}` });
      assert.equal(run.code, 2);
      assert.equal(
        run.stderr,
        'lineup simulate: deep-behaviour.yaml: behaviour file: document nested too deeply: more than 100 levels of lists and mappings at line 1, column 109, expected at most 100\n',
      );
    });
  });
});
