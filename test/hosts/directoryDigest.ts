/** A digest of every file under a directory, to show that a command changed no byte of it. */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** directoryDigest: relative path → sha256 of every file under `root` (sorted), directories as `<dir>/`. */
export const directoryDigest = (root: string): Record<string, string> => {
  const digest: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        digest[`${relative(root, path)}/`] = 'directory';
        walk(path);
      } else {
        digest[relative(root, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
      }
    }
  };
  walk(root);
  return digest;
};
