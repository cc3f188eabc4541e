/**
 * What the journal leaves out (lib/reconcile/redact.ts): containers' environment values
 * and kubectl's last-applied annotation, wherever a JobSet, a Job or an action holds them — and
 * that a journal of redacted inputs still replays: the inputs digest is the stored form's, the
 * action digests are the redacted form's whether the values were kept or not, and entries written
 * before the redaction still replay the same.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../lib/plan/planner.ts';
import {
  actionDigest,
  canonicalJson,
  inputsDigest,
  inputsOf,
  journalActionsOf,
  journalEntryOf,
  journalInputsOf,
  packInputs,
  unpackInputs,
  wholeActionDigest,
  type PassRecord,
} from '../../lib/reconcile/journal.ts';
import { LAST_APPLIED_ANNOTATION, REDACTED, redactTenantData } from '../../lib/reconcile/redact.ts';
import { replayRecording } from '../../lib/replay/replay.ts';
import { RECORDING_FORMAT, type Recording } from '../../lib/replay/recording.ts';
import type { JournalEntry } from '../../lib/store/types.ts';
import { CLUSTER, story2 } from './fixtures.ts';

const key = { cluster: CLUSTER, namespace: 'default', name: 'messagequeue-driver-worker' };
const SECRET = 's3cr3t-value';

/** withEnv: story 2 with a literal value, a reference, an empty value in every container (init containers too), and the last-applied annotation. */
const withEnv = (): JobSet => {
  const jobSet = story2();
  const env = [
    { name: 'DB_PASSWORD', value: SECRET },
    { name: 'DB_USER', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'user' } } },
    { name: 'EMPTY', value: '' },
  ];
  return {
    ...jobSet,
    metadata: { ...jobSet.metadata, annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify({ env }), team: 'ml' } },
    spec: {
      ...jobSet.spec,
      replicatedJobs: (jobSet.spec.replicatedJobs ?? []).map((rjob) => {
        const podSpec = rjob.template.spec.template.spec;
        return {
          ...rjob,
          template: {
            ...rjob.template,
            spec: {
              ...rjob.template.spec,
              template: {
                ...rjob.template.spec.template,
                spec: {
                  ...podSpec,
                  containers: (podSpec?.containers ?? []).map((container) => ({ ...container, env, envFrom: [{ secretRef: { name: 'db' } }] })),
                  initContainers: [{ name: 'init', image: 'busybox', env: [{ name: 'TOKEN', value: SECRET }] }],
                },
              },
            },
          },
        };
      }),
    },
  };
};

/** createdJobs: the Jobs the planner creates for `jobSet`, as the cluster would hold them. */
const createdJobs = (jobSet: JobSet): Job[] =>
  plan({ jobSet, jobs: [], service: undefined, now: 1 }, DEFAULT_PLAN_OPTIONS).actions.flatMap((action) => (action.kind === 'CreateJob' ? [action.job] : []));

describe('reconcile/redact: what the journal leaves out', () => {
  it('replaces every literal environment value and the last-applied annotation, keeping references, empty values and all else', () => {
    const jobSet = withEnv();
    const redacted = redactTenantData(jobSet);
    const text = JSON.stringify(redacted);
    assert.doesNotMatch(text, new RegExp(SECRET));
    const container = redacted.spec.replicatedJobs?.[0]?.template.spec.template.spec?.containers?.[0];
    assert.deepEqual(container?.['env'], [
      { name: 'DB_PASSWORD', value: REDACTED },
      { name: 'DB_USER', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'user' } } },
      { name: 'EMPTY', value: '' },
    ]);
    assert.deepEqual(container?.['envFrom'], [{ secretRef: { name: 'db' } }]);
    assert.deepEqual(redacted.spec.replicatedJobs?.[0]?.template.spec.template.spec?.initContainers?.[0]?.['env'], [{ name: 'TOKEN', value: REDACTED }]);
    assert.deepEqual(redacted.metadata.annotations, { [LAST_APPLIED_ANNOTATION]: REDACTED, team: 'ml' });
    // Everything but the redacted values is as it was.
    const restored = JSON.parse(text.replaceAll(`"value":"${REDACTED}"`, `"value":"${SECRET}"`)) as JobSet;
    assert.deepEqual(restored.spec, jobSet.spec);
  });

  it('leaves its argument as it was, gives back the same object when there is nothing to redact, and redacts a redacted value to itself', () => {
    const jobSet = withEnv();
    const before = canonicalJson(jobSet);
    const redacted = redactTenantData(jobSet);
    assert.equal(canonicalJson(jobSet), before, 'the argument is not changed');
    const plain = story2();
    assert.equal(redactTenantData(plain), plain, 'nothing to redact: the same object');
    assert.equal(redactTenantData(redacted), redacted, 'idempotent');
    const jobs = createdJobs(withEnv());
    assert.ok(jobs.length > 0);
    assert.doesNotMatch(JSON.stringify(redactTenantData(jobs)), new RegExp(SECRET), 'the Jobs created from the template too');
    assert.match(JSON.stringify(jobs), new RegExp(SECRET), '(the Jobs do carry the value)');
  });
});

