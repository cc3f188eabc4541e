/**
 * The planner's version, recorded in every journal entry and compared by `lineup replay` to tell
 * whether the replaying planner is the one that recorded: package.json's version and a sha256 of
 * every source a decision depends on (lib/plan, lib/policy and lib/jobset, whose strings,
 * lib/jobset/api.ts, are in conditions and events), e.g. "0.1.0+0123456789ab". It is computed from
 * the code that runs, never written down by hand, so two versions are equal only when those
 * sources are.
 *
 * Where the running code finds it, first found wins:
 *  1. a bundle (the Lambda functions, infra/constructs/lineupFunction.ts): esbuild replaced
 *     LINEUP_PLANNER_VERSION with the version computed when it bundled (plannerVersionDefine);
 *  2. a clone (`node lib/cli/main.ts`, the tests): the sources beside this module, hashed at
 *     first use;
 *  3. the built package, whose dist/ holds no .ts: dist/lib/plannerVersion.json, written by
 *     `npm run build` (scripts/writePlannerVersion.ts) from the sources it compiled.
 * Nothing found is an error: an entry recording a made-up version would make replay's verdict
 * on it meaningless.
 *
 * It lives outside lib/plan because it reads files; the planner and its policy stay pure.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Replaced by a string literal where esbuild bundled this module with plannerVersionDefine();
 * no such global exists anywhere else, so `typeof` finds it undefined there.
 */
declare const LINEUP_PLANNER_VERSION: string | undefined;

/** PLANNER_VERSION_GLOBAL: the identifier a bundler's `define` replaces with the version. */
export const PLANNER_VERSION_GLOBAL = 'LINEUP_PLANNER_VERSION';

/** PLANNER_VERSION_FILE: the file `npm run build` writes beside dist/lib/plannerVersion.js. */
export const PLANNER_VERSION_FILE = 'plannerVersion.json';

/** The folders whose .ts files are hashed, relative to the root. */
const PLANNER_SOURCE_DIRS = ['lib/plan', 'lib/policy', 'lib/jobset'] as const;

/** PLANNER_SOURCE_PROBE: a planner source that is beside this module in a clone and absent from the built package. */
const PLANNER_SOURCE_PROBE = 'lib/jobset/api.ts';

/** Width of the source digest kept (hex characters). */
const DIGEST_CHARS = 12;

/** A planner version: a package version, `+`, and the source digest. */
const PLANNER_VERSION_PATTERN = new RegExp(`^[^+\\s]+\\+[0-9a-f]{${DIGEST_CHARS}}$`);

/** plannerSources: the root-relative paths of the planner's sources, sorted. */
export const plannerSources = (root: string): string[] => {
  const inDir = (dir: string): string[] =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${dir}/${name}`);
  return PLANNER_SOURCE_DIRS.flatMap(inDir).sort();
};

/** plannerSourceDigest: sha256 over each source's path and content (line endings normalised), first 12 hex. */
export const plannerSourceDigest = (root: string): string => {
  const hash = createHash('sha256');
  for (const path of plannerSources(root)) {
    hash.update(`${path}\0${readFileSync(join(root, path), 'utf8').replaceAll('\r\n', '\n')}\0`);
  }
  return hash.digest('hex').slice(0, DIGEST_CHARS);
};

/** packageVersion: the version in `root`'s package.json. */
export const packageVersion = (root: string): string => {
  const parsed: unknown = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const version = typeof parsed === 'object' && parsed !== null && 'version' in parsed ? parsed.version : undefined;
  if (typeof version !== 'string') throw new Error(`package.json in ${root} has no version string`);
  return version;
};

/** computePlannerVersion: the version of the planner whose sources and package.json are under `root`. */
export const computePlannerVersion = (root: string): string => `${packageVersion(root)}+${plannerSourceDigest(root)}`;

/** PlannerVersionRecord: what PLANNER_VERSION_FILE holds. */
export interface PlannerVersionRecord {
  readonly plannerVersion: string;
  readonly packageVersion: string;
  readonly sourceDigest: string;
}

/** plannerVersionRecord: the content of PLANNER_VERSION_FILE for the sources under `root`. */
export const plannerVersionRecord = (root: string): PlannerVersionRecord => {
  const version = packageVersion(root);
  const digest = plannerSourceDigest(root);
  return { plannerVersion: `${version}+${digest}`, packageVersion: version, sourceDigest: digest };
};

/** readPlannerVersionFile: the version a PLANNER_VERSION_FILE at `path` holds; throws if it holds none. */
export const readPlannerVersionFile = (path: string): string => {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const version = typeof parsed === 'object' && parsed !== null && 'plannerVersion' in parsed ? parsed.plannerVersion : undefined;
  if (typeof version !== 'string' || !PLANNER_VERSION_PATTERN.test(version)) {
    throw new Error(`${path} holds no planner version (expected {"plannerVersion": "<version>+<12 hex>"}): rebuild with npm run build`);
  }
  return version;
};

/** injectedPlannerVersion: the version esbuild put in this bundle, if this module runs bundled. */
const injectedPlannerVersion = (): string | undefined => (typeof LINEUP_PLANNER_VERSION === 'string' ? LINEUP_PLANNER_VERSION : undefined);

/** resolvePlannerVersion: the version by the order in this module's comment, or a thrown Error naming what is missing. */
const resolvePlannerVersion = (): string => {
  const injected = injectedPlannerVersion();
  if (injected !== undefined) return injected;
  // The folder above this module's: a clone's root for lib/plannerVersion.ts, dist/ for dist/lib/plannerVersion.js.
  const root = fileURLToPath(new URL('..', import.meta.url));
  const beside = join(root, PLANNER_SOURCE_PROBE);
  if (existsSync(beside)) return computePlannerVersion(root);
  const built = fileURLToPath(new URL(`./${PLANNER_VERSION_FILE}`, import.meta.url));
  if (existsSync(built)) return readPlannerVersionFile(built);
  throw new Error(
    `lineup cannot tell its planner version: this code was not bundled with ${PLANNER_VERSION_GLOBAL} defined, ` +
      `no planner sources are beside it (${beside}), and there is no ${built} (written by npm run build)`,
  );
};

let memoizedPlannerVersion: string | undefined;

/** plannerVersion: the running planner's version, found once per process. */
export const plannerVersion = (): string => {
  memoizedPlannerVersion ??= resolvePlannerVersion();
  return memoizedPlannerVersion;
};

/**
 * plannerVersionDefine: the esbuild `define` that puts the running planner's version into a
 * bundle, for every bundle that may write a journal entry (the value is a JavaScript string
 * literal, as `define` wants).
 */
export const plannerVersionDefine = (): Record<string, string> => ({ [PLANNER_VERSION_GLOBAL]: JSON.stringify(plannerVersion()) });
