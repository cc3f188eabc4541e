/**
 * `lineup run`: the whole controller in this process against a real cluster — the forwarder
 * watching it, the in-process bus with the deployed rule pattern, the same reconciler batch
 * handler, and an embedded DynamoDB-API server keeping its data under the state directory.
 * Stopping (Ctrl-C) flushes the forwarder, drains the bus and closes the store.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { InProcessBus } from '../bus/inProcessBus.ts';
import { Counters } from '../counters.ts';
import { reconcilerRulePattern } from '../events/pattern.ts';
import { Forwarder } from '../forwarder/forwarder.ts';
import { kubeConfigFor } from '../k8s/auth.ts';
import { resolveClusters } from '../k8s/registry.ts';
import { KubeWatchSource } from '../k8s/watchSource.ts';
import type { Log } from '../log.ts';
import type { Plan, PlanOptions } from '../plan/types.ts';
import { makeSqsBatchHandler } from '../reconcile/sqsBatch.ts';
import { DynamoCheckpointStore } from '../store/dynamoStore.ts';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../store/embedded.ts';
import type { ClusterRecord, Decision, JobSetKey } from '../store/types.ts';

/** LocalRunOptions: which cluster, where to keep state, what to print. */
export interface LocalRunOptions {
  readonly clusterId: string;
  /** kubeconfig path; @default $KUBECONFIG or ~/.kube/config */
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly stateDir: string;
  readonly planOptions: PlanOptions;
  readonly log: Log;
  /** A pass that did something (the live timeline). */
  readonly onPass: (key: JobSetKey, plan: Plan, decision: Decision) => void;
  readonly signal: AbortSignal;
}

/** defaultKubeconfig: where kubectl would look. */
export const defaultKubeconfig = (env: Readonly<Record<string, string | undefined>>): string =>
  env['KUBECONFIG']?.split(':')[0] || join(homedir(), '.kube', 'config');

/** dynamoDir: where the embedded DynamoDB-API server keeps its data under a state directory. */
const dynamoDir = (stateDir: string): string => join(stateDir, 'dynamo');

/** hasState: whether `lineup run` has kept state in `stateDir` (reading it must not create it). */
export const hasState = (stateDir: string): boolean => statSync(dynamoDir(stateDir), { throwIfNoEntry: false })?.isDirectory() === true;

/** openStateStore: the embedded DynamoDB-API server over `<stateDir>/dynamo`, created when missing. */
export const openStateStore = async (stateDir: string, counters: Counters): Promise<{ dynamo: EmbeddedDynamo; store: DynamoCheckpointStore }> => {
  const dynamo = await startEmbeddedDynamo({ path: dynamoDir(stateDir) });
  return { dynamo, store: new DynamoCheckpointStore({ client: dynamo.client, tableName: dynamo.tableName, counters }) };
};

/** runLocal: run until `signal` aborts; resolves with the counters of the run. */
export const runLocal = async (options: LocalRunOptions): Promise<Record<string, number>> => {
  const counters = new Counters();
  const record: ClusterRecord = {
    id: options.clusterId,
    endpoint: 'https://from-kubeconfig.invalid',
    auth: { type: 'kubeconfig', path: options.kubeconfig ?? defaultKubeconfig(process.env), context: options.context },
  };
  const kubeConfig = await kubeConfigFor(record);
  const { dynamo, store } = await openStateStore(options.stateDir, counters);
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  options.signal.addEventListener('abort', stop, { once: true });
  let bus: InProcessBus | undefined;
  try {
    const handler = makeSqsBatchHandler({
      store,
      resolveCluster: resolveClusters({ static: [record], counters }),
      planOptions: options.planOptions,
      owner: `lineup-run-${process.pid}`,
      now: Date.now,
      counters,
      log: options.log,
      onPass: (key, plan, decision) => {
        if (plan.actions.length > 0) options.onPass(key, plan, decision);
      },
    });
    bus = new InProcessBus({ pattern: reconcilerRulePattern(), handler, log: options.log });
    const forwarder = new Forwarder({
      cluster: options.clusterId,
      source: new KubeWatchSource({ kubeConfig, counters, log: options.log }),
      sink: bus,
      bookmarks: store,
      planOptions: options.planOptions,
      counters,
      log: options.log,
      now: Date.now,
    });
    options.log('info', `watching ${kubeConfig.getCurrentCluster()?.server ?? 'the cluster'} as cluster ${options.clusterId}; state in ${options.stateDir}`);
    await forwarder.run(abort.signal);
    await bus.idle();
    return counters.snapshot();
  } finally {
    options.signal.removeEventListener('abort', stop);
    await bus?.stop();
    await dynamo.stop();
  }
};
