/**
 * zod in the Lambda bundles: `import * as z from 'zod'` lets esbuild keep only the parts of zod a
 * bundle calls; one `import { z } from 'zod'` anywhere in the bundle (ours, or a library's such
 * as Powertools' EventBridgeSchema) keeps all of it, its ~90 locales (≈ 250 KiB) included. The
 * Every function's bundle is checked: the Kubernetes adapter's modules are ours too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** bundledInputs: the files esbuild puts into `entry`'s bundle, built as infra/constructs/lineupFunction.ts builds it. */
const bundledInputs = async (entry: string): Promise<Record<string, number>> => {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: REPO,
    outfile: 'index.mjs',
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    minify: true,
    metafile: true,
    logLevel: 'error',
  });
  const output = Object.values(result.metafile.outputs)[0];
  assert.ok(output, `esbuild wrote no output for ${entry}`);
  return Object.fromEntries(Object.entries(output.inputs).map(([path, input]) => [path, input.bytesInOutput]));
};

describe('zod in the Lambda bundles', () => {
  for (const fn of ['resync', 'reconciler', 'forwarder']) it(`the ${fn} bundle holds the zod schemas it uses and none of zod’s locales`, async () => {
    const inputs = await bundledInputs(`functions/${fn}.ts`);
    const zod = Object.entries(inputs).filter(([path]) => /node_modules\/zod\//.test(path));
    assert.ok(zod.some(([path]) => /zod\/v4\/classic\/schemas\.js$/.test(path)), 'zod’s schemas are bundled');
    const locales = zod.filter(([path, bytes]) => /zod\/v4\/locales\//.test(path) && !/locales\/en\.js$/.test(path) && bytes > 0);
    assert.deepEqual(
      locales.map(([path]) => path),
      [],
      'a locale other than en is bundled: some module imports `{ z } from \'zod\'` (import * as z keeps zod tree-shakable)',
    );
  });
});
