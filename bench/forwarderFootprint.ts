/**
 * The forwarder's footprint: the real forwarder process (what the in-cluster Deployment runs:
 * the bundle of infra/k8s/forwarderBundle.ts on Node 24, built here first) watching a real kube-apiserver that
 * holds 1,000 JobSets of 10 Jobs each, its events going to moto's EventBridge and its checkpoints
 * to dynalite. The forwarder is a child process, so the figures are its own: resident memory
 * (VmRSS, and the peak VmHWM) and CPU time (utime + stime) from /proc.
 *
 * Phases: the objects are created first (suspended Jobs: nothing runs them, no controller
 * needed); the forwarder starts, lists both kinds and forwards what it listed ("start"); once its
 * CPU has been quiet for QUIET_WINDOW_MS it is measured idle (watches open, nothing changing),
 * then under churn: CHURN_RATE Job changes a second (each flips a Job's spec.suspend, a change
 * the filter forwards: one event per change, as a busy cluster's Job controller would cause).
 *
 * `--entry sources` runs `lineup forward` on the TypeScript sources instead, as a clone does.
 *
 * `--node-args` adds V8 flags to Node's command line (those NODE_OPTIONS refuses), as the Deployment's command would.
 *
 *   node bench/forwarderFootprint.ts [--jobsets 1000] [--jobs 10] [--idle-seconds 60] [--churn-seconds 60] [--rate 50] [--node-options=S] [--node-args=S] [--entry bundle|sources] [--json]
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DEFAULT_CONTROLLER_NAME } from '../lib/jobset/managedBy.ts';
import { ForwarderLog } from '../lib/forwarder/forwarderLog.ts';
import { Label } from '../lib/jobset/api.ts';
import { buildForwarderBundle } from '../infra/k8s/forwarderBundle.ts';
import { FORWARDER_NODE_ARGS, FORWARDER_NODE_OPTIONS } from '../infra/k8s/names.ts';
import { ensureCheckpointTable } from '../lib/store/embedded.ts';
import { forwarderProcessEnv, httpRequest, startDynalite, startMoto } from '../test/integration/harness/index.ts';
import type { DynaliteServer, KubeServer, MotoServer } from '../test/integration/harness/index.ts';
import { startCluster } from '../test/integration/k8s/support.ts';
import { millicores, sampleProc } from './procStats.ts';
import type { ProcSample } from './procStats.ts';

/** The issue's targets for the in-cluster forwarder. */
export const FOOTPRINT_TARGET = { rssMiB: 64, idleCpuMillicores: 10 } as const;
/** Defaults: the issue's 1,000 JobSets × 10 Jobs, a minute idle and a minute of churn at 50 changes a second. */
export const FOOTPRINT_DEFAULTS = { jobSets: 1000, jobsPerJobSet: 10, idleSeconds: 60, churnSeconds: 60, rate: 50 } as const;
/** CREATE_CONCURRENCY: creates in flight at once while the objects are made. */
const CREATE_CONCURRENCY = 24;
/** SAMPLE_MS: how often the forwarder's /proc is read. */
const SAMPLE_MS = 1000;
/** QUIET_WINDOW_MS / QUIET_MILLICORES: the start is over once the forwarder used less than this over this window. */
const QUIET_WINDOW_MS = 5000;
const QUIET_MILLICORES = 30;
/** START_TIMEOUT_MS: the longest the forwarder may take to list and forward what it listed. */
const START_TIMEOUT_MS = 10 * 60_000;
const NAMESPACE = 'footprint';
const CLUSTER_ID = 'footprint';
const REPO = fileURLToPath(new URL('../', import.meta.url));

/** ForwarderEntry: what the forwarder process runs — the deployed bundle, or the TypeScript sources through the CLI. */
export const ForwarderEntry = { bundle: 'bundle', sources: 'sources' } as const;
export type ForwarderEntryName = (typeof ForwarderEntry)[keyof typeof ForwarderEntry];

/** PhaseFigures: the forwarder's memory and CPU over one phase. */
export interface PhaseFigures {
  readonly seconds: number;
  /** Mean and largest VmRSS of the per-second samples. */
  readonly rssMiB: number;
  readonly maxRssMiB: number;
  readonly cpuMillicores: number;
}

