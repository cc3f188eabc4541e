/**
 * Where the shared reference material lives: the repository's parent directory holds
 * `shared/` (upstream CRD, example JobSets). Tests that need it fail loudly when it is missing
 * rather than skip, so a checkout without it cannot pass by accident.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SHARED = new URL('../../shared/', import.meta.url);

/** referencePath: the absolute path of `relative` under shared/reference, or a thrown error saying what is missing. */
export const referencePath = (relative: string): string => {
  const path = fileURLToPath(new URL(`reference/${relative}`, SHARED));
  if (!existsSync(path)) {
    throw new Error(`reference material missing: ${path} (expected the repository's parent directory to hold shared/reference/${relative})`);
  }
  return path;
};

/** exampleFiles: absolute paths of every example JobSet in shared/reference/examples, sorted. */
export const exampleFiles = (): string[] => {
  const dir = referencePath('examples');
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
    .sort()
    .map((name) => `${dir}/${name}`);
  if (files.length === 0) throw new Error(`no example JobSets found in ${dir}`);
  return files;
};
