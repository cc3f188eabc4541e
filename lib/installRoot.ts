/**
 * Where Lineup's own files are: the folder holding its package.json. From a clone that is the
 * checkout (this module runs as lib/installRoot.ts); from an installed package it is the package
 * folder (this module runs as dist/lib/installRoot.js). Files Lineup ships beside its code, such
 * as examples/, are found from here, never from the working directory.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** findInstallRoot: the nearest folder at or above `from` that holds a package.json. */
export const findInstallRoot = (from: string): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json at or above ${from}: lineup's files are not where its code is`);
  }
};

/** INSTALL_ROOT: the folder of Lineup's package.json. */
export const INSTALL_ROOT = findInstallRoot(dirname(fileURLToPath(import.meta.url)));
