/**
 * Which of a pass's actions a replay disagrees on, on each side, named as actionDiff names them
 * (kind and target), so the pass table can highlight those lines of the recorded and of the
 * replayed actions.
 */
import { identityOf, type ActionDifference } from '../replay/actionDiff.ts';

/** diffActionsIdentities: the identities of the recorded and of the replayed actions `differences` involve. */
export const diffActionsIdentities = (differences: readonly ActionDifference[]): { recorded: Set<string>; replayed: Set<string> } => {
  const recorded = new Set<string>();
  const replayed = new Set<string>();
  for (const difference of differences) {
    if (difference.kind === 'only-recorded') recorded.add(identityOf(difference.action));
    else if (difference.kind === 'only-replayed') replayed.add(identityOf(difference.action));
    else {
      recorded.add(identityOf(difference.recorded));
      replayed.add(identityOf(difference.replayed));
    }
  }
  return { recorded, replayed };
};
