/**
 * Upstream's examples as a test corpus: every YAML file of JobSet v0.12.0's site/static/examples
 * (copied byte for byte into test/fixtures/upstream-examples) goes through `lineup validate`,
 * which must give upstream's verdict, and each valid JobSet through `lineup simulate`, which
 * must bring it to a terminal state: with no behaviour file (every Job succeeds) it completes,
 * and where the example's script makes a Job fail, a behaviour file saying so gives the outcome
 * the JobSet's failure policy implies. The files are listed from the directory, so one added
 * later without a verdict fails the test.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../cli/inProcess.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/upstream-examples/', import.meta.url));
// Not a file: io.readFile below answers this name with the behaviour text of the run.
const BEHAVIOUR_FILE = 'script-behaviour.yaml';

/** ScriptRun: what the example's container script does, as a behaviour file, and what follows from it. */
interface ScriptRun {
  readonly behaviour: string;
  readonly until: string;
  /** null: the failure policy restarts without end, so the run stops at `until`. */
  readonly terminalState: 'Completed' | 'Failed' | null;
  /** Exact restarts, or at least this many when the run restarts without end. */
  readonly restarts: number;
}

type Verdict =
  | { readonly kind: 'valid'; readonly script?: ScriptRun }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'noJobSet' };

const VALID: Verdict = { kind: 'valid' };
// The kinds the file holds, none a JobSet: upstream's webhook never sees it, Lineup says so (exit 2).
const NO_JOBSET: Verdict = { kind: 'noJobSet' };

// The failure-policy examples' leader: completion index 0 counts down ten seconds and exits 1
// (backoffLimit 0, so the Job fails with BackoffLimitExceeded), on every attempt.
const LEADER_FAILS = 'replicatedJobs: {leader: {failAfter: 10s}}\n';
// The same exit matched by a podFailurePolicy FailJob rule: the Job fails with reason PodFailurePolicy.
const LEADER_FAILS_BY_POD_POLICY = 'replicatedJobs: {leader: {failAfter: 10s, failReason: PodFailurePolicy}}\n';
const failsAfter = (restarts: number): ScriptRun => ({ behaviour: LEADER_FAILS, until: '24h', terminalState: 'Failed', restarts });
// RestartJobSetAndIgnoreMaxRestarts on a leader that always fails: restarts past maxRestarts (3), never ends.
const restartsWithoutEnd = (behaviour: string): ScriptRun => ({ behaviour, until: '10m', terminalState: null, restarts: 4 });

const RESTART_JOB_GATED = 'RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature gate is disabled';
const IN_PLACE_GATED = 'InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled';

/** UPSTREAM_VERDICTS: upstream v0.12.0's verdict per file (path relative to the corpus), from its webhook and CRD rules. */
const UPSTREAM_VERDICTS: Readonly<Record<string, Verdict>> = {
  'argo-workflow/rbac.yaml': NO_JOBSET,
  // An Argo Workflow whose step creates a JobSet: the JobSet is inside the Workflow, not a document of the file.
  'argo-workflow/workflow.yaml': NO_JOBSET,
  'depends-on/depends-on.yaml': VALID,
  'depends-on/multiple-depends-on.yaml': VALID,
  // Rule FailJobSet on leader: the first leader failure fails the JobSet.
  'failure-policy/failjobset-action.yaml': { kind: 'valid', script: failsAfter(0) },
  // maxRestarts 0; the exit is no DisruptionTarget, so BackoffLimitExceeded hits rule RestartJobSet, which has no restarts left.
  'failure-policy/host-maintenance-event-model.yaml': { kind: 'valid', script: failsAfter(0) },
  // Its podFailurePolicy turns exit code 1 into reason PodFailurePolicy, which the ignoring rule matches.
  'failure-policy/onjobfailurereasons-present-podfailurepolicy.yaml': { kind: 'valid', script: restartsWithoutEnd(LEADER_FAILS_BY_POD_POLICY) },
  // Rule RestartJobSetAndIgnoreMaxRestarts on reason BackoffLimitExceeded, what backoffLimit 0 gives.
  'failure-policy/onjobfailurereasons-present.yaml': { kind: 'valid', script: restartsWithoutEnd(LEADER_FAILS) },
  // RestartJob is behind upstream's alpha RestartJob feature gate, off by default.
  'failure-policy/restartjob-action.yaml': { kind: 'refused', message: RESTART_JOB_GATED },
  // RestartJobAndIgnoreMaxRestarts is behind the same RestartJob feature gate.
  'failure-policy/restartjobandignoremaxrestarts-action.yaml': { kind: 'refused', message: RESTART_JOB_GATED },
  // Rule RestartJobSet: three restarts (maxRestarts 3), then the fourth failure fails the JobSet.
  'failure-policy/restartjobset-action.yaml': { kind: 'valid', script: failsAfter(3) },
  'failure-policy/restartjobsetandignoremaxrestarts-action.yaml': { kind: 'valid', script: restartsWithoutEnd(LEADER_FAILS) },
  // restartStrategy InPlaceRestart is behind upstream's alpha InPlaceRestart feature gate, off by default.
  'in-place-restart/jobset-main-container-mode.yaml': { kind: 'refused', message: IN_PLACE_GATED },
  // The same gate.
  'in-place-restart/jobset-sidecar-container-mode.yaml': { kind: 'refused', message: IN_PLACE_GATED },
  'in-place-restart/service-account.yaml': NO_JOBSET,
  'prometheus-operator/prometheus.yaml': NO_JOBSET,
  'pytorch/cnn-mnist/mnist.yaml': VALID,
  'pytorch/resnet-cifar10/resnet.yaml': VALID,
  'simple/coordinator.yaml': VALID,
  'simple/exclusive-placement.yaml': VALID,
  // No rules: each leader failure restarts the JobSet (BlockingRecreate) until maxRestarts 3 is spent.
  'simple/failure-policy.yaml': { kind: 'valid', script: failsAfter(3) },
  'simple/group.yaml': VALID,
  'simple/jobset-with-network.yaml': VALID,
  'simple/paralleljobs.yaml': VALID,
  'simple/success-policy.yaml': VALID,
  'simple/ttl-after-finished.yaml': VALID,
  'startup-policy/startup-driver-ready.yaml': VALID,
  'tensorflow/mnist.yaml': VALID,
  'volume-claim-policy/single-pvc.yaml': VALID,
};

