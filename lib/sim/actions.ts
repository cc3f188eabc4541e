/**
 * A behaviour file's outside actions carried out on a simulated cluster at their virtual times:
 * one piece of code for `lineup simulate` (one JobSet) and `lineup demo` (every JobSet it runs),
 * so a behaviour file does the same to a JobSet in both.
 */
import type { BehaviourAction } from './behaviour.ts';
import type { SimCluster } from './cluster.ts';
import { DeleteReason } from './constants.ts';
import { Phase, type EventQueue } from './queue.ts';

/** ActionTarget: a JobSet the actions are applied to. */
export interface ActionTarget {
  readonly namespace: string;
  readonly name: string;
}

/**
 * applyBehaviourAction: what a user (or another controller) does to the JobSet `target` at
 * virtual time `at`. Nothing once the JobSet is gone: an action on a deleted JobSet would be
 * refused by the API server, and a run after the deletion is only the cleanup.
 * `deleteJob` names the Job in the JobSet's namespace; deleting a Job already gone or being
 * deleted does nothing, so applying it for several JobSets of one namespace deletes it once.
 */
export const applyBehaviourAction = (cluster: SimCluster, target: ActionTarget, action: BehaviourAction, at: number): void => {
  const { namespace, name } = target;
  if (!cluster.getJobSet(namespace, name)) return;
  switch (action.kind) {
    case 'suspend':
      cluster.setJobSetSuspend(namespace, name, action.suspend, at);
      return;
    case 'deleteJob':
      cluster.deleteJob(namespace, action.job, 'Background', at, DeleteReason.BehaviourAction);
      return;
    case 'updateSpec':
      cluster.updateJobSetSpec(namespace, name, action.spec, at);
      return;
    case 'deleteJobSet':
      cluster.deleteJobSetAsUser(namespace, name, at);
      return;
  }
};

/**
 * scheduleBehaviourActions: put every action on the cluster's queue at its time, in the cluster
 * phase (before the reconcile passes of that instant, as any change from outside). Each action
 * is one event applied to every target in order, so actions of one instant keep the file's order
 * across JobSets too.
 */
export const scheduleBehaviourActions = (queue: EventQueue, cluster: SimCluster, targets: readonly ActionTarget[], actions: readonly BehaviourAction[]): void => {
  for (const action of actions) {
    queue.schedule(action.at, Phase.Cluster, (at) => {
      for (const target of targets) applyBehaviourAction(cluster, target, action, at);
    });
  }
};