/** FootprintFigures: what the bench prints. */
export interface FootprintFigures {
  readonly jobSets: number;
  readonly jobs: number;
  readonly createSeconds: number;
  /** From spawn until both kinds were listed, and until the forwarder went quiet. */
  readonly listedSeconds: number;
  readonly start: PhaseFigures;
  readonly idle: PhaseFigures;
  readonly churn: PhaseFigures & { readonly rate: number; readonly changesApplied: number; readonly changesFailed: number };
  /** VmHWM at the end: the largest resident set the process ever had. */
  readonly peakRssMiB: number;
  readonly target: typeof FOOTPRINT_TARGET;
  /** NODE_OPTIONS the forwarder ran with (the Deployment's, unless --node-options says otherwise). */
  readonly nodeOptions: string;
  /** Node's command-line flags before the entry (FORWARDER_NODE_ARGS unless --node-args says otherwise). */
  readonly nodeArgs: readonly string[];
  /** What the process ran, and the bundle's size when it ran the bundle. */
  readonly entry: ForwarderEntryName;
  readonly bundleKiB?: number | undefined;
  readonly wallMs: number;
}

const progress = (message: string): void => {
  process.stderr.write(`bench forwarder footprint: ${message}\n`);
};

const mib = (kib: number): number => Math.round((kib / 1024) * 10) / 10;

/** phaseOf: the figures of the samples taken in one phase (at least two). */
const phaseOf = (samples: readonly ProcSample[]): PhaseFigures => {
  const first = samples[0];
  const last = samples.at(-1);
  if (first === undefined || last === undefined || first === last) throw new Error(`a phase needs at least two samples, got ${samples.length}`);
  return {
    seconds: Math.round((last.at - first.at) / 100) / 10,
    rssMiB: mib(samples.reduce((sum, sample) => sum + sample.rssKiB, 0) / samples.length),
    maxRssMiB: mib(Math.max(...samples.map((sample) => sample.rssKiB))),
    cpuMillicores: Math.round(millicores(first, last) * 10) / 10,
  };
};

/** AdminClient: the bench's requests as the admin, on kept-alive connections. */
class AdminClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: CREATE_CONCURRENCY });
  private readonly kube: KubeServer;
  constructor(kube: KubeServer) {
    this.kube = kube;
  }

  async send(method: string, path: string, body: unknown, contentType = 'application/json'): Promise<Record<string, unknown>> {
    const response = await httpRequest(`${this.kube.url}${path}`, {
      method,
      ca: this.kube.caPem,
      agent: this.agent,
      timeoutMs: 60_000,
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${this.kube.adminToken}`, accept: 'application/json', 'content-type': contentType },
    });
    if (response.status < 200 || response.status > 299) throw new Error(`${method} ${path}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
    return JSON.parse(response.body) as Record<string, unknown>;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** inPool: run `work` for 0…count-1 with at most `concurrency` at once. */
const inPool = async (count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<void> => {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      await work(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
};

const jobSetName = (index: number): string => `fp-${String(index).padStart(4, '0')}`;
const jobName = (jobSet: string, index: number): string => `${jobSet}-workers-${index}`;

/** jobSetManifest: a Lineup-managed JobSet of one replicatedJob with `jobs` replicas. */
const jobSetManifest = (name: string, jobs: number): object => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name, namespace: NAMESPACE },
  spec: {
    managedBy: DEFAULT_CONTROLLER_NAME,
    replicatedJobs: [
      {
        name: 'workers',
        replicas: jobs,
        template: { spec: { parallelism: 1, completions: 1, backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } } },
      },
    ],
  },
});

/** jobManifest: a suspended child Job as JobSet makes one (labels, owner reference). */
const jobManifest = (jobSet: string, uid: string, index: number): object => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: jobName(jobSet, index),
    namespace: NAMESPACE,
    labels: { [Label.JobSetName]: jobSet, [Label.ReplicatedJobName]: 'workers', [Label.JobSetUid]: uid },
    ownerReferences: [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: jobSet, uid, controller: true, blockOwnerDeletion: true }],
  },
  spec: {
    suspend: true,
    parallelism: 1,
    completions: 1,
    backoffLimit: 0,
    template: { metadata: { labels: { [Label.JobSetName]: jobSet } }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
  },
});

