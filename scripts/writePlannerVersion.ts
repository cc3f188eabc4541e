/**
 * Writes dist/lib/plannerVersion.json: the planner version of the sources `npm run build` has
 * just compiled. The built package holds no .ts to hash, so lib/plannerVersion.ts, running as
 * dist/lib/plannerVersion.js, reads the version from this file (package.json "build" runs this
 * script after tsc; nobody runs it by hand).
 *
 *   node scripts/writePlannerVersion.ts [--outfile dist/lib/plannerVersion.json]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PLANNER_VERSION_FILE, plannerVersionRecord, type PlannerVersionRecord } from '../lib/plannerVersion.ts';

/** REPO_ROOT: the clone whose sources are hashed (this file is in scripts/). */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** BUILT_PLANNER_VERSION_FILE: where the built lib/plannerVersion.ts looks, relative to the repository root. */
export const BUILT_PLANNER_VERSION_FILE = join('dist', 'lib', PLANNER_VERSION_FILE);

/** writePlannerVersionFile: write the version of the sources under `root` to `outfile` (relative to `root`, or absolute). */
export const writePlannerVersionFile = (outfile: string = BUILT_PLANNER_VERSION_FILE, root: string = REPO_ROOT): { path: string; record: PlannerVersionRecord } => {
  const path = resolve(root, outfile);
  const record = plannerVersionRecord(root);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  return { path, record };
};

if (import.meta.main) {
  const { values } = parseArgs({ options: { outfile: { type: 'string', default: BUILT_PLANNER_VERSION_FILE } } });
  const { path, record } = writePlannerVersionFile(values.outfile);
  process.stderr.write(`lineup: planner version ${record.plannerVersion} written to ${path}\n`);
}
