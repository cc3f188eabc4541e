/**
 * The startup conditions a gated JobSet reports (StartupPolicyInProgress, StartupPolicyCompleted),
 * with upstream's reasons and messages for InOrder and Lineup's own for dependsOn and rules.
 */
import { ConditionType, Message, Reason } from '../jobset/api.ts';
import type { StartupEvaluation, StartupForm } from '../policy/types.ts';
import { conditionIsTrue } from './conditions.ts';
import { applyCondition, type Draft } from './pass.ts';

/** Condition reasons and messages of the startup conditions, per gated form. */
const startupText: Record<Exclude<StartupForm, 'AnyOrder'>, { progress: [string, string]; completed: [string, string] }> = {
  // upstream's InOrder strings kept exactly.
  InOrder: {
    progress: [Reason.InOrderStartupPolicyInProgress, Message.InOrderStartupPolicyInProgress],
    completed: [Reason.InOrderStartupPolicyCompleted, Message.InOrderStartupPolicyCompleted],
  },
  DependsOn: {
    progress: [Reason.DependsOnStartupInProgress, Message.DependsOnStartupInProgress],
    completed: [Reason.DependsOnStartupCompleted, Message.DependsOnStartupCompleted],
  },
  Rules: {
    progress: [Reason.StartupRulesInProgress, Message.StartupRulesInProgress],
    completed: [Reason.StartupRulesCompleted, Message.StartupRulesCompleted],
  },
};

/**
 * applyStartupConditions: StartupPolicyInProgress / StartupPolicyCompleted for every gated form.
 * Once Completed in this attempt it stays so while nothing is held back (a pod restarting after
 * startup does not re-open startup); a restart or a resume holds Jobs back and re-opens it.
 */
export const applyStartupConditions = (draft: Draft, evaluation: StartupEvaluation, facts: { stillComplete: boolean }): void => {
  // AnyOrder holds nothing back, so it reports no startup conditions (as upstream).
  if (evaluation.form === 'AnyOrder') return;
  const text = startupText[evaluation.form];
  const complete = evaluation.complete || (facts.stillComplete && conditionIsTrue(draft.conditions, ConditionType.StartupPolicyCompleted));
  if (complete) {
    applyCondition(draft, { type: ConditionType.StartupPolicyCompleted, status: 'True', reason: text.completed[0], message: text.completed[1] });
    // The exclusive flip keeps InProgress's text (upstream), but Lineup's text names what was
    // awaited ("0/2 jobs ready"), stale once startup completed: put back the plain progress message,
    // which is upstream's own, so a finished JobSet reads exactly as upstream's does.
    draft.conditions = draft.conditions.map((condition) =>
      condition.type === ConditionType.StartupPolicyInProgress && condition.status === 'False' && condition.message !== text.progress[1]
        ? { ...condition, message: text.progress[1] }
        : condition,
    );
    return;
  }
  const waiting = evaluation.waitingOn ? `: ${evaluation.waitingOn.message}` : '';
  applyCondition(
    draft,
    { type: ConditionType.StartupPolicyInProgress, status: 'True', reason: text.progress[0], message: `${text.progress[1]}${waiting}` },
    true,
  );
};
