/**
 * What the code and the documents cite can be found by someone holding a clone: every repository
 * path a comment or a document names exists, every `file.md#heading` names a heading that file
 * has, and nothing cites a design section, an upstream-behaviour section or an issue number of a
 * document the repository does not hold. A citation that says what it means on its own, or names
 * a file and heading here, keeps working when its reader has nothing but the clone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { scanSource } from './sourceScanner.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** SCANNED: the kinds of tracked file whose text is code, comments or documentation. */
const SCANNED = /\.(ts|js|md|sh|ya?ml|Dockerfile)$/;

/** VERBATIM: files kept byte for byte from elsewhere (upstream's examples and CRD): their citations are upstream's. */
const VERBATIM = ['test/fixtures/upstream-examples/', 'infra/crd/jobset.x-k8s.io_jobsets.yaml'];

/** TOP_LEVEL: the repository's top-level folders; a path starting with one of them is a repository path. */
const TOP_LEVEL = ['lib', 'test', 'bench', 'infra', 'docs', 'functions', 'scripts', 'examples', 'bin', '.ci'];

/** GENERATED: paths that exist only after a command writes them (a build, a synth, a benchmark), not in a clone. */
const GENERATED = ['bench/results/', 'infra/cost/measured/'];

// Built from pieces so that this file does not match its own patterns.
const SECTION = '\u00a7';
const ISSUE = ['iss', 'ue'].join('');

/** DANGLING: citations of documents a clone does not have, each with what to write instead. */
const DANGLING: readonly { readonly why: string; readonly pattern: RegExp }[] = [
  { why: 'a numbered section of a document not in the repository: cite a file and heading, or say it', pattern: new RegExp(`(?<!RFC \\d+ )${SECTION}\\s?\\d`) },
  { why: 'the design document outside the repository: cite docs/design.md#heading', pattern: new RegExp(`\\bDESIGN(\\.md)?\\s*(${SECTION}|")`) },
  { why: 'the upstream-behaviour reference outside the repository: say the fact, or cite upstream code by name', pattern: new RegExp(['jobset', 'behaviour\\.md'].join('-')) },
  { why: 'an issue of this project by number: say what it means (an upstream one as owner/repo#N)', pattern: new RegExp(`(^|[^/\\w#])${ISSUE}s? #?\\d+`, 'i') },
];

/**
 * PATH: a repository file as text names it: a top-level folder, no glob or placeholder, and an extension of a
 * kind the repository holds (a path without one is a folder or an import specifier, and a `.go` path is upstream's).
 */
const PATH = new RegExp(
  `(?<![\\w./@<{$-])((?:${TOP_LEVEL.map((top) => top.replace('.', '\\.')).join('|')})/[\\w./@-]*\\.(?:ts|js|mjs|md|ya?ml|json|sh|png|html))(?![\\w*/<{-])(#[\\w-]+)?`,
  'g',
);

/** LINK: a relative Markdown link's target (a file, a heading, or both). */
const LINK = /\]\((?!https?:|mailto:)([^)\s#]*)(#[^)\s]+)?\)/g;

/** trackedFiles: every file git tracks (a clone's content). */
const trackedFiles = (): string[] =>
  execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '');

/** headingAnchors: the anchors GitHub gives the headings of a Markdown text (fenced code left out). */
export const headingAnchors = (markdown: string): Set<string> => {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] !== undefined) anchors.add(slugger.slug(heading[1].replaceAll('`', '')));
  }
  return anchors;
};

/** Reference: one citation found in a file, where it resolves, and what it is. */
interface Reference {
  readonly from: string;
  readonly line: number;
  readonly text: string;
  /** The repository path it names, normalised; undefined for a heading of the file itself. */
  readonly path: string | undefined;
  readonly anchor: string | undefined;
}

/** citingText: the part of a file that cites: a script's comments, a document's or manifest's whole text. */
const citingText = (file: string, text: string): string => (/\.(ts|js)$/.test(file) ? scanSource(text).comments : text);

/** referencesIn: the repository paths and Markdown links a file's text names. */
export const referencesIn = (from: string, text: string): Reference[] => {
  const found: Reference[] = [];
  const isMarkdown = from.endsWith('.md');
  text.split('\n').forEach((lineText, index) => {
    for (const match of lineText.matchAll(PATH)) {
      const path = match[1]?.replace(/[.]+$/, '');
      if (path === undefined || GENERATED.some((prefix) => path.startsWith(prefix))) continue;
      found.push({ from, line: index + 1, text: match[0], path: normalize(path), anchor: match[2]?.slice(1) });
    }
    if (!isMarkdown) return;
    for (const match of lineText.matchAll(LINK)) {
      const target = match[1] ?? '';
      const anchor = match[2]?.slice(1);
      if (target === '' && anchor === undefined) continue;
      const path = target === '' ? from : normalize(join(dirname(from), target));
      found.push({ from, line: index + 1, text: match[0], path, anchor });
    }
  });
  return found;
};

