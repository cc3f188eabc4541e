/**
 * The ClusterGateway contract (test/k8s/gatewayBehaviour.ts) against the simulated cluster's
 * gateway. test/integration/k8s/gatewayContract.test.ts runs the same cases against
 * KubeClusterGateway on a real kube-apiserver. The cluster's queue never runs, so no simulated
 * Job controller or timer acts behind a case's back — like the integration tier's API server,
 * which runs without kube-controller-manager.
 */
import { describe } from 'node:test';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import { SimCluster } from '../../lib/sim/cluster.ts';
import { SimClusterGateway } from '../../lib/sim/gateway.ts';
import { EventQueue } from '../../lib/sim/queue.ts';
import { describeGatewayBehaviour } from '../k8s/gatewayBehaviour.ts';
import type { GatewayWorld } from '../k8s/gatewayBehaviour.ts';

const NAMESPACE = 'contract';
// Not SIM_EPOCH_MS: the gateway must convert times on its cluster's own epoch, as the demo's (started at the wall clock) needs.
const EPOCH_MS = Date.UTC(2031, 5, 15, 8, 30, 0);

/** simWorld: a fresh simulated cluster behind the contract's world. */
export const simWorld = async (): Promise<GatewayWorld> => {
  const queue = new EventQueue();
  const cluster = new SimCluster({ queue, epochMs: EPOCH_MS });
  const gateway = new SimClusterGateway(cluster);
  const at = (): number => queue.now();
  const need = (name: string): Job => {
    const job = cluster.getJob(NAMESPACE, name);
    if (!job) throw new Error(`job ${NAMESPACE}/${name} should exist`);
    return job;
  };
  return {
    gateway,
    namespace: NAMESPACE,
    now: () => EPOCH_MS + at(),
    createJobSet: async (jobSet: JobSet) => cluster.createJobSet({ ...jobSet, metadata: { ...jobSet.metadata, namespace: NAMESPACE } }, at()),
    createJob: async (job: Job) => cluster.createJob({ ...job, metadata: { ...job.metadata, namespace: NAMESPACE } }, at()),
    getJobSet: async (name) => cluster.getJobSet(NAMESPACE, name),
    getJob: async (name) => cluster.getJob(NAMESPACE, name),
    getService: async (name) => cluster.getService(NAMESPACE, name),
    getPersistentVolumeClaim: async (name) => cluster.getPersistentVolumeClaim(NAMESPACE, name),
    writeJobStatus: async (name, status) => cluster.writeJobStatus(NAMESPACE, name, status(need(name)), at()),
    events: async (jobSetName) => cluster.events(NAMESPACE, jobSetName).map((event) => ({ type: event.eventType, reason: event.reason, message: event.message })),
  };
};

describe('SimClusterGateway: the ClusterGateway contract', () => {
  describeGatewayBehaviour(simWorld);
});
