/**
 * zod schemas for the objects Lineup reads: JobSet (jobset.x-k8s.io/v1alpha2), batch/v1 Job
 * and core/v1 Service. Only the fields Lineup reads are declared; every object is loose, so
 * fields Lineup does not know survive a parse and a round trip. The declared fields must exist
 * with the same types in the upstream CRD (test/jobset/schema.test.ts checks this).
 */
import * as z from 'zod';

const int32 = z.number().int();
/**
 * An optional timestamp. metav1.Time is a struct, so `omitempty` cannot drop it: the API server
 * serves an unset one as `null` (e.g. a Job condition's lastProbeTime). Read null as absent.
 */
const optionalTime = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined)
  .optional();
const stringMap = z.record(z.string(), z.string());

/** metav1.OwnerReference. */
export const OwnerReferenceSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});

/** metav1.ObjectMeta, the fields Lineup reads or writes. */
export const ObjectMetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: int32.optional(),
  creationTimestamp: optionalTime,
  deletionTimestamp: optionalTime,
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  ownerReferences: z.array(OwnerReferenceSchema).optional(),
  finalizers: z.array(z.string()).optional(),
});

/** metav1.Condition (JobSet conditions). */
export const ConditionSchema = z.looseObject({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: optionalTime,
  observedGeneration: int32.optional(),
});

/** core/v1 Toleration. */
export const TolerationSchema = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  tolerationSeconds: z.number().int().optional(),
});

/** core/v1 PodSchedulingGate. */
export const SchedulingGateSchema = z.looseObject({ name: z.string() });

/** core/v1 Container, the fields volumeClaimPolicies read (a claim is mounted by name). */
export const ContainerSchema = z.looseObject({
  name: z.string(),
  volumeMounts: z.array(z.looseObject({ name: z.string(), mountPath: z.string() })).optional(),
});

/** core/v1 Volume, the fields volumeClaimPolicies write. */
export const VolumeSchema = z.looseObject({
  name: z.string(),
  persistentVolumeClaim: z.looseObject({ claimName: z.string(), readOnly: z.boolean().optional() }).optional(),
});

/** core/v1 PodTemplateSpec, the fields resume merges and Job construction sets. */
export const PodTemplateSpecSchema = z.looseObject({
  metadata: z.looseObject({ labels: stringMap.optional(), annotations: stringMap.optional() }).optional(),
  spec: z
    .looseObject({
      restartPolicy: z.string().optional(),
      subdomain: z.string().optional(),
      nodeSelector: stringMap.optional(),
      tolerations: z.array(TolerationSchema).optional(),
      schedulingGates: z.array(SchedulingGateSchema).optional(),
      containers: z.array(ContainerSchema).optional(),
      initContainers: z.array(ContainerSchema).optional(),
      volumes: z.array(VolumeSchema).optional(),
    })
    .optional(),
});

/** batch/v1 JobSpec. */
export const JobSpecSchema = z.looseObject({
  parallelism: int32.optional(),
  completions: int32.optional(),
  completionMode: z.enum(['NonIndexed', 'Indexed']).optional(),
  suspend: z.boolean().optional(),
  backoffLimit: int32.optional(),
  ttlSecondsAfterFinished: int32.optional(),
  template: PodTemplateSpecSchema,
});

/** batch/v1 JobCondition. */
export const JobConditionSchema = z.looseObject({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: optionalTime,
  lastProbeTime: optionalTime,
});

/** batch/v1 JobStatus. */
export const JobStatusSchema = z.looseObject({
  active: int32.optional(),
  ready: int32.optional(),
  succeeded: int32.optional(),
  failed: int32.optional(),
  startTime: optionalTime,
  completionTime: optionalTime,
  conditions: z.array(JobConditionSchema).optional(),
});

/** batch/v1 Job. */
export const JobSchema = z.looseObject({
  apiVersion: z.literal('batch/v1').optional(),
  kind: z.literal('Job').optional(),
  metadata: ObjectMetaSchema,
  spec: JobSpecSchema,
  status: JobStatusSchema.optional(),
});

