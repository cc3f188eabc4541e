/**
 * Files of this repository that tests, the harness and the benchmarks read: the example JobSets
 * in `examples/` and the upstream JobSet CRD in `infra/crd/`. Every path is resolved from this
 * file, so a clone reads only itself, wherever it lives.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = new URL('../', import.meta.url);

/** repoPath: the absolute path of `relative` in this repository, or a thrown error naming the missing file. */
export const repoPath = (relative: string): string => {
  const path = fileURLToPath(new URL(relative, REPO_ROOT));
  if (!existsSync(path)) throw new Error(`repository file missing: ${relative} (looked for ${path})`);
  return path;
};

/** examplePath: the absolute path of an example JobSet in examples/. */
export const examplePath = (name: string): string => repoPath(`examples/${name}`);

/** jobSetCrdPath: the upstream JobSet CRD (v0.12.0) that tests install and check schemas against. */
export const jobSetCrdPath = (): string => repoPath('infra/crd/jobset.x-k8s.io_jobsets.yaml');

/** exampleFiles: absolute paths of every example JobSet in examples/, sorted. */
export const exampleFiles = (): string[] => {
  const dir = repoPath('examples');
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
    .sort()
    .map((name) => `${dir}/${name}`);
  if (files.length === 0) throw new Error(`no example JobSets found in ${dir}`);
  return files;
};
