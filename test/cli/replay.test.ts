import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exportCommand, replayCommand } from '../../lib/cli/replay.ts';
import { openStateDirForWriting } from '../../lib/hosts/stateDir.ts';
import { parseRecording } from '../../lib/replay/recording.ts';
import { KEY, NAME, recordStartup, tamperings, workersAtOnce } from '../replay/fixtures.ts';
import { runCli } from './inProcess.ts';

/** capture: a CliIo collecting what a command prints. */
const capture = () => {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: (text: string) => void (out += text),
      stderr: (text: string) => void (err += text),
      readFile: (path: string) => readFileSync(path, 'utf8'),
    },
    stdout: () => out,
    stderr: () => err,
  };
};

const target = `${KEY.cluster}/${KEY.namespace}/${KEY.name}`;

describe('lineup export and lineup replay', () => {
  let scratch = '';
  let stateDir = '';
  let recordingFile = '';

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-replay-'));
    stateDir = join(scratch, 'state');
    // A startup recorded in a state directory the way lineup run keeps it (embedded DynamoDB).
    const { close, store } = openStateDirForWriting(stateDir, { command: 'the test' });
    try {
      await recordStartup(store);
    } finally {
      close();
    }
    const { io, stdout, stderr } = capture();
    assert.equal(await exportCommand(target, { stateDir }, io), 0, stderr());
    recordingFile = join(scratch, 'rec.json');
    writeFileSync(recordingFile, stdout());
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('export writes a recording that replays with no difference (exit 0), pass by pass', async () => {
    const recording = JSON.parse(readFileSync(recordingFile, 'utf8')) as { format: string; passes: unknown[] };
    assert.equal(recording.format, 'lineup.dev/recording/v1');
    const { io, stdout, stderr } = capture();
    assert.equal(await replayCommand(recordingFile, { stateDir, output: 'text' }, io), 0, stderr());
    const lines = stdout().trimEnd().split('\n');
    assert.match(lines[0] ?? '', new RegExp(`^${target}: ${recording.passes.length} passes recorded by 0\\.1\\.0\\+[0-9a-f]{12}, replayed with 0\\.1\\.0\\+[0-9a-f]{12}$`));
    assert.equal(lines.filter((line) => / same$/.test(line)).length, recording.passes.length);
    assert.equal(lines.at(-1), `  ${recording.passes.length} same, 0 different, 0 unreplayable`);
  });

  it('replays the same JobSet from the state directory, and --all as JSON (exit 0)', async () => {
    const direct = capture();
    assert.equal(await replayCommand(target, { stateDir, output: 'text' }, direct.io), 0, direct.stderr());
    const fromFile = capture();
    await replayCommand(recordingFile, { stateDir, output: 'text' }, fromFile.io);
    assert.equal(direct.stdout(), fromFile.stdout(), 'export → replay round-trips');
    const all = capture();
    assert.equal(await replayCommand(undefined, { stateDir, all: true, cluster: KEY.cluster, output: 'json' }, all.io), 0, all.stderr());
    const parsed = JSON.parse(all.stdout()) as { summary: { jobSets: number; passes: number; same: number; different: number; unreplayable: number } };
    assert.equal(parsed.summary.jobSets, 1);
    assert.ok(parsed.summary.passes > 0);
    assert.deepEqual([parsed.summary.same, parsed.summary.different, parsed.summary.unreplayable], [parsed.summary.passes, 0, 0]);
  });

  it('a planner differing in one rule is exit 1, names the first divergence and each differing action by the Job it acts on, with the written fields that differ', async () => {
    const { io, stdout } = capture();
    assert.equal(await replayCommand(recordingFile, { stateDir, output: 'text', planner: workersAtOnce }, io), 1);
    const text = stdout();
    assert.match(text, new RegExp(`^${target}: .*\\n {2}first divergence: pass 1 at \\S+, after JobSet Changed JobSet ${NAME} rv \\S+: CreateJob ${NAME}-worker-0: code recorded "StartupRuleHeld", replayed "GateOpened"; `));
    assert.match(text, /\n {2}pass 1 {2}\S+ {2}different: \d+ actions recorded, \d+ replayed\n/);
    assert.match(text, new RegExp(`\\n {4}CreateJob ${NAME}-worker-1: code recorded "StartupRuleHeld", replayed "GateOpened"; message recorded "[^"]+", replayed "variant: workers start at once"; what it writes differs:\\n {6}spec\\.suspend: recorded true, replayed false\\n`));
    assert.ok(text.includes(`replayed "variant: workers start at once"`));
    assert.match(text, /\n {2}\d+ same, 1 different, 0 unreplayable\n$/);
    assert.ok(!text.includes(`${NAME}-driver`), 'only the changed actions are listed');
  });

  it('unusable input is exit 2 with one line: a truncated file, an unknown format version, an unknown JobSet', async () => {
    const text = readFileSync(recordingFile, 'utf8');
    const truncated = join(scratch, 'truncated.json');
    writeFileSync(truncated, text.slice(0, Math.floor(text.length / 3)));
    const future = join(scratch, 'future.json');
    writeFileSync(future, JSON.stringify({ ...(JSON.parse(text) as object), format: 'lineup.dev/recording/v2' }));
    const cases: [string | undefined, RegExp][] = [
      [truncated, /^lineup replay: \S+truncated\.json: not a recording: its JSON does not parse \(truncated\?\): .+\n$/],
      [future, /^lineup replay: \S+future\.json: unknown recording format "lineup\.dev\/recording\/v2", expected "lineup\.dev\/recording\/v1"\n$/],
      [`${KEY.cluster}/default/nobody`, new RegExp(`^lineup replay: no passes recorded for ${KEY.cluster}/default/nobody in \\S+\\n$`)],
      ['no-such-file.json', /^lineup replay: no-such-file\.json does not exist: expected a recording file \(lineup export\) or CLUSTER\/NAMESPACE\/NAME\n$/],
      [undefined, /^lineup replay: expected a recording file, CLUSTER\/NAMESPACE\/NAME or --all\n$/],
    ];
    for (const [input, expected] of cases) {
      const { io, stdout, stderr } = capture();
      assert.equal(await replayCommand(input, { stateDir, output: 'text' }, io), 2, String(input));
      assert.match(stderr(), expected);
      assert.equal(stdout(), '');
    }
    const missing = capture();
    assert.equal(await exportCommand(`${KEY.cluster}/default/nobody`, { stateDir }, missing.io), 2);
    assert.match(missing.stderr(), new RegExp(`^lineup export: no passes recorded for ${KEY.cluster}/default/nobody in \\S+\\n$`));
    const noState = capture();
    assert.equal(await replayCommand(target, { stateDir: join(scratch, 'typo'), output: 'text' }, noState.io), 2);
    assert.match(noState.stderr(), /^lineup replay: no state in \S+typo: expected the --state-dir of a lineup run or lineup demo\n$/);
  });

  it('a tampered recording is exit 2 with one line naming the pass, also with --perturb; the untampered one replays', async () => {
    const recording = parseRecording(readFileSync(recordingFile, 'utf8'), recordingFile);
    for (const tampering of tamperings(recording)) {
      const file = join(scratch, `${tampering.name.replaceAll(' ', '-')}.json`);
      writeFileSync(file, JSON.stringify(tampering.recording));
      for (const flags of [{ output: 'text' }, { output: 'text', perturb: '3' }]) {
        const { io, stdout, stderr } = capture();
        assert.equal(await replayCommand(file, { stateDir, ...flags }, io), 2, `${tampering.name} ${JSON.stringify(flags)}: ${stderr()}`);
        assert.match(stderr(), new RegExp(`^lineup replay: \\S+\\.json: pass ${tampering.pass}: [^\\n]+; not replayed\\n$`), tampering.name);
        assert.equal(stdout(), '');
      }
    }
  });

  it('a pass whose inputs were not kept is exit 1 with the reason: the replay cannot vouch for it', async () => {
    const recording = parseRecording(readFileSync(recordingFile, 'utf8'), recordingFile);
    const file = join(scratch, 'too-large.json');
    writeFileSync(file, JSON.stringify({ ...recording, passes: recording.passes.map((pass, index) => (index === 1 ? { ...pass, inputsKept: 'too-large', inputs: undefined } : pass)) }));
    const { io, stdout } = capture();
    assert.equal(await replayCommand(file, { stateDir, output: 'text' }, io), 1);
    assert.match(stdout(), /\n {2}pass 2 {2}\S+ {2}unreplayable: inputs were too large to keep\n/);
    assert.match(stdout(), /\n {2}1 pass could not be replayed \(inputs not kept: too large, or expired from the journal\): this replay vouches only for the others\n$/);
  });
});