/** danglingCitations: `file:line: text (why)` for each citation of a document the repository lacks. */
export const danglingCitations = (from: string, text: string): string[] =>
  text.split('\n').flatMap((line, index) =>
    DANGLING.filter(({ pattern }) => pattern.test(line)).map(({ why }) => `${from}:${String(index + 1)}: ${line.trim()} (${why})`),
  );

/** brokenReferences: each reference whose file or heading does not exist, as `file:line: text: what is missing`. */
const brokenReferences = (references: readonly Reference[], tracked: ReadonlySet<string>): string[] => {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string): Set<string> => {
    const known = anchorsOf.get(path) ?? headingAnchors(readFileSync(join(REPO, path), 'utf8'));
    anchorsOf.set(path, known);
    return known;
  };
  return references.flatMap((reference) => {
    const where = `${reference.from}:${String(reference.line)}: ${reference.text}`;
    const path = reference.path ?? reference.from;
    const exists = tracked.has(path) || [...tracked].some((file) => file.startsWith(`${path}/`)) || existsSync(join(REPO, path));
    if (!exists) return [`${where}: no file or folder ${path} in the repository`];
    if (reference.anchor === undefined || !path.endsWith('.md')) return [];
    return anchors(path).has(reference.anchor) ? [] : [`${where}: ${path} has no heading #${reference.anchor}`];
  });
};

describe('repository/references', () => {
  const tracked = trackedFiles();
  const scanned = tracked.filter((file) => SCANNED.test(file) && !VERBATIM.some((prefix) => file.startsWith(prefix)));

  it('recognises a dangling citation of each kind, and leaves the fine ones (the check can fail)', () => {
    const dangling = [
      `// Upstream's quirk (${['jobset', 'behaviour.md'].join('-')} ${SECTION}8.3).`,
      ` * loopback (DESIGN ${SECTION}5).`,
      `it('reads the actions of ${['DES', 'IGN'].join('')} "How gating works"', () => {`,
      `// the registry attack of ${ISSUE} 20`,
      `// (upstream ${ISSUE} #360)`,
    ];
    for (const line of dangling) assert.ok(danglingCitations('sample.ts', line).length >= 1, line);
    const fine = ['// upstream kubernetes-sigs/jobset#360', '// its Retry-After date (RFC 9110 \u00a710.2.3)', '// kueue#6796 is open', 'https://github.com/kubernetes-sigs/jobset/issues/360', '// docs/design.md#the-trust-boundary'];
    for (const line of fine) assert.deepEqual(danglingCitations('sample.ts', line), [], line);
  });

  it("reads a script's comments, not its strings", () => {
    const script = [
      "const fixture = 'lib/policy/extra.ts'; // see lib/plan/planner.ts",
      '/* and docs/design.md */',
      'const x = `docs/none.md`;',
    ].join('\n');
    assert.deepEqual(
      referencesIn('a.ts', citingText('a.ts', script)).map((reference) => reference.path),
      ['lib/plan/planner.ts', 'docs/design.md'],
    );
  });

  it('finds repository paths and Markdown links, and GitHub anchors for headings', () => {
    const references = referencesIn('docs/a.md', 'see `lib/plan/planner.ts`, [the design](design.md#the-trust-boundary), [up](../README.md), [here](#far) and test/**/*.ts or bench/<name>.ts');
    assert.deepEqual(
      references.map((reference) => [reference.path, reference.anchor]),
      [['lib/plan/planner.ts', undefined], ['docs/design.md', 'the-trust-boundary'], ['README.md', undefined], ['docs/a.md', 'far']],
    );
    assert.deepEqual([...headingAnchors('# Lineup\n## Where Lineup differs from upstream, and why\n```\n# not a heading\n```\n### `lineup run` flags\n## Where Lineup differs from upstream, and why')], [
      'lineup',
      'where-lineup-differs-from-upstream-and-why',
      'lineup-run-flags',
      'where-lineup-differs-from-upstream-and-why-1',
    ]);
  });

  it('no code or document cites a design section, an upstream-behaviour section or an issue the repository does not hold', () => {
    const found = scanned.flatMap((file) => danglingCitations(file, readFileSync(join(REPO, file), 'utf8')));
    assert.deepEqual(found, [], `cite a repository file and heading, or say it in words:\n${found.join('\n')}`);
  });

  it('every repository path and heading that code and documents name exists', () => {
    const references = scanned.flatMap((file) => referencesIn(file, citingText(file, readFileSync(join(REPO, file), 'utf8'))));
    assert.ok(references.length > 100, `${String(references.length)} references found`);
    const broken = brokenReferences(references, new Set(tracked));
    assert.deepEqual(broken, [], `references to what the repository does not have:\n${broken.join('\n')}`);
  });
});
