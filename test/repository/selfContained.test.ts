/**
 * A clone stands on its own: no tracked file points at a place outside the repository — the
 * reference folder that sits beside the checkout on a build machine, or a home, temporary or
 * workspace directory of one — as a location to read. Users have neither.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

// Built from pieces so that this file does not match its own patterns.
const UP = ['..', ''].join('/');
const SEP = '/';

/** OUTSIDE_PATTERNS: what a path outside the repository looks like, each with why it is one. */
const OUTSIDE_PATTERNS: readonly { readonly why: string; readonly pattern: RegExp }[] = [
  { why: 'the reference folder beside the checkout', pattern: new RegExp(`(^|[^\\w.])${escape(UP)}+shared\\b`) },
  { why: 'a workspace directory of a build machine', pattern: new RegExp(`(^|[\\s'"\`(=:])${SEP}work${SEP}`) },
  { why: "root's home directory", pattern: new RegExp(`(^|[\\s'"\`(=:])${SEP}root${SEP}`) },
  { why: 'a home directory', pattern: new RegExp(`(^|[\\s'"\`(=:])(${SEP}home|${SEP}Users)${SEP}[\\w.-]+`) },
  { why: 'a temporary directory of one machine', pattern: new RegExp(`(^|[\\s'"\`(=:])(${SEP}tmp|${SEP}var${SEP}folders)${SEP}[\\w.-]+`) },
];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** outsideReferences: `file:line: text (why)` for each line of `text` that names a place outside the repository. */
const outsideReferences = (file: string, text: string): string[] =>
  text.split('\n').flatMap((line, index) =>
    OUTSIDE_PATTERNS.filter(({ pattern }) => pattern.test(line)).map(({ why }) => `${file}:${String(index + 1)}: ${line.trim()} (${why})`),
  );

/**
 * VERBATIM_UPSTREAM: upstream's example JobSets (the .yaml files there), kept byte for byte; their /tmp paths are inside
 * the containers' own file systems (a script's flag files), not places Lineup or a test reads.
 */
const VERBATIM_UPSTREAM = 'test/fixtures/upstream-examples/';

/** trackedFiles: every file git tracks in this repository (a clone's whole content). */
const trackedFiles = (): string[] =>
  execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '');

describe('selfContained', () => {
  it('recognises each kind of outside path (the check can fail)', () => {
    const samples = [
      `const crd = '${UP}${UP}shared/reference/crd/jobset.yaml';`,
      `See ${SEP}work${SEP}shared/reference/examples/a.yaml.`,
      `cache in ${SEP}root${SEP}.cache/lineup`,
      `path: '${SEP}home${SEP}me/.kube/config'`,
      `written to ${SEP}tmp${SEP}lineup-build.x1/go.mod`,
    ];
    for (const sample of samples) assert.equal(outsideReferences('sample', sample).length, 1, sample);
    const fine = ["mountPath: '/tmp'", 'https://example.com/home/x', 'examples/story1.yaml', '~/.kube/config', 'a/../b', 'node_modules/.bin/node'];
    for (const sample of fine) assert.deepEqual(outsideReferences('sample', sample), [], sample);
  });

  it('no tracked file, docs included, names a path outside the repository', () => {
    const files = trackedFiles().filter((file) => file !== 'package-lock.json' && !(file.startsWith(VERBATIM_UPSTREAM) && file.endsWith('.yaml')));
    assert.ok(files.length > 100, `git ls-files listed only ${String(files.length)} files: is this a checkout?`);
    const found = files.flatMap((file) => {
      const text = readFileSync(join(REPO, file));
      // Binary files cannot name a path to read.
      return text.includes(0) ? [] : outsideReferences(file, text.toString('utf8'));
    });
    assert.deepEqual(found, []);
  });
});
