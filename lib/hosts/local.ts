/**
 * `lineup run`: the whole controller in this process against a real cluster — the forwarder
 * watching it, the in-process bus with the deployed rule pattern, the same reconciler batch
 * handler, and the state directory's SQLite database as its store (./stateDir.ts: one writer,
 * readers beside it). Stopping (Ctrl-C) flushes the forwarder, drains the bus, closes the store
 * and releases the directory.
 *
 * Before anything starts, one list of each watched kind (retried a few seconds on KUBE_RETRY)
 * checks that the server is there, takes the credentials, grants the verbs and serves JobSets:
 * the forwarder would retry any of these for ever, which suits a Deployment waiting for its
 * cluster, not a person at a terminal. After that first good list, failures are retried as the
 * forwarder always does.
 */
import { join } from 'node:path';
import { homedir } from 'node:os';
import { InProcessBus } from '../bus/inProcessBus.ts';
import { Counters } from '../counters.ts';
import { ErrorCode, LineupError, type ErrorCodeName } from '../errors.ts';
import { reconcilerRulePattern } from '../events/pattern.ts';
import { Forwarder } from '../forwarder/forwarder.ts';
import { HEARTBEAT_INTERVAL_MS } from '../forwarder/heartbeat.ts';
import { endpointFor } from '../k8s/auth.ts';
import { readKubeconfig } from '../k8s/kubeconfigReader.ts';
import type { RetryTuning } from '../k8s/gateway.ts';
import { resolveClusters } from '../k8s/registry.ts';
import { KubeWatchSource } from '../k8s/watchSource.ts';
import type { Log } from '../log.ts';
import type { Plan, PlanOptions } from '../plan/types.ts';
import { InputsMemory } from '../reconcile/inputsMemory.ts';
import { makeSqsBatchHandler } from '../reconcile/sqsBatch.ts';
import { checkStateDirForWriting, openStateDirForWriting } from './stateDir.ts';
import type { ClusterRecord, JournalEntry, JobSetKey } from '../store/types.ts';
import { JOBSET_API_VERSION } from '../jobset/api.ts';

/** RunFix: the fix `lineup run` names for each way its first contact with the API server fails. */
export const RunFix = {
  /** A server that cannot be reached or does not accept the credentials. */
  checkConnection: 'check the kubeconfig context / credentials / that the server is reachable',
  /** A user without Lineup's verbs. */
  grantAccess: 'apply infra/manifests/clusterrole.yaml (and its binding) for this user',
  /** A server without JobSets. */
  installCrd: 'install the JobSet CRD (https://github.com/kubernetes-sigs/jobset/releases)',
} as const;

/**
 * RunMessage: why `lineup run` could not start (exit 2): what the API server at `server` answered
 * its first list (`detail`), and the fix.
 */
export const RunMessage = {
  unreachable: (server: string, detail: string): string => `cannot reach the API server ${server} (${detail}): ${RunFix.checkConnection}`,
  unauthenticated: (server: string, detail: string): string => `the API server ${server} did not accept the credentials (${detail}): ${RunFix.checkConnection}`,
  forbidden: (server: string, detail: string): string =>
    `the API server ${server} does not let this user list and watch jobsets and jobs (${detail}): ${RunFix.grantAccess}`,
  noJobSetCrd: (server: string, detail: string): string => `the API server ${server} does not serve ${JOBSET_API_VERSION} jobsets (${detail}): ${RunFix.installCrd}`,
  failed: (server: string, detail: string): string => `the API server ${server} refused the first list (${detail}): ${RunFix.checkConnection}`,
} as const;

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
  readonly onPass: (key: JobSetKey, plan: Plan, entry: JournalEntry) => void;
  readonly signal: AbortSignal;
  /** Retries of the first contact with the API server. @default KUBE_RETRY */
  readonly accessCheckRetry?: RetryTuning | undefined;
  /** Keep containers' environment values in the journal (lib/reconcile/redact.ts). @default false: redacted */
  readonly journalKeepEnv?: boolean | undefined;
}

