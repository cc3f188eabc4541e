/**
 * Tenant data in the journal, through the CLI's main(): `lineup demo --state-dir D` of
 * a JobSet whose pod templates carry DB_PASSWORD=s3cr3t-value (and kubectl's last-applied
 * annotation repeating it), then `lineup export` and `lineup replay` of the recording. By default
 * the value is in no pass of the export, the inputs gunzipped included, and the replay still finds
 * every pass the same; `--journal-keep-env` keeps it, and the replay still finds every pass the
 * same. A secretKeyRef is a reference, not a value, and is kept either way.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { EXAMPLES_DIR } from '../../lib/cli/demo.ts';
import { LAST_APPLIED_ANNOTATION, REDACTED } from '../../lib/reconcile/redact.ts';
import { runCli, type CliRun } from './inProcess.ts';

/** lineup: main() in this process with `argv`, what it printed and its exit code. */
const lineup = (...argv: string[]): Promise<CliRun> => runCli(argv);

const NAME = 'messagequeue-driver-worker';
const SECRET = 's3cr3t-value';

/** withSecrets: the story-2 example with a literal DB_PASSWORD, a secretKeyRef and the last-applied annotation on every container. */
const withSecrets = (): string => {
  const jobSet = parse(readFileSync(join(EXAMPLES_DIR, 'story2-messagequeue-driver-worker.yaml'), 'utf8')) as {
    metadata: { annotations?: Record<string, string> };
    spec: { replicatedJobs: { template: { spec: { template: { spec: { containers: Record<string, unknown>[] } } } } }[] };
  };
  for (const rjob of jobSet.spec.replicatedJobs) {
    for (const container of rjob.template.spec.template.spec.containers) {
      container['env'] = [
        { name: 'DB_PASSWORD', value: SECRET },
        { name: 'DB_USER', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'user' } } },
        { name: 'EMPTY', value: '' },
      ];
    }
  }
  jobSet.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: JSON.stringify({ ...jobSet, metadata: { name: NAME } }), team: 'ml' };
  return stringify(jobSet);
};

/** Recording: what `lineup export` prints, the parts read here. */
interface RecordingFile {
  readonly passes: readonly { readonly inputs?: string; readonly inputsKept: string }[];
}

/** exported: the demo's recording of the JobSet, its text and every pass's inputs gunzipped. */
const exported = async (stateDir: string): Promise<{ text: string; inputs: string[] }> => {
  const result = await lineup('export', `local/default/${NAME}`, '--state-dir', stateDir);
  assert.equal(result.code, 0, result.stderr);
  const recording = JSON.parse(result.stdout) as RecordingFile;
  const inputs = recording.passes.flatMap((pass) => (pass.inputs === undefined ? [] : [gunzipSync(Buffer.from(pass.inputs, 'base64')).toString('utf8')]));
  assert.ok(inputs.length > 0, 'some pass keeps its inputs');
  return { text: result.stdout, inputs };
};

describe('the journal and its exports keep what replay needs, not environment values', () => {
  let scratch = '';
  let file = '';

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-journal-redaction-'));
    file = join(scratch, 'secret-jobset.yaml');
    writeFileSync(file, withSecrets());
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  /** demoThenReplay: the demo of the file into a fresh state directory, its export, and the replay of the export. */
  const demoThenReplay = async (name: string, ...flags: string[]) => {
    const stateDir = join(scratch, name);
    const demo = await lineup('demo', file, '--speed', '0', '--state-dir', stateDir, ...flags);
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stdout, new RegExp(`\\n {2}${NAME} +Completed\\n`));
    const recording = await exported(stateDir);
    const recordingFile = join(scratch, `${name}.json`);
    writeFileSync(recordingFile, recording.text);
    const replay = await lineup('replay', recordingFile);
    return { recording, replay, stateDir };
  };

  it(`lineup demo --state-dir D, lineup export: ${SECRET} is in no pass, the inputs gunzipped included; lineup replay of it: exit 0, every pass the same`, async () => {
    const { recording, replay, stateDir } = await demoThenReplay('redacted');
    assert.doesNotMatch(recording.text, new RegExp(SECRET));
    for (const inputs of recording.inputs) {
      assert.doesNotMatch(inputs, new RegExp(SECRET));
      assert.match(inputs, /"name":"DB_PASSWORD","value":"<redacted>"/);
      assert.match(inputs, /"secretKeyRef":\{"name":"db-credentials","key":"user"\}/, 'a reference is kept');
      assert.match(inputs, /"name":"EMPTY","value":""/, 'an empty value stays empty');
      assert.match(inputs, new RegExp(`"${LAST_APPLIED_ANNOTATION.replaceAll('.', '\\.')}":"${REDACTED}","team":"ml"`), 'the last-applied annotation is redacted, other annotations kept');
    }
    assert.equal(replay.code, 0, replay.stdout);
    assert.match(replay.stdout, /\n {2}(\d+) same, 0 different, 0 unreplayable\n$/);
    // Nor does history show it.
    const history = await lineup('history', `local/default/${NAME}`, '--state-dir', stateDir, '--output', 'json');
    assert.equal(history.code, 0, history.stderr);
    assert.doesNotMatch(history.stdout, new RegExp(SECRET));
  });

  it(`lineup demo --journal-keep-env keeps ${SECRET} in the inputs, and the replay is still every pass the same`, async () => {
    const { recording, replay } = await demoThenReplay('kept', '--journal-keep-env');
    assert.ok(recording.inputs.some((inputs) => inputs.includes(`"name":"DB_PASSWORD","value":"${SECRET}"`)));
    assert.equal(replay.code, 0, replay.stdout);
    assert.match(replay.stdout, /\n {2}(\d+) same, 0 different, 0 unreplayable\n$/);
  });
});
