/**
 * The in-cluster forwarder's bundle: lib/hosts/forwarderProcess.ts and everything it imports as
 * one minified ESM file, built by the local esbuild like the Lambda bundles
 * (infra/constructs/lineupFunction.ts `bundling`), and beside it, under chunks/, what that file
 * imports only with `import()`: the AWS SDK's credential providers (lib/aws/credentials.ts,
 * lib/k8s/auth.ts) and Secrets Manager client (lib/k8s/secretToken.ts), which a pod given keys
 * never loads. The image (infra/forwarder.Dockerfile) holds Node 24 and this directory only, and
 * bench/forwarderFootprint.ts measures the same files.
 *
 * Against running the TypeScript sources it saves the memory of stripping types at load time and
 * of the modules the forwarder never calls (esbuild drops unused exports of ESM packages). The
 * chunks save more: in one file, code reached only by `import()` is not run, but Node still
 * parses it and loads every builtin it names, about 6.5 MiB for the SDK's parts (docs/benchmarks.md).
 *
 *   node infra/k8s/forwarderBundle.ts [--outfile dist/forwarder/lineup-forward.mjs]
 */
import { statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { plannerVersionDefine } from '../../lib/plannerVersion.ts';

/** FORWARDER_BUNDLE_FILE: where the bundle goes by default, relative to the repository root. */
export const FORWARDER_BUNDLE_FILE = 'dist/forwarder/lineup-forward.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** ENTRY: the process the bundle runs. */
const ENTRY = fileURLToPath(new URL('../../lib/hosts/forwarderProcess.ts', import.meta.url));

/** REQUIRE_BANNER: a `require` for the CommonJS modules bundled into the ESM file (the Lambda bundles' ESM_REQUIRE_BANNER). */
const REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** CHUNK_DIR: where the lazily imported chunks go, beside the entry file. */
export const CHUNK_DIR = 'chunks';

/** ForwarderBundle: the entry file written, its size, the files bundled into it (paths as esbuild names them), and the chunks beside it. */
export interface ForwarderBundle {
  readonly path: string;
  readonly bytes: number;
  readonly inputs: readonly string[];
  /** Each chunk's path and the files bundled into it. */
  readonly chunks: readonly { readonly path: string; readonly inputs: readonly string[] }[];
}

/** buildForwarderBundle: write the entry file to `outfile` (absolute, or relative to the repository root), its chunks to CHUNK_DIR beside it. */
export const buildForwarderBundle = async (outfile: string = FORWARDER_BUNDLE_FILE): Promise<ForwarderBundle> => {
  const entryName = basename(outfile, extname(outfile));
  const entryPath = resolve(REPO, outfile);
  const result = await build({
    entryPoints: { [entryName]: ENTRY },
    absWorkingDir: REPO,
    outdir: dirname(entryPath),
    outExtension: { '.js': extname(outfile) || '.mjs' },
    splitting: true,
    chunkNames: `${CHUNK_DIR}/[name]-[hash]`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // ESM entry points first, so esbuild can drop the exports the forwarder does not use.
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_BANNER },
    // The forwarder writes no journal entry today; should it come to, the bundle (which holds no
    // planner sources) still records the version of the code bundled, as the Lambda bundles do.
    define: plannerVersionDefine(),
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });
  // Each `import()` target is an entry point of its own in the metafile: the entry file is the one at `outfile`.
  const outputs = Object.entries(result.metafile.outputs).map(([path, output]) => ({ path: resolve(REPO, path), inputs: Object.keys(output.inputs), entry: resolve(REPO, path) === entryPath }));
  const written = outputs.find((output) => output.entry);
  if (written === undefined) throw new Error(`esbuild wrote no output for ${ENTRY}, expected ${outfile}`);
  return {
    path: written.path,
    bytes: statSync(written.path).size,
    inputs: written.inputs,
    chunks: outputs.filter((output) => !output.entry).map(({ path, inputs }) => ({ path, inputs })),
  };
};

if (import.meta.main) {
  const { values } = parseArgs({ options: { outfile: { type: 'string', default: FORWARDER_BUNDLE_FILE } } });
  const bundle = await buildForwarderBundle(values.outfile);
  process.stderr.write(`lineup: forwarder bundle ${bundle.path}, ${(bundle.bytes / 1024).toFixed(0)} KiB, and ${bundle.chunks.length} chunks loaded on demand in ${CHUNK_DIR}/\n`);
}