/** defaultKubeconfig: where kubectl would look. */
export const defaultKubeconfig = (env: Readonly<Record<string, string | undefined>>): string =>
  env['KUBECONFIG']?.split(':')[0] || join(homedir(), '.kube', 'config');

/** The command a running `lineup run` names in its state directory's lock. */
const RUN_COMMAND = 'lineup run';

/** The message of each way the first list can fail, by the Lineup error code it failed with. */
const START_FAILURE: Partial<Record<ErrorCodeName, (server: string, detail: string) => string>> = {
  [ErrorCode.UNAVAILABLE]: RunMessage.unreachable,
  [ErrorCode.UNAUTHENTICATED]: RunMessage.unauthenticated,
  [ErrorCode.FORBIDDEN]: RunMessage.forbidden,
  [ErrorCode.NOT_FOUND]: RunMessage.noJobSetCrd,
};

/**
 * startFailure: the error `lineup run` stops with when its first list failed: the server's URL,
 * what it answered, and the fix for that answer (RunMessage); the code stays the list's.
 */
export const startFailure = (error: unknown, server: string): LineupError => {
  const detail = error instanceof Error ? error.message : String(error);
  const code = error instanceof LineupError ? error.code : ErrorCode.UNAVAILABLE;
  return new LineupError(code, (START_FAILURE[code] ?? RunMessage.failed)(server, detail), { cause: error });
};

/** runLocal: run until `signal` aborts; resolves with the counters of the run. */
export const runLocal = async (options: LocalRunOptions): Promise<Record<string, number>> => {
  const counters = new Counters();
  const record: ClusterRecord = {
    id: options.clusterId,
    endpoint: 'https://from-kubeconfig.invalid',
    auth: { type: 'kubeconfig', path: options.kubeconfig ?? defaultKubeconfig(process.env), context: options.context },
  };
  // A --state-dir it could not use is refused before the cluster is contacted, and nothing is created.
  checkStateDirForWriting(options.stateDir, RUN_COMMAND);
  const endpoint = await endpointFor(record, { readKubeconfig });
  const server = endpoint.server.href.replace(/\/$/, '');
  const source = new KubeWatchSource({ endpoint, counters, log: options.log });
  try {
    await source.checkAccess(options.accessCheckRetry);
  } catch (error) {
    throw startFailure(error, server);
  }
  const state = openStateDirForWriting(options.stateDir, { command: RUN_COMMAND, counters });
  const store = state.store;
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  options.signal.addEventListener('abort', stop, { once: true });
  let bus: InProcessBus | undefined;
  try {
    const handler = makeSqsBatchHandler({
      store,
      resolveCluster: resolveClusters({ static: [record], counters, auth: { readKubeconfig } }),
      planOptions: options.planOptions,
      owner: `lineup-run-${process.pid}`,
      inputsMemory: new InputsMemory(),
      now: Date.now,
      counters,
      log: options.log,
      journalKeepEnv: options.journalKeepEnv,
      onPass: (key, plan, entry) => {
        if (plan.actions.length > 0) options.onPass(key, plan, entry);
      },
    });
    bus = new InProcessBus({ pattern: reconcilerRulePattern(), handler, log: options.log });
    const forwarder = new Forwarder({
      cluster: options.clusterId,
      source,
      sink: bus,
      bookmarks: store,
      planOptions: options.planOptions,
      counters,
      log: options.log,
      now: Date.now,
      heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
    });
    options.log('info', `watching ${server} as cluster ${options.clusterId}; state in ${options.stateDir}`);
    await forwarder.run(abort.signal);
    await bus.idle();
    return counters.snapshot();
  } finally {
    options.signal.removeEventListener('abort', stop);
    await bus?.stop();
    state.close();
  }
};
