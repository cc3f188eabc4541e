/**
 * The planner's version: the package version and a digest of every source a decision depends on
 * (lib/plan, lib/policy, lib/jobset and lib/constants.ts, whose strings are in conditions and
 * events). `node scripts/plannerVersion.ts` rewrites lib/plan/version.ts; test/plan/version.test.ts
 * fails while the written digest is stale.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is in scripts/). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The file the digest is written to; left out of the digest it holds. */
export const VERSION_FILE = 'lib/plan/version.ts';

/** Width of the digest kept (hex characters). */
const DIGEST_CHARS = 12;

/** plannerSources: the repository-relative paths hashed, sorted. */
export const plannerSources = (root: string = REPO_ROOT): string[] => {
  const inDir = (dir: string): string[] =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${dir}/${name}`);
  return [...inDir('lib/plan'), ...inDir('lib/policy'), ...inDir('lib/jobset'), 'lib/constants.ts']
    .filter((path) => path !== VERSION_FILE)
    .sort();
};

/** plannerSourceDigest: sha256 over each source's path and content (line endings normalised). */
export const plannerSourceDigest = (root: string = REPO_ROOT): string => {
  const hash = createHash('sha256');
  for (const path of plannerSources(root)) {
    hash.update(`${path}\0${readFileSync(join(root, path), 'utf8').replaceAll('\r\n', '\n')}\0`);
  }
  return hash.digest('hex').slice(0, DIGEST_CHARS);
};

/** packageVersion: package.json's version. */
export const packageVersion = (root: string = REPO_ROOT): string => {
  const parsed: unknown = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const version = typeof parsed === 'object' && parsed !== null && 'version' in parsed ? parsed.version : undefined;
  if (typeof version !== 'string') throw new Error(`package.json in ${root} has no version string`);
  return version;
};

/** versionFileText: the content of lib/plan/version.ts for these values. */
export const versionFileText = (version: string, digest: string): string => `/**
 * The planner's version, recorded in every journal entry so a replay knows which planner decided.
 * Written by \`node scripts/plannerVersion.ts\` (run it after changing lib/plan, lib/policy,
 * lib/jobset or lib/constants.ts); test/plan/version.test.ts fails while it is stale.
 */

/** PACKAGE_VERSION: package.json's version when the digest was computed. */
export const PACKAGE_VERSION = '${version}';

/** PLANNER_SOURCE_DIGEST: sha256 (first ${DIGEST_CHARS} hex) of the planner's sources. */
export const PLANNER_SOURCE_DIGEST = '${digest}';

/** PLANNER_VERSION: what a journal entry records, e.g. "0.1.0+0123456789ab". */
export const PLANNER_VERSION = \`\${PACKAGE_VERSION}+\${PLANNER_SOURCE_DIGEST}\`;
`;

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const digest = plannerSourceDigest();
  writeFileSync(join(REPO_ROOT, VERSION_FILE), versionFileText(packageVersion(), digest));
  process.stdout.write(`${relative(process.cwd(), join(REPO_ROOT, VERSION_FILE)) || VERSION_FILE}: ${packageVersion()}+${digest}\n`);
}
