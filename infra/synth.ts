/**
 * `npm run synth` = `node infra/synth.ts [--config FILE] [--outdir DIR]`: synthesizes the app
 * (functions bundled by the local esbuild, no Docker, no AWS credentials, no network) into DIR
 * (default cdk.out) and prints the stack's template as YAML on stdout; progress and cdk-nag's
 * verdict go to stderr. FILE is a stack configuration (infra/config.ts), as `cdk deploy -c
 * lineup:configFile=FILE` would read it; without it the stack has no clusters.
 */
import { statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { createApp } from './app.ts';
import { CONFIG_FILE_CONTEXT_KEY } from './config.ts';

/** DEFAULT_OUTDIR: where the cloud assembly goes, as the CDK CLI would put it. */
export const DEFAULT_OUTDIR = 'cdk.out';

/** directoryBytes: the size of everything under `path`. */
const directoryBytes = (path: string): number =>
  readdirSync(path, { withFileTypes: true }).reduce((sum, entry) => {
    const child = join(path, entry.name);
    return sum + (entry.isDirectory() ? directoryBytes(child) : statSync(child).size);
  }, 0);

/** main: synthesize and print; returns the exit code. */
export const main = (argv: readonly string[]): number => {
  const { values } = parseArgs({ args: [...argv], options: { config: { type: 'string' }, outdir: { type: 'string', default: DEFAULT_OUTDIR } } });
  const started = Date.now();
  process.stderr.write(`lineup: synthesizing into ${values.outdir}${values.config === undefined ? '' : ` with ${values.config}`} (esbuild bundles the functions)\n`);
  const { app, stack } = createApp({ outdir: values.outdir, context: values.config === undefined ? {} : { [CONFIG_FILE_CONTEXT_KEY]: values.config } });
  const assembly = app.synth();
  const artifact = assembly.getStackByName(stack.stackName);
  const template = artifact.template as { Resources?: Record<string, unknown> };
  const assets = readdirSync(values.outdir).filter((name) => name.startsWith('asset.'));
  process.stdout.write(stringify(template, { lineWidth: 0 }));
  process.stderr.write(
    `lineup: stack ${stack.stackName}: ${Object.keys(template.Resources ?? {}).length} resources, ${assets.length} assets, ` +
      `${(directoryBytes(values.outdir) / 1024 / 1024).toFixed(1)} MiB in ${values.outdir}, cdk-nag AwsSolutions clean, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return 0;
};

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