describe('lineup replay: a FILE that does not exist, and refused flags, in one line naming what was refused (exit 2)', () => {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const doesNotExist = (file: string): string => `lineup replay: ${file} does not exist: expected a recording file (lineup export) or CLUSTER/NAMESPACE/NAME\n`;
  const cases: { name: string; argv: string[]; stderr: string }[] = [
    { name: 'a recording file that is not there', argv: ['replay', 'rec.json'], stderr: doesNotExist('rec.json') },
    // Three parts, but a path: the middle is no namespace (not a DNS label), or it names a .json file.
    { name: 'a path of three parts', argv: ['replay', 'runs/2026.01/rec'], stderr: doesNotExist('runs/2026.01/rec') },
    { name: 'a .json path of three parts', argv: ['replay', 'runs/today/rec.json'], stderr: doesNotExist('runs/today/rec.json') },
    { name: 'a word that is neither a file nor CLUSTER/NAMESPACE/NAME', argv: ['replay', 'foo'], stderr: doesNotExist('foo') },
    { name: 'a directory', argv: ['replay', here], stderr: `lineup replay: ${here}: cannot read the recording: is a directory\n` },
    // The flags are checked before the file is looked for.
    { name: '--perturb that is no count', argv: ['replay', 'rec.json', '--perturb', 'x'], stderr: 'lineup replay: --perturb expects an integer ≥ 1, got "x"\n' },
    { name: '--seed below 0', argv: ['replay', 'rec.json', '--seed', '-1'], stderr: 'lineup replay: --seed expects an integer ≥ 0, got "-1"\n' },
    {
      name: '--perturb with --output html',
      argv: ['replay', 'rec.json', '--perturb', '3', '--output', 'html'],
      stderr: 'lineup replay: --output html draws recorded passes, not perturbed runs: with --perturb or --seed, use --output text or json\n',
    },
    {
      name: '--since that is no duration',
      argv: ['replay', '--all', '--since', 'a week', '--state-dir', 'nowhere'],
      stderr: 'lineup replay: --since "a week": duration "a week" is not valid: expected terms like 500ms, 5s, 2m, 1h30m (units h, m, s, ms), 0 or never; or days, e.g. 7d\n',
    },
    {
      name: '--timeout of --archive that is no duration',
      argv: ['replay', '--archive', 'a', '--from', '2026-01-01T00:00:00Z', '--to', '2026-01-02T00:00:00Z', '--table', 't', '--region', 'r', '--timeout', 'soon'],
      stderr: 'lineup replay: --timeout: duration "soon" is not valid: expected terms like 500ms, 5s, 2m, 1h30m (units h, m, s, ms), 0 or never\n',
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const run = await runCli(tc.argv);
      assert.deepEqual([run.code, run.stdout, run.stderr], [2, '', tc.stderr]);
    });
  }
});