/** ForwarderProcess: the spawned `lineup forward` and what it said. */
interface ForwarderProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** How many `listed` log lines it wrote (one per kind). */
  listed(): number;
  readonly stderrTail: string[];
  stop(): Promise<void>;
}

/** spawnForwarder: `node BUNDLE --kubeconfig F` (or `node lib/cli/main.ts forward --kubeconfig F`), configured as the Deployment is, against moto and dynalite. */
const spawnForwarder = (
  entry: readonly string[],
  kubeconfig: string,
  moto: MotoServer,
  dynamo: DynaliteServer,
  busName: string,
  tableName: string,
  nodeOptions: string,
): ForwarderProcess => {
  const env = forwarderProcessEnv({ cluster: CLUSTER_ID, table: tableName, bus: busName, moto, dynamo, nodeOptions });
  const child = spawn(process.execPath, [...entry, '--kubeconfig', kubeconfig], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (child.pid === undefined) throw new Error('lineup forward did not start: no pid');
  let listed = 0;
  const tail: string[] = [];
  let partial = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.includes(ForwarderLog.listed)) listed += 1;
      tail.push(line);
      if (tail.length > 20) tail.shift();
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    pid: child.pid,
    listed: () => listed,
    stderrTail: tail,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timedOut = await Promise.race([exited.then(() => false), sleep(30_000).then(() => true)]);
      if (timedOut) child.kill('SIGKILL');
      await exited;
    },
  };
};

/** alive: the forwarder is still running, else an error with its last lines. */
const assertAlive = (forwarder: ForwarderProcess): void => {
  if (forwarder.child.exitCode !== null || forwarder.child.signalCode !== null) {
    throw new Error(`lineup forward exited (${forwarder.child.exitCode ?? forwarder.child.signalCode}): ${forwarder.stderrTail.join('\n')}`);
  }
};

/** FootprintOptions: sizes and durations (FOOTPRINT_DEFAULTS). */
export type FootprintOptions = Partial<{ jobSets: number; jobsPerJobSet: number; idleSeconds: number; churnSeconds: number; rate: number; nodeOptions: string; nodeArgs: readonly string[]; entry: ForwarderEntryName }>;