/** corpusFiles: every YAML file under the corpus, as a path relative to it with forward slashes. */
const corpusFiles = (): string[] =>
  readdirSync(CORPUS, { recursive: true, encoding: 'utf8' })
    .map((path) => path.split('\\').join('/'))
    .filter((path) => /\.ya?ml$/.test(path))
    .sort();

/** lineup: the CLI in this process, reading the real file system (and the behaviour text under BEHAVIOUR_FILE). */
const lineup = (argv: readonly string[], behaviour = '') => runCli(argv, { [BEHAVIOUR_FILE]: behaviour });

interface FinalState {
  readonly terminalState: 'Completed' | 'Failed' | null;
  readonly restarts: number;
}

/** simulateFinal: `lineup simulate FILE --output json`, its exit code and the final state it reports. */
const simulateFinal = async (file: string, flags: readonly string[] = [], behaviour = '') => {
  const { code, stdout, stderr } = await lineup(['simulate', file, '--output', 'json', ...flags], behaviour);
  assert.equal(code, 0, `lineup simulate ${file} exited ${code}: ${stderr}`);
  const { final } = JSON.parse(stdout) as { final: FinalState };
  return { terminalState: final.terminalState, restarts: final.restarts };
};

describe('upstream examples (sigs.k8s.io/jobset v0.12.0) as a corpus', () => {
  const files = corpusFiles();

  it('holds the upstream files, and every one has upstream’s verdict in the table', () => {
    assert.ok(files.length >= 29, `expected the upstream examples under ${CORPUS}, found ${files.length} YAML files`);
    const missing = files.filter((file) => !(file in UPSTREAM_VERDICTS));
    assert.deepEqual(missing, [], `corpus files with no entry in UPSTREAM_VERDICTS: ${missing.join(', ')}: add upstream's verdict for each`);
    const gone = Object.keys(UPSTREAM_VERDICTS).filter((file) => !files.includes(file));
    assert.deepEqual(gone, [], `UPSTREAM_VERDICTS names files not in the corpus: ${gone.join(', ')}`);
  });

  for (const file of files) {
    const verdict = UPSTREAM_VERDICTS[file];
    if (verdict === undefined) continue; // reported by the test above
    const path = join(CORPUS, file);
    describe(file, () => {
      switch (verdict.kind) {
        case 'noJobSet':
          it('validate and simulate say the file holds no JobSet (exit 2)', async () => {
            for (const command of ['validate', 'simulate']) {
              const { code, stdout, stderr } = await lineup([command, path]);
              assert.equal(code, 2, `${command}: ${stdout}${stderr}`);
              assert.match(stderr, /no JobSet found: the file holds only /);
            }
          });
          break;
        case 'refused':
          it('validate refuses it with upstream’s message (exit 1), and simulate rejects it', async () => {
            const validated = await lineup(['validate', path]);
            assert.equal(validated.code, 1, validated.stdout + validated.stderr);
            assert.ok(validated.stdout.includes(verdict.message), `expected "${verdict.message}" in: ${validated.stdout}`);
            const simulated = await lineup(['simulate', path]);
            assert.equal(simulated.code, 1, simulated.stdout + simulated.stderr);
            assert.ok(simulated.stdout.includes(verdict.message), `expected "${verdict.message}" in: ${simulated.stdout}`);
          });
          break;
        case 'valid': {
          it('validate finds it valid (exit 0)', async () => {
            const { code, stdout, stderr } = await lineup(['validate', path]);
            assert.equal(code, 0, stdout + stderr);
            assert.match(stdout, /: valid: \d+ replicatedJobs?, \d+ Jobs?, \d+ Pods?\n$/);
          });
          it('simulate completes it when every Job succeeds (default limits)', async () => {
            assert.deepEqual(await simulateFinal(path), { terminalState: 'Completed', restarts: 0 });
          });
          const script = verdict.script;
          if (script !== undefined) {
            const outcome = script.terminalState === null ? `restarts past maxRestarts until ${script.until}` : `${script.terminalState} after ${script.restarts} restarts`;
            it(`simulate with its script's failures: ${outcome}`, async () => {
              const final = await simulateFinal(path, ['--behaviour', BEHAVIOUR_FILE, '--until', script.until], script.behaviour);
              assert.equal(final.terminalState, script.terminalState);
              if (script.terminalState === null) assert.ok(final.restarts >= script.restarts, `expected at least ${script.restarts} restarts, got ${final.restarts}`);
              else assert.equal(final.restarts, script.restarts);
            });
          }
          break;
        }
      }
    });
  }
});
