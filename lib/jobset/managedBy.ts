/**
 * Whose JobSet this is: spec.managedBy names the controller that reconciles it. The planner
 * leaves every JobSet that is not Lineup's alone, and the forwarder sends nothing about one, so
 * both ask the same question here, below either of them.
 */
import { UPSTREAM_CONTROLLER_NAME } from './api.ts';
import type { JobSet } from './schema.ts';

/** Default managedBy value that makes a JobSet Lineup's (configurable). */
export const DEFAULT_CONTROLLER_NAME = 'lineup.dev/controller';

/** ManagedByOptions: what makes a JobSet Lineup's in one deployment (the planner's PlanOptions carry both). */
export interface ManagedByOptions {
  /** spec.managedBy value that makes a JobSet Lineup's. */
  readonly controllerName: string;
  /** Also take JobSets without spec.managedBy (clusters without the upstream controller). */
  readonly claimUnmanaged: boolean;
}

/**
 * isManagedByLineup: the JobSet names Lineup in spec.managedBy, or names nobody and the
 * deployment claims unmanaged JobSets. Upstream's reserved name is upstream's; an empty string
 * counts as another manager.
 */
export const isManagedByLineup = (jobSet: JobSet, options: ManagedByOptions): boolean => {
  const managedBy = jobSet.spec.managedBy;
  if (managedBy === undefined) return options.claimUnmanaged;
  return managedBy === options.controllerName && managedBy !== UPSTREAM_CONTROLLER_NAME;
};
