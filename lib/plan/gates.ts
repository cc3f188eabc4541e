/**
 * The startup policy's answer for one pass: which replicatedJobs may run, and why each starts
 * now or is held back.
 */
import { evaluateStartup } from '../policy/startupPolicy.ts';
import type { StartupEvaluation } from '../policy/types.ts';
import { isDeleting, isSuspended, replicatedJobOf } from './childJobs.ts';
import type { CountedPass } from './pass.ts';
import { ActionReasonCode, gateOpenedMessage, heldMessage, type ActionReason } from './reasons.ts';
import { startupPolicySpecOf } from './startupSpec.ts';

/** Gates: the startup policy's answer for this pass, per replicatedJob. */
export interface Gates {
  readonly evaluation: StartupEvaluation;
  /** released: the replicatedJob's Jobs may run (its gate is open, or it already runs). */
  readonly released: (rjob: string) => boolean;
  /** reasonFor: why a replicatedJob's Jobs start now or are held back. */
  readonly reasonFor: (rjob: string) => ActionReason;
}

/** decideGates: evaluate the startup policy on the gating counters. */
export const decideGates = (pass: CountedPass): Gates => {
  const suspended = pass.jobSet.spec.suspend === true;
  const policy = startupPolicySpecOf(pass.jobSet);
  const gating = pass.counters.gating;
  const evaluation = evaluateStartup(policy, gating);
  const gateByName = new Map(evaluation.gates.map((gate) => [gate.replicatedJob, gate]));
  // A replicatedJob with a running Job stays released even if its gate closes again (a ready
  // pod restarting): Lineup never suspends running work because of a gate, only on JobSet suspend.
  const running = new Set<string>();
  for (const job of pass.children.active) {
    const rjob = replicatedJobOf(job);
    if (rjob !== undefined && !isSuspended(job) && !isDeleting(job)) running.add(rjob);
  }
  const released = (rjob: string): boolean => gateByName.get(rjob)?.released === true || running.has(rjob);
  const reasonFor = (rjob: string): ActionReason => {
    if (suspended) return { code: ActionReasonCode.JobSetSuspended, message: 'spec.suspend is true' };
    const gate = gateByName.get(rjob);
    if (gate?.released === true) return { code: ActionReasonCode.GateOpened, message: gateOpenedMessage(policy, gating, rjob) };
    if (running.has(rjob)) return { code: ActionReasonCode.AlreadyRunning, message: `${rjob} already has running jobs; its gate closed again` };
    return { code: ActionReasonCode.StartupRuleHeld, message: gate === undefined ? `${rjob}: no gate` : heldMessage(policy, gate) };
  };
  return { evaluation, released, reasonFor };
};
