/**
 * The `lineup` program as a whole: what every command does with a file that is not there, and
 * whether each command's --help and README's commands table offer the same flags.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from '../../lib/cli/main.ts';
import { UNTIL_NEVER_LIMIT_MS } from '../../lib/sim/constants.ts';
import { formatDuration } from '../../lib/duration.ts';
import { examplePath, repoPath } from '../repoFiles.ts';
import { runCli } from './inProcess.ts';

const STORY2 = examplePath('story2-messagequeue-driver-worker.yaml');

/** lineup: the CLI in this process, with what it printed. */
const lineup = (...argv: string[]) => runCli(argv);

describe('cli/main: a file that is not there', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-main-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const missing = join(scratch, 'missing.yaml');

  const jobSetCommands: { command: string[]; line: string }[] = [
    { command: ['validate', missing], line: `${missing}: cannot read file: no such file\n` },
    { command: ['plan', missing], line: `${missing}: cannot read file: no such file\n` },
    { command: ['simulate', missing], line: `lineup simulate: ${missing}: cannot read file: no such file\n` },
    { command: ['demo', '--speed', '0', missing], line: `lineup demo: ${missing}: cannot read file: no such file\n` },
  ];
  for (const tc of jobSetCommands) {
    it(`lineup ${tc.command[0]} says in one line that the JobSet file does not exist, and exits 2`, async () => {
      const { code, stdout, stderr } = await lineup(...tc.command);
      assert.equal(code, 2);
      assert.equal(stderr, tc.line);
      assert.equal(stdout, '');
    });
  }

  for (const command of [['simulate', STORY2], ['demo', '--speed', '0', STORY2]]) {
    it(`lineup ${command[0]} says in one line that the behaviour file does not exist, and exits 2`, async () => {
      const { code, stdout, stderr } = await lineup(...command, '--behaviour', missing);
      assert.equal(code, 2);
      assert.equal(stderr, `lineup ${command[0]}: cannot read behaviour file ${missing}: no such file\n`);
      assert.equal(stdout, '');
    });
  }
});

describe('cli/main: --help and README agree', () => {
  const readme = readFileSync(repoPath('README.md'), 'utf8');
  /** readmeRows: the first cell of each row of README's commands table, by command (`clusters status` for a verb of a command that has verbs). */
  const readmeRows = new Map(
    [...readme.matchAll(/^\| `lineup ([a-z]+(?: [a-z]+)?)([^`]*)` \|/gm)].map((match) => [match[1] ?? '', match[2] ?? '']),
  );
  const program = buildProgram({ stdout: () => undefined, stderr: () => undefined, readFile: () => '' }, () => undefined);
  /** leaves: every command that runs, named as README names it: a command, or a command and its verb. */
  const leaves = program.commands.flatMap((command) =>
    command.commands.length === 0 ? [{ name: command.name(), command }] : command.commands.map((verb) => ({ name: `${command.name()} ${verb.name()}`, command: verb })),
  );

  it('README has a row for every command (and every verb of lineup clusters) and no other', () => {
    assert.deepEqual([...readmeRows.keys()].sort(), leaves.map((leaf) => leaf.name).sort());
  });

  for (const { name, command } of leaves) {
    it(`lineup ${name}: README shows the flags --help shows, with the same defaults`, () => {
      const row = readmeRows.get(name) ?? '';
      const shown = [...row.matchAll(/\[(--[a-z-]+)(?: ([^\]]+))?\]/g)].map((match) => [match[1], match[2]]);
      assert.deepEqual(
        shown.map(([flag]) => flag),
        command.options.map((option) => option.long),
        `README row: ${row}`,
      );
      // Where --help shows a default, README shows it first; where it lists choices, README lists the same.
      for (const option of command.options) {
        const readmeValues = (shown.find(([name]) => name === option.long)?.[1] ?? '').split(/\\?\|/);
        if (option.defaultValue !== undefined) assert.equal(readmeValues[0], String(option.defaultValue), `${option.long}: README's first value against --help's default`);
        if (option.argChoices) assert.deepEqual(readmeValues, option.argChoices, `${option.long}: README's values against --help's choices`);
      }
    });
  }

  for (const name of ['simulate', 'demo']) {
    it(`lineup ${name} offers --until never in --help and README`, () => {
      const command = program.commands.find((candidate) => candidate.name() === name);
      assert.match(command?.helpInformation() ?? '', /--until <duration>[^\n]*\n?[^\n]*never/);
      assert.match(readmeRows.get(name) ?? '', /\[--until [^\]]*\\\|never\]/);
      assert.ok(readme.includes(`at most ${formatDuration(UNTIL_NEVER_LIMIT_MS)} of virtual time`), 'README states the limit of --until never');
    });
  }
});