/** batch/v1 JobTemplateSpec as embedded in a replicatedJob. */
export const JobTemplateSpecSchema = z.looseObject({
  metadata: z.looseObject({ labels: stringMap.optional(), annotations: stringMap.optional() }).optional(),
  spec: JobSpecSchema,
});

/** core/v1 Service, the fields of the headless Service. */
export const ServiceSchema = z.looseObject({
  apiVersion: z.literal('v1').optional(),
  kind: z.literal('Service').optional(),
  metadata: ObjectMetaSchema,
  spec: z
    .looseObject({
      clusterIP: z.string().optional(),
      selector: stringMap.optional(),
      publishNotReadyAddresses: z.boolean().optional(),
    })
    .optional(),
});

/** The two statuses a dependsOn item may wait for. */
export const DependsOnStatusSchema = z.enum(['Ready', 'Complete']);

/** replicatedJobs[].dependsOn[]. */
export const DependsOnSchema = z.looseObject({ name: z.string(), status: DependsOnStatusSchema });

/** spec.replicatedJobs[]. */
export const ReplicatedJobSchema = z.looseObject({
  name: z.string(),
  groupName: z.string().optional(),
  replicas: int32.optional(),
  dependsOn: z.array(DependsOnSchema).optional(),
  template: JobTemplateSpecSchema,
});

/** spec.startupPolicy. */
export const StartupPolicySchema = z.looseObject({ startupPolicyOrder: z.enum(['AnyOrder', 'InOrder']) });

/** spec.successPolicy. */
export const SuccessPolicySchema = z.looseObject({
  operator: z.enum(['All', 'Any']),
  targetReplicatedJobs: z.array(z.string()).optional(),
});

/** Failure-policy actions upstream defines. */
export const FailurePolicyActionSchema = z.enum([
  'FailJobSet',
  'RestartJobSet',
  'RestartJobSetAndIgnoreMaxRestarts',
  'RestartJob',
  'RestartJobAndIgnoreMaxRestarts',
]);

/** spec.failurePolicy.rules[]. */
export const FailurePolicyRuleSchema = z.looseObject({
  name: z.string().optional(),
  action: FailurePolicyActionSchema,
  onJobFailureReasons: z.array(z.string()).optional(),
  onJobFailureMessagePatterns: z.array(z.string()).optional(),
  targetReplicatedJobs: z.array(z.string()).optional(),
});

/** spec.failurePolicy. */
export const FailurePolicySchema = z.looseObject({
  maxRestarts: int32.optional(),
  restartStrategy: z.enum(['Recreate', 'BlockingRecreate', 'InPlaceRestart']).optional(),
  rules: z.array(FailurePolicyRuleSchema).optional(),
});

/** spec.network. */
export const NetworkSchema = z.looseObject({
  enableDNSHostnames: z.boolean().optional(),
  subdomain: z.string().optional(),
  publishNotReadyAddresses: z.boolean().optional(),
});

/** spec.coordinator. */
export const CoordinatorSchema = z.looseObject({
  replicatedJob: z.string(),
  jobIndex: int32.optional(),
  podIndex: int32.optional(),
});

/**
 * core/v1 PersistentVolumeClaim as a volumeClaimPolicies template: Lineup reads its name, labels
 * and annotations and copies its spec whole into the claim it creates.
 */
export const PersistentVolumeClaimTemplateSchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    namespace: z.string().optional(),
    labels: stringMap.optional(),
    annotations: stringMap.optional(),
  }),
  spec: z.looseObject({}).optional(),
});

/** The two retention policies of claims created from volumeClaimPolicies. */
export const RetentionPolicyTypeSchema = z.enum(['Delete', 'Retain']);

/** spec.volumeClaimPolicies[]. */
export const VolumeClaimPolicySchema = z.looseObject({
  templates: z.array(PersistentVolumeClaimTemplateSchema).optional(),
  retentionPolicy: z.looseObject({ whenDeleted: RetentionPolicyTypeSchema.optional() }).optional(),
});

/** core/v1 PersistentVolumeClaim as Lineup creates it. */
export const PersistentVolumeClaimSchema = z.looseObject({
  apiVersion: z.literal('v1').optional(),
  kind: z.literal('PersistentVolumeClaim').optional(),
  metadata: ObjectMetaSchema,
  spec: z.looseObject({}).optional(),
});

