/**
 * `node infra/manifests/generate.ts [--controller-name NAME] [--claim-unmanaged] [--out DIR] [--check]`
 *
 * Writes the Kubernetes manifests (infra/k8s/manifests.ts) into DIR (default: this folder).
 * The committed files are the default rendering; for a deployment with another controllerName
 * or claimUnmanaged, render into another directory and apply those. --check writes nothing and
 * exits 1 when a file differs from what would be written.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_MANIFEST_OPTIONS, manifestFiles } from '../k8s/manifests.ts';

/** MANIFESTS_DIR: where the committed manifests live. */
export const MANIFESTS_DIR = fileURLToPath(new URL('.', import.meta.url));

/** readOrEmpty: a committed manifest's text; a file not written yet compares as empty (so --check reports it stale). */
const readOrEmpty = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** main: the command; returns the exit code. */
export const main = (argv: readonly string[]): number => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'controller-name': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.controllerName },
      'claim-unmanaged': { type: 'boolean', default: DEFAULT_MANIFEST_OPTIONS.claimUnmanaged },
      out: { type: 'string', default: MANIFESTS_DIR },
      check: { type: 'boolean', default: false },
    },
  });
  const files = manifestFiles({ controllerName: values['controller-name'], claimUnmanaged: values['claim-unmanaged'] });
  let stale = 0;
  if (!values.check) mkdirSync(values.out, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    const path = join(values.out, name);
    if (values.check) {
      if (readOrEmpty(path) !== text) {
        process.stderr.write(`${path}: out of date, run node infra/manifests/generate.ts\n`);
        stale += 1;
      }
    } else {
      writeFileSync(path, text);
      process.stderr.write(`wrote ${path}\n`);
    }
  }
  return stale === 0 ? 0 : 1;
};

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
