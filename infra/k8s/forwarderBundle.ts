/**
 * The in-cluster forwarder's bundle: lib/hosts/forwarderProcess.ts and everything it imports as
 * one minified ESM file, built by the local esbuild like the Lambda bundles
 * (infra/constructs/lineupFunction.ts `bundling`): the image (infra/forwarder.Dockerfile) holds
 * Node 24 and this file only, and bench/forwarderFootprint.ts measures the same file.
 *
 * Against running the TypeScript sources it saves the memory of stripping types at load time and
 * of the modules the forwarder never calls (esbuild drops unused exports of ESM packages).
 *
 *   node infra/k8s/forwarderBundle.ts [--outfile dist/forwarder/lineup-forward.mjs]
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

/** FORWARDER_BUNDLE_FILE: where the bundle goes by default, relative to the repository root. */
export const FORWARDER_BUNDLE_FILE = 'dist/forwarder/lineup-forward.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** ENTRY: the process the bundle runs. */
const ENTRY = fileURLToPath(new URL('../../lib/hosts/forwarderProcess.ts', import.meta.url));

/** REQUIRE_BANNER: a `require` for the CommonJS modules bundled into the ESM file (the Lambda bundles' ESM_REQUIRE_BANNER). */
const REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** ForwarderBundle: the file written, its size, and the files bundled into it (paths as esbuild names them). */
export interface ForwarderBundle {
  readonly path: string;
  readonly bytes: number;
  readonly inputs: readonly string[];
}

/** buildForwarderBundle: write the bundle to `outfile` (absolute, or relative to the repository root). */
export const buildForwarderBundle = async (outfile: string = FORWARDER_BUNDLE_FILE): Promise<ForwarderBundle> => {
  const result = await build({
    entryPoints: [ENTRY],
    absWorkingDir: REPO,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // ESM entry points first, so esbuild can drop the exports the forwarder does not use.
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_BANNER },
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });
  const written = Object.entries(result.metafile.outputs)[0];
  if (written === undefined) throw new Error(`esbuild wrote no output for ${ENTRY}, expected ${outfile}`);
  const path = resolve(REPO, written[0]);
  return { path, bytes: statSync(path).size, inputs: Object.keys(written[1].inputs) };
};

if (import.meta.main) {
  const { values } = parseArgs({ options: { outfile: { type: 'string', default: FORWARDER_BUNDLE_FILE } } });
  const bundle = await buildForwarderBundle(values.outfile);
  process.stderr.write(`lineup: forwarder bundle ${bundle.path}, ${(bundle.bytes / 1024).toFixed(0)} KiB\n`);
}