/** JobSet spec. */
export const JobSetSpecSchema = z.looseObject({
  replicatedJobs: z.array(ReplicatedJobSchema).optional(),
  startupPolicy: StartupPolicySchema.optional(),
  suspend: z.boolean().optional(),
  managedBy: z.string().optional(),
  successPolicy: SuccessPolicySchema.optional(),
  failurePolicy: FailurePolicySchema.optional(),
  network: NetworkSchema.optional(),
  coordinator: CoordinatorSchema.optional(),
  ttlSecondsAfterFinished: int32.optional(),
  volumeClaimPolicies: z.array(VolumeClaimPolicySchema).optional(),
});

/** status.replicatedJobsStatus[]. */
export const ReplicatedJobStatusSchema = z.looseObject({
  name: z.string(),
  ready: int32,
  succeeded: int32,
  failed: int32,
  active: int32,
  suspended: int32,
});

/** JobSet status. */
export const JobSetStatusSchema = z.looseObject({
  conditions: z.array(ConditionSchema).optional(),
  restarts: int32.optional(),
  restartsCountTowardsMax: int32.optional(),
  terminalState: z.string().optional(),
  replicatedJobsStatus: z.array(ReplicatedJobStatusSchema).optional(),
});

/** JobSet (jobset.x-k8s.io/v1alpha2). */
export const JobSetSchema = z.looseObject({
  apiVersion: z.literal('jobset.x-k8s.io/v1alpha2'),
  kind: z.literal('JobSet'),
  metadata: ObjectMetaSchema,
  spec: JobSetSpecSchema,
  status: JobSetStatusSchema.optional(),
});

export type OwnerReference = z.infer<typeof OwnerReferenceSchema>;
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;
export type Condition = z.infer<typeof ConditionSchema>;
export type Toleration = z.infer<typeof TolerationSchema>;
export type SchedulingGate = z.infer<typeof SchedulingGateSchema>;
export type Container = z.infer<typeof ContainerSchema>;
export type Volume = z.infer<typeof VolumeSchema>;
export type PodTemplateSpec = z.infer<typeof PodTemplateSpecSchema>;
export type JobSpec = z.infer<typeof JobSpecSchema>;
export type JobCondition = z.infer<typeof JobConditionSchema>;
export type JobStatus = z.infer<typeof JobStatusSchema>;
export type Job = z.infer<typeof JobSchema>;
export type JobTemplateSpec = z.infer<typeof JobTemplateSpecSchema>;
export type Service = z.infer<typeof ServiceSchema>;
export type DependsOnStatus = z.infer<typeof DependsOnStatusSchema>;
export type DependsOn = z.infer<typeof DependsOnSchema>;
export type ReplicatedJob = z.infer<typeof ReplicatedJobSchema>;
export type StartupPolicy = z.infer<typeof StartupPolicySchema>;
export type SuccessPolicy = z.infer<typeof SuccessPolicySchema>;
export type FailurePolicyAction = z.infer<typeof FailurePolicyActionSchema>;
export type FailurePolicyRule = z.infer<typeof FailurePolicyRuleSchema>;
export type FailurePolicy = z.infer<typeof FailurePolicySchema>;
export type Network = z.infer<typeof NetworkSchema>;
export type Coordinator = z.infer<typeof CoordinatorSchema>;
export type PersistentVolumeClaimTemplate = z.infer<typeof PersistentVolumeClaimTemplateSchema>;
export type RetentionPolicyType = z.infer<typeof RetentionPolicyTypeSchema>;
export type VolumeClaimPolicy = z.infer<typeof VolumeClaimPolicySchema>;
export type PersistentVolumeClaim = z.infer<typeof PersistentVolumeClaimSchema>;
export type JobSetSpec = z.infer<typeof JobSetSpecSchema>;
export type ReplicatedJobStatus = z.infer<typeof ReplicatedJobStatusSchema>;
export type JobSetStatus = z.infer<typeof JobSetStatusSchema>;
export type JobSet = z.infer<typeof JobSetSchema>;
