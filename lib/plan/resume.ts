/**
 * What resuming a Job changes, so that what Kueue writes into a suspended JobSet's pod templates
 * when it admits it (the flavor's node labels, tolerations, scheduling gates) reaches the Job:
 * - labels and annotations: the replicatedJob's current ones merged in, never deleted (the Job
 *   controller adds its own to a Job's pod template), as upstream resumeJob does;
 * - nodeSelector, tolerations and schedulingGates: the replicatedJob's current ones, plus what
 *   Lineup itself put there at creation (exclusive placement's key and toleration). Upstream
 *   merges these too, so a Job that Kueue admitted on one flavor, evicted, and admitted again on
 *   another keeps the first flavor's node labels beside the second's — on a cluster whose
 *   flavors have disjoint labels its Pods fit no node. Kueue restores the templates when it
 *   evicts a JobSet, so the current template is the admission in force.
 */
import { isDeepStrictEqual } from 'node:util';
import { ExclusivePlacement } from '../jobset/api.ts';
import type { Job, ReplicatedJob } from '../jobset/schema.ts';
import type { PodTemplateMerge } from './types.ts';

/** mergeMaps: key union, the replicatedJob's value wins (upstream collections.MergeMaps). */
const mergeMaps = (existing: Record<string, string> | undefined, incoming: Record<string, string> | undefined): Record<string, string> => ({
  ...existing,
  ...incoming,
});

/** isExclusivePlacementToleration: the toleration constructJob adds for exclusive placement. */
const isExclusivePlacementToleration = (toleration: { readonly key?: string | undefined }): boolean => toleration.key === ExclusivePlacement.NoScheduleTaintKey;

/**
 * podTemplateMerge: the pod-template fields for resuming `job`, or undefined when resuming would
 * change nothing (the common case: Lineup built the Job from the current template).
 */
export const podTemplateMerge = (job: Job, rjob: ReplicatedJob): PodTemplateMerge | undefined => {
  const current = job.spec.template;
  const wanted = rjob.template.spec.template;
  const currentSelector = current.spec?.nodeSelector ?? {};
  const ownKey = ExclusivePlacement.NamespacedJobLabel;
  const nodeSelector = { ...wanted.spec?.nodeSelector, ...(currentSelector[ownKey] === undefined ? {} : { [ownKey]: currentSelector[ownKey] }) };
  const own = (current.spec?.tolerations ?? []).filter(isExclusivePlacementToleration);
  const tolerations = [...(wanted.spec?.tolerations ?? []).filter((toleration) => !own.some((present) => isDeepStrictEqual(present, toleration))), ...own];
  const merged: PodTemplateMerge = {
    labels: mergeMaps(current.metadata?.labels, wanted.metadata?.labels),
    annotations: mergeMaps(current.metadata?.annotations, wanted.metadata?.annotations),
    nodeSelector,
    nodeSelectorRemoved: Object.keys(currentSelector).filter((key) => !(key in nodeSelector)).sort(),
    tolerations,
    schedulingGates: [...(wanted.spec?.schedulingGates ?? [])],
  };
  const unchanged =
    isDeepStrictEqual(merged.labels, { ...current.metadata?.labels }) &&
    isDeepStrictEqual(merged.annotations, { ...current.metadata?.annotations }) &&
    isDeepStrictEqual(merged.nodeSelector, { ...currentSelector }) &&
    isDeepStrictEqual(merged.tolerations, [...(current.spec?.tolerations ?? [])]) &&
    isDeepStrictEqual(merged.schedulingGates, [...(current.spec?.schedulingGates ?? [])]);
  return unchanged ? undefined : merged;
};
