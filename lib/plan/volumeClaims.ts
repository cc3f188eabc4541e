/**
 * volumeClaimPolicies as upstream v0.12.0 carries them out (pkg/controllers/volume_claim_policy.go):
 * one PersistentVolumeClaim per template, named `<template>-<jobset>`, labelled with the JobSet
 * name, owned by the JobSet unless its policy retains it; and, in every child Job's pod template
 * that mounts a claim by its template name, a volume of that name bound to the claim.
 */
import { Label } from '../jobset/api.ts';
import { volumeClaimName } from '../jobset/keys.ts';
import type { Container, JobSet, PersistentVolumeClaim, Volume } from '../jobset/schema.ts';
import { controllerReference } from './ownerReference.ts';

/**
 * volumeClaims: the claims of a defaulted JobSet's volumeClaimPolicies, in spec order. A policy
 * whose whenDeleted is Delete (the default) makes the JobSet their owner, so garbage collection
 * removes them with it; Retain leaves them without an owner, to outlive it.
 * @example volumeClaims(applyDefaults(jobSet)).map((claim) => claim.metadata.name) // ['checkpoints-trainjob']
 */
export const volumeClaims = (jobSet: JobSet): PersistentVolumeClaim[] => {
  const jobSetName = jobSet.metadata.name ?? '';
  return (jobSet.spec.volumeClaimPolicies ?? []).flatMap((policy) =>
    (policy.templates ?? []).map((template): PersistentVolumeClaim => {
      const owned = policy.retentionPolicy?.whenDeleted === 'Delete';
      return {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: volumeClaimName(jobSetName, template.metadata.name),
          namespace: jobSet.metadata.namespace ?? '',
          // Upstream copies the template's labels, then sets the JobSet name over them.
          labels: { ...template.metadata.labels, [Label.JobSetName]: jobSetName },
          ...(template.metadata.annotations === undefined ? {} : { annotations: { ...template.metadata.annotations } }),
          ...(owned ? { ownerReferences: [controllerReference(jobSet)] } : {}),
        },
        spec: structuredClone(template.spec ?? {}),
      };
    }),
  );
};

/** mounts: a container of the list mounts a volume of this name. */
const mounts = (containers: readonly Container[] | undefined, name: string): boolean =>
  (containers ?? []).some((container) => (container.volumeMounts ?? []).some((mount) => mount.name === name));

/**
 * claimVolumes: the volumes upstream's addVolumes appends to a pod spec with these containers and
 * initContainers: one per template some container mounts, in spec order; none for the others.
 */
export const claimVolumes = (jobSet: JobSet, containers: readonly Container[] | undefined, initContainers: readonly Container[] | undefined): Volume[] =>
  (jobSet.spec.volumeClaimPolicies ?? []).flatMap((policy) =>
    (policy.templates ?? [])
      .filter((template) => mounts(containers, template.metadata.name) || mounts(initContainers, template.metadata.name))
      .map((template) => ({ name: template.metadata.name, persistentVolumeClaim: { claimName: volumeClaimName(jobSet.metadata.name ?? '', template.metadata.name) } })),
  );
