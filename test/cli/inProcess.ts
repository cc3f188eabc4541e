/** Running the CLI's main() in the test's own process, for the CLI tests. */
import { readFileSync } from 'node:fs';
import type { CliIo } from '../../lib/cli/io.ts';
import { main } from '../../lib/cli/main.ts';

/** What one in-process run of the CLI gave: its exit code and what it printed. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * runCli: main() in this process, reading the real file system except the paths of `virtualFiles`
 * (path → text), with what it printed.
 */
export const runCli = async (argv: readonly string[], virtualFiles: Readonly<Record<string, string>> = {}): Promise<CliRun> => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readFile: (path) => virtualFiles[path] ?? readFileSync(path, 'utf8'),
  };
  const code = await main([...argv], io);
  return { code, stdout: out.join(''), stderr: err.join('') };
};
