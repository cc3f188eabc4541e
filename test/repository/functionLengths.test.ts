/**
 * No function in lib/ is longer than MAX_FUNCTION_LINES: a step a reader takes in at once, the
 * larger jobs a short sequence of named steps (lib/plan/planner.ts `plan` reads as its list).
 * The scanner (functionLengths.ts) is checked first on sources whose answers are known.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionSpans } from './functionLengths.ts';
import { scanSource } from './sourceScanner.ts';

/** MAX_FUNCTION_LINES: the longest a function in lib/ may be, its header and closing line included. */
const MAX_FUNCTION_LINES = 100;

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** sourceFiles: every .ts file under `dir`, sorted. */
const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []))
    .sort();

/** spanOf: the one span of `name` in `text`. */
const spanOf = (text: string, name: string): { line: number; lines: number } => {
  const spans = functionSpans(text).filter((span) => span.name === name);
  assert.equal(spans.length, 1, `${name}: ${JSON.stringify(functionSpans(text))}`);
  const [span] = spans;
  assert.ok(span);
  return { line: span.line, lines: span.lines };
};

describe('functionLengths: the scanner', () => {
  it('measures arrows, declarations, methods and expression bodies from header to closing line', () => {
    const text = [
      'export const arrow = (a: number): number => {', // 1
      '  return a;',
      '};',
      'function declared(',
      '  b: string,',
      '): string {',
      '  return b;',
      '}',
      'class Holder {',
      '  private async method(c: number): Promise<void> {', // 10
      '    await Promise.resolve(c);',
      '  }',
      '}',
      'const expression = (d: number) => (', // 14
      '  d + 1',
      ');',
    ].join('\n');
    assert.deepEqual(spanOf(text, 'arrow'), { line: 1, lines: 3 });
    assert.deepEqual(spanOf(text, 'declared'), { line: 4, lines: 5 });
    assert.deepEqual(spanOf(text, 'method'), { line: 10, lines: 3 });
    assert.deepEqual(spanOf(text, 'expression'), { line: 14, lines: 3 });
  });

  it('counts no statement block as a function, and a function nested in one', () => {
    const text = [
      'const outer = (items: number[]): void => {',
      '  for (let index = 0; index < 2; index += 1) {',
      '    if (index > 0) {',
      '      items.forEach((item) => {',
      '        void item;',
      '      });',
      '    } else if (',
      '      index === 0',
      '    ) {',
      '      void index;',
      '    }',
      '  }',
      '};',
    ].join('\n');
    assert.deepEqual(
      functionSpans(text).map((span) => span.name),
      ['forEach', 'outer'],
    );
    assert.deepEqual(spanOf(text, 'outer'), { line: 1, lines: 13 });
  });

  it('is not misled by brackets in strings, templates, comments and regular expressions', () => {
    const text = [
      'const quoted = (): string => {',
      "  const a = '}' + \"{\"; // }",
      '  /* { */',
      '  const b = `${a.replace(/[}{]/g, `}`)} }`;',
      '  return b;',
      '};',
      'const after = (): number => {',
      '  return 1 / 2;',
      '};',
    ].join('\n');
    assert.deepEqual(spanOf(text, 'quoted'), { line: 1, lines: 6 });
    assert.deepEqual(spanOf(text, 'after'), { line: 7, lines: 3 });
    assert.equal(scanSource(text).code.split('\n').length, 9);
  });
});

describe('functionLengths: lib/', () => {
  it(`has no function longer than ${MAX_FUNCTION_LINES} lines`, () => {
    const files = sourceFiles(join(REPO, 'lib'));
    assert.ok(files.length > 50, `lib/ holds ${files.length} .ts files`);
    const spans = files.flatMap((file) => functionSpans(readFileSync(file, 'utf8')).map((span) => ({ ...span, file: relative(REPO, file) })));
    // The scanner found lib's functions at all: the planner's own entry point among them.
    assert.ok(spans.some((span) => span.file === join('lib', 'plan', 'planner.ts') && span.name === 'plan'));
    const long = spans.filter((span) => span.lines > MAX_FUNCTION_LINES).map((span) => `${span.file}:${span.line} ${span.name}: ${span.lines} lines`);
    assert.deepEqual(long, [], `split these into named steps:\n${long.join('\n')}`);
  });
});