describe('reconcile/journal: entries keep what replay needs', () => {
  /** passOf: a pass of story 2 with environment values, on its Jobs as created, `keepEnv` as given. */
  const passOf = (keepEnv?: boolean): PassRecord => {
    const jobSet = withEnv();
    const observed = { jobSet, jobs: createdJobs(jobSet), service: undefined, now: 5 };
    return { key, observed, planOptions: DEFAULT_PLAN_OPTIONS, plan: plan(observed, DEFAULT_PLAN_OPTIONS), applied: true, triggers: [], timings: { passStartedAt: 5, writesDoneAt: 6 }, keepEnv };
  };

  it('stores the inputs redacted by default, digested as stored; keepEnv keeps them whole, digested whole', () => {
    const redacted = journalEntryOf(passOf(), undefined);
    const stored = unpackInputs(redacted.inputs ?? '');
    assert.doesNotMatch(JSON.stringify(stored), new RegExp(SECRET));
    assert.equal(redacted.inputsDigest, inputsDigest(stored));
    assert.equal(redacted.inputsDigest, inputsDigest(journalInputsOf(passOf().observed)));
    const kept = journalEntryOf(passOf(true), undefined);
    assert.match(JSON.stringify(unpackInputs(kept.inputs ?? '')), new RegExp(SECRET));
    assert.equal(kept.inputsDigest, inputsDigest(inputsOf(passOf(true).observed)));
  });

  it('digests an action over its redacted form: the same from whole or redacted inputs, with or without keepEnv; any other change shows', () => {
    const whole = passOf();
    const fromRedacted = plan({ ...journalInputsOf(whole.observed), now: 5 }, DEFAULT_PLAN_OPTIONS);
    assert.deepEqual(journalActionsOf(fromRedacted), journalActionsOf(whole.plan));
    assert.deepEqual(journalEntryOf(passOf(true), undefined).actions, journalEntryOf(passOf(), undefined).actions);
    const create = whole.plan.actions.find((action) => action.kind === 'CreateJob');
    assert.ok(create?.kind === 'CreateJob');
    assert.notEqual(wholeActionDigest(create), actionDigest(create), 'the whole action digests its values');
    const renamed = { ...create, job: { ...create.job, spec: { ...create.job.spec, parallelism: 7 } } };
    assert.notEqual(actionDigest(renamed), actionDigest(create));
  });

  it('replays a recording of redacted inputs, of kept ones, and of entries written before the redaction (whole digests): every pass the same', () => {
    const recordingOf = (passes: readonly Omit<JournalEntry, 'key'>[]): Recording => ({
      format: RECORDING_FORMAT,
      jobSet: key,
      passes: passes.map((pass) => ({ ...pass, inputsKept: pass.inputsKept === 'delta' ? assert.fail('a first entry is never a delta') : pass.inputsKept })),
    });
    const { key: _redactedKey, ...redacted } = journalEntryOf(passOf(), undefined);
    const { key: _keptKey, ...kept } = journalEntryOf(passOf(true), undefined);
    // As an older Lineup wrote it: whole inputs, whole digests.
    const old = passOf(true);
    const legacy = { ...kept, inputs: packInputs(inputsOf(old.observed)), actions: journalActionsOf(old.plan).map((action, index) => ({ ...action, digest: wholeActionDigest(old.plan.actions[index] ?? assert.fail('an action')) })) };
    assert.notDeepEqual(legacy.actions, kept.actions, 'the older digests differ');
    for (const [what, pass] of [['redacted', redacted], ['kept', kept], ['legacy', legacy]] as const) {
      const report = replayRecording(recordingOf([pass]));
      assert.deepEqual([report.same, report.different, report.unreplayable], [1, 0, 0], what);
    }
    // A legacy pass whose planner now decides otherwise is still reported.
    const changed = { ...legacy, actions: legacy.actions.map((action) => ({ ...action, digest: action.kind === 'CreateJob' ? 'ffffffffffff' : action.digest })) };
    assert.ok(replayRecording(recordingOf([changed])).different === 1);
  });
});
