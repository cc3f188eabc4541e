/**
 * The test tiers, as package.json's scripts define them: `test:unit` (pure and in-process),
 * `test:process` (child processes, the package, synth, whole `lineup demo` runs: files named
 * `*.process.test.ts`) and `test:integration` (real servers, under test/integration/). A test
 * file that no tier's globs match would never run, and one that two match would run twice, so
 * every test file under test/ must be in exactly one tier, and `npm test` must run all three.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readdirSync, readFileSync } from 'node:fs';
import { join, matchesGlob, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** TIERS: the scripts that run test files, in the order `npm test` runs them. */
const TIERS = ['test:unit', 'test:process', 'test:integration'] as const;
type Tier = (typeof TIERS)[number];

const scripts = (): Record<string, string> => {
  const manifest: unknown = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
  assert.ok(typeof manifest === 'object' && manifest !== null && 'scripts' in manifest && typeof manifest.scripts === 'object' && manifest.scripts !== null);
  return manifest.scripts as Record<string, string>;
};

/** globsOf: the quoted file globs a `node --test` script passes. */
const globsOf = (script: string): string[] => [...script.matchAll(/'([^']+)'/g)].map((match) => match[1] ?? '');

/** tierGlobs: each tier's globs, read from package.json. */
const tierGlobs = (): Record<Tier, string[]> => {
  const all = scripts();
  return Object.fromEntries(TIERS.map((tier) => [tier, globsOf(all[tier] ?? '')])) as Record<Tier, string[]>;
};

/** testFiles: every `*.test.ts` under test/, found by walking the directory, not by a glob. */
const testFiles = (dir = join(REPO, 'test')): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(REPO, path).split(sep).join('/')] : [];
  });

/** misplaced: each file that is in no tier or in more than one, with the tiers it is in. */
const misplaced = (files: readonly string[], globs: Readonly<Record<Tier, readonly string[]>>): string[] =>
  files.flatMap((file) => {
    const tiers = TIERS.filter((tier) => globs[tier].some((glob) => matchesGlob(file, glob)));
    return tiers.length === 1 ? [] : [`${file}: ${tiers.length === 0 ? 'in no tier' : `in ${tiers.join(' and ')}`}`];
  });

describe('test tiers', () => {
  it('each tier runs node --test on globs of test files', () => {
    const globs = tierGlobs();
    for (const tier of TIERS) {
      // An environment prefix is allowed: the tiers without servers keep Node's compile cache in node_modules/.cache.
      assert.match(scripts()[tier] ?? '', /^(NODE_COMPILE_CACHE=\S+ )?node --test /, tier);
      assert.ok(globs[tier].length > 0, `${tier} names no files`);
      for (const glob of globs[tier]) assert.match(glob, /^test\/.*\.test\.ts$/, `${tier}: ${glob}`);
    }
  });

  it('npm test starts the real-server tier\'s builds in the background, typechecks, then runs every tier', () => {
    assert.equal(scripts()['test'], ['bash test/integration/setup.sh --background', ...['typecheck', ...TIERS].map((script) => `npm run ${script}`)].join(' && '));
  });

  it('finds a file that no tier runs, and one that two tiers run (the check can fail)', () => {
    const globs = { 'test:unit': ['test/*.test.ts'], 'test:process': ['test/*.process.test.ts'], 'test:integration': ['test/integration/**/*.test.ts'] };
    assert.deepEqual(misplaced(['test/a.test.ts', 'test/b.process.test.ts', 'test/cli/c.test.ts', 'test/integration/d.test.ts'], globs), [
      'test/b.process.test.ts: in test:unit and test:process',
      'test/cli/c.test.ts: in no tier',
    ]);
  });

  it('puts every test file under test/ in exactly one tier', () => {
    const files = testFiles();
    assert.ok(files.length > 100, `${String(files.length)} test files found`);
    assert.deepEqual(misplaced(files, tierGlobs()), []);
  });

  it("selects with each tier's globs what node --test finds with them: the process tier's files by name, the real-server tier's by directory", () => {
    const globs = tierGlobs();
    const found = Object.fromEntries(TIERS.map((tier) => [tier, globSync(globs[tier], { cwd: REPO }).map((file) => file.split(sep).join('/')).sort()])) as Record<Tier, string[]>;
    assert.deepEqual(TIERS.flatMap((tier) => found[tier]).sort(), testFiles().sort(), 'the tiers together run every test file once');
    assert.ok(found['test:process'].length > 0 && found['test:process'].every((file) => file.endsWith('.process.test.ts') && !file.startsWith('test/integration/')));
    assert.ok(found['test:integration'].every((file) => file.startsWith('test/integration/')));
    assert.ok(found['test:unit'].every((file) => !file.endsWith('.process.test.ts') && !file.startsWith('test/integration/')));
  });
});
