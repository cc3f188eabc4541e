/**
 * Child Jobs and the headless Service, built exactly as upstream builds them
 * (constructJob, labelAndAnnotateObject, addVolumes, createHeadlessSvcIfNecessary),
 * with two Lineup additions: spec.suspend also holds a gated Job back, and a Job with a
 * Job-level TTL carries the finished-record finalizer.
 */
import { ExclusivePlacement, Label, LineupKey } from '../jobset/api.ts';
import { coordinatorEndpoint, jobHashKey, jobName, subdomainOf } from '../jobset/keys.ts';
import type { Job, JobSet, ReplicatedJob, Service } from '../jobset/schema.ts';
import { controllerReference } from './ownerReference.ts';
import { claimVolumes } from './volumeClaims.ts';

/** dnsHostnamesEnabled: upstream treats a missing network or flag as off. */
export const dnsHostnamesEnabled = (jobSet: JobSet): boolean => jobSet.spec.network?.enableDNSHostnames === true;

/** Replica arithmetic shared by every Job of a JobSet (upstream global/group index helpers). */
export interface ReplicaLayout {
  readonly globalReplicas: number;
  /** Σ replicas of the replicatedJobs listed before each one. */
  readonly globalOffset: ReadonlyMap<string, number>;
  readonly groupReplicas: ReadonlyMap<string, number>;
  /** Σ replicas of same-group replicatedJobs listed before each one. */
  readonly groupOffset: ReadonlyMap<string, number>;
}

/** replicaLayout: global and group replica counts and offsets, in spec order. */
export const replicaLayout = (replicatedJobs: readonly ReplicatedJob[]): ReplicaLayout => {
  const globalOffset = new Map<string, number>();
  const groupOffset = new Map<string, number>();
  const groupReplicas = new Map<string, number>();
  let global = 0;
  for (const rjob of replicatedJobs) {
    const group = rjob.groupName ?? 'default';
    const replicas = rjob.replicas ?? 1;
    globalOffset.set(rjob.name, global);
    groupOffset.set(rjob.name, groupReplicas.get(group) ?? 0);
    groupReplicas.set(group, (groupReplicas.get(group) ?? 0) + replicas);
    global += replicas;
  }
  return { globalReplicas: global, globalOffset, groupReplicas, groupOffset };
};

/** jobSetKeys: the label/annotation key set upstream writes on a Job and its pod template. */
const jobSetKeys = (jobSet: JobSet, rjob: ReplicatedJob, index: number, name: string, layout: ReplicaLayout): Record<string, string> => {
  const group = rjob.groupName ?? 'default';
  const keys: Record<string, string> = {
    [Label.JobSetName]: jobSet.metadata.name ?? '',
    [Label.JobSetUid]: jobSet.metadata.uid ?? '',
    [Label.ReplicatedJobName]: rjob.name,
    [Label.RestartAttempt]: String(jobSet.status?.restarts ?? 0),
    [Label.ReplicatedJobReplicas]: String(rjob.replicas ?? 1),
    [Label.GlobalReplicas]: String(layout.globalReplicas),
    [Label.JobIndex]: String(index),
    [Label.JobKey]: jobHashKey(jobSet.metadata.namespace ?? '', name),
    [Label.JobGlobalIndex]: String((layout.globalOffset.get(rjob.name) ?? 0) + index),
    [Label.GroupName]: group,
    [Label.GroupReplicas]: String(layout.groupReplicas.get(group) ?? 0),
    [Label.JobGroupIndex]: String((layout.groupOffset.get(rjob.name) ?? 0) + index),
  };
  const coordinator = coordinatorEndpoint(jobSet);
  if (coordinator !== undefined) keys[Label.Coordinator] = coordinator;
  return keys;
};

/**
 * exclusivePlacementAnnotations: upstream labelAndAnnotateObject copies the exclusive-topology
 * annotation from the JobSet, then from the replicatedJob template (which wins); the
 * node-selector strategy annotation travels only with the topology annotation of the same level.
 */
