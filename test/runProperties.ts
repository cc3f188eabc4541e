/**
 * `npm run test:properties [-- --runs N] [--seed S [--path P]] [--name PATTERN]`: runs only the
 * property test files (every properties.test.ts under test/), every property with N cases (default
 * PROPERTY_RUNS). --seed and --path replay the failure fast-check reported; --name keeps the
 * properties whose name matches PATTERN (node's --test-name-pattern).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseRuns, parseSeed, PROPERTY_RUNS, PropertyEnv } from './propertyRuns.ts';

/** The property test files, as node's test runner globs them from the repository root. */
const PROPERTY_FILES = 'test/**/properties.test.ts';

const main = (): void => {
  const { values } = parseArgs({
    options: { runs: { type: 'string' }, seed: { type: 'string' }, path: { type: 'string' }, name: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const runs = values.runs === undefined ? PROPERTY_RUNS : parseRuns(values.runs);
  const env: NodeJS.ProcessEnv = { ...process.env, [PropertyEnv.runs]: String(runs) };
  if (values.seed !== undefined) env[PropertyEnv.seed] = String(parseSeed(values.seed));
  if (values.path !== undefined) env[PropertyEnv.path] = values.path;
  const args = ['--test', '--test-reporter=spec', ...(values.name === undefined ? [] : [`--test-name-pattern=${values.name}`]), PROPERTY_FILES];
  process.stderr.write(`property tests: ${runs} runs per property${values.seed === undefined ? '' : `, seed ${values.seed}`}\n`);
  const child = spawn(process.execPath, args, { cwd: fileURLToPath(new URL('..', import.meta.url)), env, stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write(`could not start the test runner ${process.execPath}: ${error.message}\n`);
    process.exitCode = 2;
  });
  child.on('exit', (code, signal) => {
    // A child killed by a signal exits as a shell reports it: 128 + the signal's number.
    process.exitCode = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
  });
};

try {
  main();
} catch (error) {
  process.stderr.write(`test:properties: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
