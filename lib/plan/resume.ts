/**
 * What resuming a Job changes (upstream resumeJob, jobset-behaviour.md §6.5): the replicatedJob's
 * current pod-template labels, annotations, nodeSelector, tolerations and schedulingGates are
 * merged into the Job — merge, never delete — so changes made while suspended (Kueue) reach it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Job, ReplicatedJob } from '../jobset/schema.ts';
import type { PodTemplateMerge } from './types.ts';

/** mergeMaps: key union, the replicatedJob's value wins (upstream collections.MergeMaps). */
const mergeMaps = (existing: Record<string, string> | undefined, incoming: Record<string, string> | undefined): Record<string, string> => ({
  ...existing,
  ...incoming,
});

/** mergeSlices: set union by whole-value equality, existing entries first (upstream collections.MergeSlices). */
const mergeSlices = <T>(existing: readonly T[] | undefined, incoming: readonly T[] | undefined): T[] => {
  const result = [...(existing ?? [])];
  for (const item of incoming ?? []) if (!result.some((present) => isDeepStrictEqual(present, item))) result.push(item);
  return result;
};

/**
 * podTemplateMerge: the merged pod-template fields for resuming `job`, or undefined when the merge
 * would change nothing (the common case: Lineup built the Job from the current template).
 */
export const podTemplateMerge = (job: Job, rjob: ReplicatedJob): PodTemplateMerge | undefined => {
  const current = job.spec.template;
  const wanted = rjob.template.spec.template;
  const merged: PodTemplateMerge = {
    labels: mergeMaps(current.metadata?.labels, wanted.metadata?.labels),
    annotations: mergeMaps(current.metadata?.annotations, wanted.metadata?.annotations),
    nodeSelector: mergeMaps(current.spec?.nodeSelector, wanted.spec?.nodeSelector),
    tolerations: mergeSlices(current.spec?.tolerations, wanted.spec?.tolerations),
    schedulingGates: mergeSlices(current.spec?.schedulingGates, wanted.spec?.schedulingGates),
  };
  const unchanged =
    isDeepStrictEqual(merged.labels, { ...current.metadata?.labels }) &&
    isDeepStrictEqual(merged.annotations, { ...current.metadata?.annotations }) &&
    isDeepStrictEqual(merged.nodeSelector, { ...current.spec?.nodeSelector }) &&
    isDeepStrictEqual(merged.tolerations, [...(current.spec?.tolerations ?? [])]) &&
    isDeepStrictEqual(merged.schedulingGates, [...(current.spec?.schedulingGates ?? [])]);
  return unchanged ? undefined : merged;
};