/** runForwarderFootprintBench: start the servers, create the objects, run and measure the forwarder, stop everything. */
export const runForwarderFootprintBench = async (options: FootprintOptions = {}): Promise<FootprintFigures> => {
  const { jobSets, jobsPerJobSet, idleSeconds, churnSeconds, rate } = { ...FOOTPRINT_DEFAULTS, ...options };
  const nodeOptions = options.nodeOptions ?? FORWARDER_NODE_OPTIONS;
  const entryName = options.entry ?? ForwarderEntry.bundle;
  const nodeArgs = options.nodeArgs ?? FORWARDER_NODE_ARGS;
  const wallStarted = Date.now();
  let kube: KubeServer | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let admin: AdminClient | undefined;
  let forwarder: ForwarderProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'lineup-footprint-'));
  try {
    const bundle = join(dir, 'lineup-forward.mjs');
    const bundleKiB = entryName === ForwarderEntry.bundle ? Math.round((await buildForwarderBundle(bundle)).bytes / 1024) : undefined;
    const entry = [...nodeArgs, ...(entryName === ForwarderEntry.bundle ? [bundle] : [join(REPO, 'lib/cli/main.ts'), 'forward'])];
    progress('starting kube-apiserver, moto and dynalite');
    [kube, moto, dynamo] = await Promise.all([startCluster(), startMoto(), startDynalite()]);
    const busName = 'lineup-footprint';
    const tableName = 'lineup-footprint';
    await new EventBridgeClient(moto.clientConfig).send(new CreateEventBusCommand({ Name: busName }));
    await ensureCheckpointTable(new DynamoDBClient(dynamo.clientConfig), tableName);
    admin = new AdminClient(kube);
    await admin.send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });

    const createStarted = Date.now();
    progress(`creating ${jobSets} JobSets and ${jobSets * jobsPerJobSet} suspended Jobs`);
    const uids: string[] = new Array<string>(jobSets);
    const client = admin;
    await inPool(jobSets, CREATE_CONCURRENCY, async (index) => {
      const created = await client.send('POST', `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NAMESPACE}/jobsets`, jobSetManifest(jobSetName(index), jobsPerJobSet));
      uids[index] = String((created['metadata'] as { uid?: string } | undefined)?.uid ?? '');
    });
    await inPool(jobSets * jobsPerJobSet, CREATE_CONCURRENCY, async (index) => {
      const owner = Math.floor(index / jobsPerJobSet);
      await client.send('POST', `/apis/batch/v1/namespaces/${NAMESPACE}/jobs`, jobManifest(jobSetName(owner), uids[owner] ?? '', index % jobsPerJobSet));
    });
    const createSeconds = (Date.now() - createStarted) / 1000;
    progress(`created in ${createSeconds.toFixed(0)} s`);

    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kube.kubeConfig('lineup').exportConfig(), { mode: 0o600 });
    const spawned = Date.now();
    const running = spawnForwarder(entry, kubeconfig, moto, dynamo, busName, tableName, nodeOptions);
    forwarder = running;

    // Start: until both kinds are listed and the forwarder's CPU has gone quiet.
    const startSamples: ProcSample[] = [sampleProc(running.pid)];
    let listedAt: number | undefined;
    for (;;) {
      await sleep(SAMPLE_MS);
      assertAlive(running);
      startSamples.push(sampleProc(running.pid));
      if (listedAt === undefined && running.listed() >= 2) listedAt = Date.now();
      const windowStart = startSamples.find((sample) => sample.at >= Date.now() - QUIET_WINDOW_MS - SAMPLE_MS / 2);
      const last = startSamples.at(-1);
      if (listedAt !== undefined && windowStart && last && last.at - windowStart.at >= QUIET_WINDOW_MS - SAMPLE_MS / 2 && millicores(windowStart, last) < QUIET_MILLICORES) break;
      if (Date.now() - spawned > START_TIMEOUT_MS) throw new Error(`the forwarder did not list and settle within ${START_TIMEOUT_MS / 1000} s (listed ${running.listed()} kinds)`);
    }
    const start = phaseOf(startSamples);
    progress(`listed after ${(((listedAt ?? Date.now()) - spawned) / 1000).toFixed(1)} s, quiet after ${start.seconds} s; measuring idle for ${idleSeconds} s`);

    const idleSamples: ProcSample[] = [sampleProc(running.pid)];
    const idleEnd = Date.now() + idleSeconds * 1000;
    while (Date.now() < idleEnd) {
      await sleep(SAMPLE_MS);
      assertAlive(running);
      idleSamples.push(sampleProc(running.pid));
    }
    const idle = phaseOf(idleSamples);

    progress(`churn: ${rate} Job changes a second for ${churnSeconds} s`);
    const churnSamples: ProcSample[] = [sampleProc(running.pid)];
    const total = rate * churnSeconds;
    const churnStarted = Date.now();
    let applied = 0;
    let failed = 0;
    const suspended = new Map<number, boolean>();
    const inFlight = new Set<Promise<void>>();
    let nextSample = churnStarted + SAMPLE_MS;
    for (let change = 0; change < total; change += 1) {
      const due = churnStarted + (change * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      if (Date.now() >= nextSample) {
        assertAlive(running);
        churnSamples.push(sampleProc(running.pid));
        nextSample += SAMPLE_MS;
      }
      // Round robin over every Job, so each change is to an object the forwarder holds.
      const target = (change * 7919) % (jobSets * jobsPerJobSet);
      const owner = Math.floor(target / jobsPerJobSet);
      const suspend = !(suspended.get(target) ?? true);
      suspended.set(target, suspend);
      const sent = client
        .send('PATCH', `/apis/batch/v1/namespaces/${NAMESPACE}/jobs/${jobName(jobSetName(owner), target % jobsPerJobSet)}`, { spec: { suspend } }, 'application/merge-patch+json')
        .then(
          () => {
            applied += 1;
          },
          () => {
            failed += 1;
          },
        );
      inFlight.add(sent);
      void sent.finally(() => inFlight.delete(sent));
    }
    await Promise.all(inFlight);
    await sleep(SAMPLE_MS);
    churnSamples.push(sampleProc(running.pid));
    const churn = { ...phaseOf(churnSamples), rate, changesApplied: applied, changesFailed: failed };
    const peakRssMiB = mib(sampleProc(running.pid).peakRssKiB);
    return {
      jobSets,
      jobs: jobSets * jobsPerJobSet,
      createSeconds: Math.round(createSeconds),
      listedSeconds: Math.round(((listedAt ?? Date.now()) - spawned) / 100) / 10,
      start,
      idle,
      churn,
      peakRssMiB,
      target: FOOTPRINT_TARGET,
      nodeOptions,
      nodeArgs,
      entry: entryName,
      bundleKiB,
      wallMs: Date.now() - wallStarted,
    };
  } finally {
    await forwarder?.stop();
    admin?.close();
    await Promise.all([kube?.stop(), moto?.stop(), dynamo?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
};

/** renderForwarderFootprintFigures: the lines `npm run bench` prints. */
export const renderForwarderFootprintFigures = (f: FootprintFigures): string[] => {
  const verdict = (value: number, target: number, unit: string): string => (value <= target ? `within the ${target} ${unit} target` : `over the ${target} ${unit} target`);
  return [
    `forwarder footprint (${f.entry === ForwarderEntry.bundle ? `the deployed bundle, ${f.bundleKiB ?? '?'} KiB,` : 'lineup forward on the TypeScript sources'} as its own process, NODE_OPTIONS ${JSON.stringify(f.nodeOptions)}${f.nodeArgs.length === 0 ? '' : `, node ${f.nodeArgs.join(' ')}`}, ${f.jobSets.toLocaleString('en-US')} JobSets × ${f.jobs / f.jobSets} Jobs on kube-apiserver; created in ${f.createSeconds} s, listed in ${f.listedSeconds} s):`,
    `  start (list and forward everything): ${f.start.seconds} s, RSS mean ${f.start.rssMiB} MiB, max ${f.start.maxRssMiB} MiB, CPU ${f.start.cpuMillicores}m`,
    `  idle: ${f.idle.seconds} s, RSS ${f.idle.rssMiB} MiB (max ${f.idle.maxRssMiB} MiB: ${verdict(f.idle.maxRssMiB, f.target.rssMiB, 'MiB')}), CPU ${f.idle.cpuMillicores}m (${verdict(f.idle.cpuMillicores, f.target.idleCpuMillicores, 'millicore')})`,
    `  churn: ${f.churn.rate} Job changes/s for ${f.churn.seconds} s (${f.churn.changesApplied} applied, ${f.churn.changesFailed} failed), RSS ${f.churn.rssMiB} MiB (max ${f.churn.maxRssMiB}), CPU ${f.churn.cpuMillicores}m`,
    `  peak RSS of the process (VmHWM): ${f.peakRssMiB} MiB`,
  ];
};

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      jobsets: { type: 'string', default: String(FOOTPRINT_DEFAULTS.jobSets) },
      jobs: { type: 'string', default: String(FOOTPRINT_DEFAULTS.jobsPerJobSet) },
      'idle-seconds': { type: 'string', default: String(FOOTPRINT_DEFAULTS.idleSeconds) },
      'churn-seconds': { type: 'string', default: String(FOOTPRINT_DEFAULTS.churnSeconds) },
      rate: { type: 'string', default: String(FOOTPRINT_DEFAULTS.rate) },
      'node-options': { type: 'string' },
      entry: { type: 'string', default: ForwarderEntry.bundle },
      'node-args': { type: 'string' },
    },
  });
  const number = (name: string, text: string | undefined): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      process.stderr.write(`bench forwarder footprint: --${name} must be a whole number ≥ 1, got ${text}\n`);
      process.exit(2);
    }
    return value;
  };
  const entry = Object.values(ForwarderEntry).find((name) => name === values.entry);
  if (entry === undefined) {
    process.stderr.write(`bench forwarder footprint: --entry must be ${Object.values(ForwarderEntry).join(' or ')}, got ${values.entry}\n`);
    process.exit(2);
  }
  const figures = await runForwarderFootprintBench({
    entry,
    ...(values['node-args'] === undefined ? {} : { nodeArgs: values['node-args'].split(' ').filter((arg) => arg !== '') }),
    jobSets: number('jobsets', values.jobsets),
    jobsPerJobSet: number('jobs', values.jobs),
    idleSeconds: number('idle-seconds', values['idle-seconds']),
    churnSeconds: number('churn-seconds', values['churn-seconds']),
    rate: number('rate', values.rate),
    nodeOptions: values['node-options'],
  });
  console.log(values.json ? JSON.stringify(figures, null, 2) : renderForwarderFootprintFigures(figures).join('\n'));
}