const exclusivePlacementAnnotations = (jobSet: JobSet, rjob: ReplicatedJob): Record<string, string> => {
  const result: Record<string, string> = {};
  for (const source of [jobSet.metadata.annotations, rjob.template.metadata?.annotations]) {
    const topology = source?.[ExclusivePlacement.TopologyAnnotation];
    if (topology === undefined) continue;
    result[ExclusivePlacement.TopologyAnnotation] = topology;
    const strategy = source?.[ExclusivePlacement.NodeSelectorStrategyAnnotation];
    if (strategy !== undefined) result[ExclusivePlacement.NodeSelectorStrategyAnnotation] = strategy;
  }
  return result;
};

/**
 * constructJob: the child Job for `rjob` at `index`. `suspend` is the JobSet's suspension or the
 * replicatedJob's closed startup gate — the one deliberate difference from upstream, which
 * delays creation instead.
 */
export const constructJob = (jobSet: JobSet, rjob: ReplicatedJob, index: number, suspend: boolean, layout: ReplicaLayout): Job => {
  const name = jobName(jobSet.metadata.name ?? '', rjob.name, index);
  const keys = jobSetKeys(jobSet, rjob, index, name, layout);
  const exclusive = exclusivePlacementAnnotations(jobSet, rjob);
  // Job and pod template each keep their own annotations, then get the same key set (upstream
  // labels and annotates both objects with labelAndAnnotateObject).
  const annotations = { ...rjob.template.metadata?.annotations, ...keys, ...exclusive };
  const spec = structuredClone(rjob.template.spec);
  const podSpec = { ...spec.template.spec };
  if (dnsHostnamesEnabled(jobSet)) podSpec.subdomain = subdomainOf(jobSet);
  if (annotations[ExclusivePlacement.TopologyAnnotation] !== undefined && annotations[ExclusivePlacement.NodeSelectorStrategyAnnotation] !== undefined) {
    podSpec.nodeSelector = { ...podSpec.nodeSelector, [ExclusivePlacement.NamespacedJobLabel]: `${jobSet.metadata.namespace ?? ''}_${name}` };
    podSpec.tolerations = [
      ...(podSpec.tolerations ?? []),
      { key: ExclusivePlacement.NoScheduleTaintKey, operator: 'Exists', effect: 'NoSchedule' },
    ];
  }
  // upstream addVolumes: each volumeClaimPolicies claim a container mounts becomes a volume.
  const volumes = claimVolumes(jobSet, podSpec.containers, podSpec.initContainers);
  if (volumes.length > 0) podSpec.volumes = [...(podSpec.volumes ?? []), ...volumes];
  const podMetadata = spec.template.metadata;
  spec.template = {
    ...spec.template,
    metadata: {
      ...podMetadata,
      labels: { ...podMetadata?.labels, ...keys },
      annotations: { ...podMetadata?.annotations, ...keys, ...exclusive },
    },
    spec: podSpec,
  };
  spec.suspend = suspend;
  const metadata: Job['metadata'] = {
    name,
    namespace: jobSet.metadata.namespace ?? '',
    labels: { ...rjob.template.metadata?.labels, ...keys },
    annotations,
    ownerReferences: [controllerReference(jobSet)],
  };
  // A Job that its own TTL will delete keeps this finalizer until its outcome is recorded on the
  // JobSet (see finishedJobs.ts), so the deletion cannot outrun the record.
  if (spec.ttlSecondsAfterFinished !== undefined) metadata.finalizers = [LineupKey.FinishedRecordFinalizer];
  return { apiVersion: 'batch/v1', kind: 'Job', metadata, spec };
};

/** headlessService: the Service upstream creates when DNS hostnames are on (no ports, clusterIP None). */
export const headlessService = (jobSet: JobSet): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: subdomainOf(jobSet),
    namespace: jobSet.metadata.namespace ?? '',
    ownerReferences: [controllerReference(jobSet)],
  },
  spec: {
    clusterIP: 'None',
    selector: { [Label.JobSetName]: jobSet.metadata.name ?? '' },
    publishNotReadyAddresses: jobSet.spec.network?.publishNotReadyAddresses ?? true,
  },
});
