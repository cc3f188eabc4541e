/**
 * Names and label values upstream derives for child Jobs (upstream
 * `pkg/util/placement/placement.go`, `jobset_controller.go` jobHashKey / CoordinatorEndpoint).
 */
import { createHash } from 'node:crypto';
import type { JobSet } from './schema.ts';

/** jobName: `<jobset>-<replicatedJob>-<index>`, upstream placement.GenJobName. */
export const jobName = (jobSetName: string, replicatedJob: string, index: number): string =>
  `${jobSetName}-${replicatedJob}-${index}`;

/**
 * jobHashKey: lowercase hex SHA-1 of `<namespace>/<jobName>` — upstream's code uses SHA-1
 * although its API comment says SHA256.
 */
export const jobHashKey = (namespace: string, name: string): string =>
  createHash('sha1').update(`${namespace}/${name}`).digest('hex');

/** subdomainOf: spec.network.subdomain when set, else the JobSet's name (upstream GetSubdomain). */
export const subdomainOf = (jobSet: JobSet): string => jobSet.spec.network?.subdomain || (jobSet.metadata.name ?? '');

/** coordinatorEndpoint: `<js>-<replicatedJob>-<jobIndex>-<podIndex>.<subdomain>` (upstream CoordinatorEndpoint). */
export const coordinatorEndpoint = (jobSet: JobSet): string | undefined => {
  const coordinator = jobSet.spec.coordinator;
  if (!coordinator) return undefined;
  return `${jobSet.metadata.name ?? ''}-${coordinator.replicatedJob}-${coordinator.jobIndex ?? 0}-${coordinator.podIndex ?? 0}.${subdomainOf(jobSet)}`;
};

/** volumeClaimName: `<template>-<jobset>`, the claim created from a volumeClaimPolicies template (upstream GeneratePVCName). */
export const volumeClaimName = (jobSetName: string, templateName: string): string => `${templateName}-${jobSetName}`;
