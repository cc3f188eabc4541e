#!/usr/bin/env node
// Launcher for the `lineup` CLI. Where the `node` on PATH is older than Lineup needs, it re-runs
// itself on the Node 24 binary pinned in package.json for this platform, so the CLI behaves the
// same everywhere (bin/nodeChoice.js decides). Plain JavaScript that an old Node can load.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseNode } from './nodeChoice.js';

const here = dirname(fileURLToPath(import.meta.url));
// A clone runs its TypeScript sources directly; an installed package has only the JavaScript
// that `npm run build` emitted (Node strips no types under node_modules).
const sourceEntry = join(here, '..', 'lib', 'cli', 'main.ts');
const builtEntry = join(here, '..', 'dist', 'lib', 'cli', 'main.js');
const entry = existsSync(sourceEntry) ? sourceEntry : builtEntry;
if (!existsSync(entry)) {
  process.stderr.write(`lineup: neither ${sourceEntry} nor ${builtEntry} exists: run npm run build, or reinstall the package\n`);
  process.exit(2);
}

/** findPinned: the `bin/node` of an installed package, or undefined when npm did not install it. */
const findPinned = (packageName) => {
  try {
    return join(dirname(createRequire(import.meta.url).resolve(`${packageName}/package.json`)), 'bin', 'node');
  } catch {
    // An optional dependency npm skipped: chooseNode turns this into the message.
    return undefined;
  }
};

const choice = chooseNode(process.versions.node, `${process.platform}-${process.arch}`, findPinned);
if (choice.run === 'here') {
  const { main, exitQuietlyOnClosedPipe, exitWhenFlushed } = await import(entry);
  exitQuietlyOnClosedPipe();
  await exitWhenFlushed(await main(process.argv.slice(2)));
} else if (choice.run === 'pinned') {
  const child = spawn(choice.binary, [entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
} else {
  process.stderr.write(`${choice.error}\n`);
  process.exit(2);
}
