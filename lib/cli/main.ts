/**
 * The `lineup` command line (the README's Commands section). Each command is a function of (arguments, CliIo)
 * returning an exit code; this file only wires them to commander and the process.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { ExitCode, type CliIo } from './io.ts';
import { clustersAddCommand, clustersListCommand, clustersRemoveCommand, clustersStatusCommand } from './clusters.ts';
import { runDemoCommand } from './demo.ts';
import { forwardCommand } from './forward.ts';
import { readKubeconfig } from '../k8s/kubeconfigReader.ts';
import { runPlan } from './plan.ts';
import { archiveReplayCommand, DEFAULT_REPLAY_TIMEOUT, DEFAULT_SETTLE, type ArchiveReplayFlags } from './archiveReplay.ts';
import { exportCommand, replayCommand } from './replay.ts';
import { DEFAULT_STATE_DIR, historyCommand, runCommand } from './run.ts';
import { DEFAULT_STACK_NAME } from '../constants.ts';
import { DEFAULT_CONTROLLER_NAME } from '../jobset/managedBy.ts';
import { UNTIL_NEVER_LIMIT_MS, UntilNeverText } from '../sim/constants.ts';
import { formatDuration } from '../duration.ts';
import { runSimulate } from './simulate.ts';
import { SIMULATE_OUTPUTS } from '../sim/constants.ts';
import { runValidate } from './validate.ts';
import { HEARTBEAT_MISSING_MS } from '../fleet/status.ts';

/** What `--until never` means, in the help of the commands that take it. */
const UNTIL_NEVER_HELP = UntilNeverText.help(formatDuration(UNTIL_NEVER_LIMIT_MS));
/** --journal-keep-env: the opt-in to keep what the journal redacts by default (lib/reconcile/redact.ts). */
const JOURNAL_KEEP_ENV_HELP = 'keep containers\' environment values in the journal and its exports (default: redacted, as LINEUP_JOURNAL_KEEP_ENV=true keeps them in the deployed reconciler)';

/** processIo: the CliIo of a real process. */
const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => readFileSync(path, 'utf8'),
};

/** Exit: receives a command's exit code. */
type Exit = (code: number) => void;

/** stopSignal: aborted by the process's first SIGINT or SIGTERM, for the commands that run until stopped. */
const stopSignal = (): AbortSignal => {
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return abort.signal;
};

/** addDemo: `lineup demo`, the example JobSets (or the given files) through the whole pipeline against a simulated cluster. */
const addDemo = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('demo')
    .description('run the example JobSets through the whole pipeline (forwarder → bus → reconciler) against a simulated cluster')
    .argument('[file...]', 'JobSet files to run instead of the bundled examples')
    .option('--speed <duration>', 'real time per virtual second (0 for as fast as possible)', '40ms')
    .option('--until <duration>', `stop at this virtual time, or ${UNTIL_NEVER_HELP}`, '1h')
    .option('--behaviour <file>', 'when Jobs become ready, succeed or fail, and outside actions (as for simulate)')
    .option('--verbose', 'print every log line of the pipeline')
    .option('--state-dir <dir>', 'keep the journal here, as lineup run does, for lineup history, export and replay (cluster id: local)')
    .option('--journal-keep-env', JOURNAL_KEEP_ENV_HELP)
    .addHelpText('after', '\nExit codes: 0 ran; 1 a JobSet was rejected (the others still ran); 2 unusable input.')
    .action(async (files: string[], options: { speed: string; until: string; behaviour?: string; verbose?: boolean; stateDir?: string; journalKeepEnv?: boolean }) =>
      exit(await runDemoCommand(files, options, io)),
    );
};

/** addRun: `lineup run`, the whole controller locally against a real cluster until Ctrl-C. */
const addRun = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('run')
    .description('run the whole controller locally against a real cluster (forwarder, in-process bus, reconciler, the SQLite store of its state directory); Ctrl-C stops')
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context to use (default: the current context)')
    .option('--cluster <id>', 'cluster id to record events and state under', 'local')
    .option('--state-dir <dir>', 'the state directory: its SQLite database of checkpoints and journal (one lineup run at a time; history, export, replay and clusters read it meanwhile)', DEFAULT_STATE_DIR)
    .option('--controller-name <name>', 'spec.managedBy value that makes a JobSet Lineup\'s', DEFAULT_CONTROLLER_NAME)
    .option('--claim-unmanaged', 'also manage JobSets without spec.managedBy (clusters without the upstream controller)')
    .option('--journal-keep-env', JOURNAL_KEEP_ENV_HELP)
    .option('--verbose', 'print debug log lines')
    .addHelpText('after', '\nEnvironment: LINEUP_MAX_JOBS_PER_JOBSET and LINEUP_MAX_PODS_PER_JOBSET raise or lower the largest JobSet it accepts (default 10000 Jobs, 100000 Pods), as they do the deployed reconciler.')
    .action(async (options: { kubeconfig?: string; context?: string; cluster: string; stateDir: string; controllerName: string; claimUnmanaged?: boolean; journalKeepEnv?: boolean; verbose?: boolean }) => {
      exit(await runCommand({ ...options, env: process.env }, io, stopSignal()));
    });
};

/** addForward: `lineup forward`, the in-cluster Deployment's entry point, until stopped. */
const addForward = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('forward')
    .description('forward cluster changes to EventBridge until stopped (the in-cluster Deployment\'s entry point; configured by LINEUP_* environment variables)')
    .option('--kubeconfig <file>', 'watch this cluster instead of the pod\'s own')
    .action(async (options: { kubeconfig?: string }) => {
      exit(await forwardCommand(options, io, stopSignal(), readKubeconfig));
    });
};

/** addHistory: `lineup history`, a JobSet's journal, pass by pass. */
const addHistory = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('history')
    .description("print a JobSet's journal from lineup run's state: per reconcile pass what it saw (the counts it judged, the gate), what it did and why; per stage where the time went")
    .argument('<target>', 'CLUSTER/NAMESPACE/NAME')
    .option('--state-dir <dir>', `state directory of lineup run (default: ${DEFAULT_STATE_DIR}, unless --table)`)
    .option('--table <name>', 'instead: the deployed checkpoint table (stack output TableName); AWS credentials from the default chain')
    .option('--region <region>', "with --table: the table's AWS region")
    .option('--limit <n>', 'only the newest this many passes (the text then says "newest N of M passes")', '200')
    .addOption(new Option('--output <format>', 'output format (json: the shape docs/debugging.md documents; html: one self-contained page drawing the passes)').choices(['text', 'json', 'html']).default('text'))
    .action(async (target: string, options: { stateDir?: string; table?: string; region?: string; limit: string; output: string }) => exit(await historyCommand(target, options, io)));
};

/** addExport: `lineup export`, a JobSet's journal as a self-contained recording. */
const addExport = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('export')
    .description("write a JobSet's journal from lineup run's state as a self-contained recording (JSON on stdout)")
    .argument('<target>', 'CLUSTER/NAMESPACE/NAME')
    .option('--state-dir <dir>', `state directory of lineup run (default: ${DEFAULT_STATE_DIR}, unless --table)`)
    .option('--table <name>', 'instead: the deployed checkpoint table (stack output TableName); AWS credentials from the default chain')
    .option('--region <region>', "with --table: the table's AWS region")
    .addHelpText('after', '\nExit codes: 0 written; 2 unusable input (no state, no passes recorded for the JobSet).')
    .action(async (target: string, options: { stateDir?: string; table?: string; region?: string }) => exit(await exportCommand(target, options, io)));
};

/** addReplay: `lineup replay`, today's planner over recorded passes, or an EventBridge archive replayed. */
const addReplay = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('replay')
    .description("re-run today's planner over every recorded pass and say, pass by pass, whether it decides the same")
    .argument('[target]', 'a recording file (lineup export) or CLUSTER/NAMESPACE/NAME')
    .option('--state-dir <dir>', `state directory of lineup run (default: ${DEFAULT_STATE_DIR}, unless --table)`)
    .option('--all', 'every JobSet recorded in the state directory (or --table)')
    .option('--since <duration>', 'with --all: only JobSets with a pass in the last this long (e.g. 7d, 36h)')
    .option('--cluster <id>', 'the cluster --all replays (default: every cluster of the state directory: local and those registered, as the demo\'s is)')
    .option('--perturb <runs>', 're-enact the recording this many times in the simulator with its events duplicated, reordered, delayed and dropped')
    .option('--seed <seed>', 're-enact only this seed of --perturb (the one a failure printed)')
    .addOption(new Option('--output <format>', 'output format (html: one self-contained page drawing the passes, those that differ highlighted)').choices(['text', 'json', 'html']).default('text'))
    .option('--archive <name>', 'instead: replay this EventBridge archive to the reconciler\'s rule and compare the replayed decisions with the original ones')
    .option('--from <time>', 'with --archive: the first event time to replay (ISO 8601)')
    .option('--to <time>', 'with --archive: the last event time to replay (ISO 8601)')
    .option('--jobset <target>', 'with --archive: report on this CLUSTER/NAMESPACE/NAME only (default: every JobSet of every registered cluster)')
    .option('--table <name>', 'instead of --state-dir: the deployed checkpoint table (stack output TableName; required with --archive); AWS credentials from the default chain')
    .option('--region <region>', 'with --table: the table\'s (with --archive: the stack\'s) AWS region')
    .option('--bus <name>', 'with --archive: the bus to replay to (default: the archive\'s)')
    .option('--rule <name-or-arn>', 'with --archive: the reconciler\'s rule (default: the stack\'s <stack>-BusReconcilerRule*)')
    .option('--stack <name>', 'with --archive: the stack whose rule to find', DEFAULT_STACK_NAME)
    .option('--timeout <duration>', 'with --archive: how long to wait for the replay', DEFAULT_REPLAY_TIMEOUT)
    .option('--settle <duration>', 'with --archive: how long the journal must stay unchanged after the replay before the report', DEFAULT_SETTLE)
    .addHelpText('after', '\nExit codes: 0 every pass decides the same (--perturb: every run kept the startup order and reached the recorded final state); 1 a pass differs or could not be replayed (a run failed); 2 unusable input (truncated file, unknown format version, unknown JobSet, a recording that fails its check, bad --perturb/--seed, --perturb with --output html) or, with --archive, a replay that failed or did not end in time.')
    .action(async (target: string | undefined, options: { stateDir?: string; all?: boolean; since?: string; cluster?: string; output: string; archive?: string; perturb?: string; seed?: string } & Omit<ArchiveReplayFlags, 'archive'>) =>
      exit(options.archive === undefined ? await replayCommand(target, options, io) : await archiveReplayCommand({ ...options, archive: options.archive }, io)),
    );
};

/** addClusters: `lineup clusters`, the registry's verbs (list, add, remove, status) over a state directory or the deployed table. */
const addClusters = (program: Command, io: CliIo, exit: Exit): void => {
  const clusters = program
    .command('clusters')
    .description('the cluster registry and the fleet\'s health: list, add and remove clusters, and show each one\'s forwarder heartbeat, lag, last hour and startups')
    .addHelpText('after', '\nEach verb reads lineup run\'s state directory (--state-dir) or the deployed table (--table NAME --region R).');
  const sourceOptions = (command: Command): Command =>
    command
      .option('--state-dir <dir>', `state directory of lineup run or lineup demo (default: ${DEFAULT_STATE_DIR}, unless --table)`)
      .option('--table <name>', 'instead: the deployed checkpoint table (stack output TableName); AWS credentials from the default chain')
      .option('--region <region>', "with --table: the table's AWS region");
  sourceOptions(clusters.command('list').description('list the registered clusters: id, API endpoint, auth'))
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (options: { stateDir?: string; table?: string; region?: string; output: string }) => exit(await clustersListCommand(options, io)));
  sourceOptions(
    clusters
      .command('add')
      .description('register a cluster (refused when the id is taken) and print what to install in it next')
      .argument('<id>', 'cluster id: a DNS label, the event source lineup.<id>')
      .option('--eks-arn <arn>', 'the EKS cluster (arn:aws:eks:REGION:ACCOUNT:cluster/NAME): the reconciler signs EKS tokens for it')
      .option('--role-arn <arn>', 'with --eks-arn: a role the reconciler assumes to sign them')
      .option('--token-secret <arn>', 'instead of --eks-arn: the Secrets Manager secret holding the bearer token of Lineup\'s user')
      .option('--endpoint <url>', 'the API server (https://…)')
      .option('--ca <file>', 'a file holding the cluster CA (PEM, or its base64 as in a kubeconfig)'),
  )
    .addHelpText('after', '\nExit codes: 0 registered; 2 unusable input (a bad id, ARN, endpoint or CA, or the id already registered).')
    .action(async (id: string, options: { stateDir?: string; table?: string; region?: string; eksArn?: string; roleArn?: string; tokenSecret?: string; endpoint?: string; ca?: string }) =>
      exit(await clustersAddCommand(id, options, io)),
    );
  sourceOptions(clusters.command('remove').description('remove a cluster from the registry (its state stays)').argument('<id>', 'cluster id'))
    .addHelpText('after', '\nExit codes: 0 removed; 2 not registered, or unusable input.')
    .action(async (id: string, options: { stateDir?: string; table?: string; region?: string }) => exit(await clustersRemoveCommand(id, options, io)));
  sourceOptions(
    clusters
      .command('status')
      .description('per cluster: auth, forwarder heartbeat and lag, events, passes and errors in the last hour, JobSets starting now and the oldest of them')
      .argument('[id...]', 'clusters to show (default: every registered one, and local when it holds anything)'),
  )
    .option('--at <time>', 'as of this time (ISO 8601; default now): a demo\'s state directory keeps virtual time')
    .option('--missing-after <duration>', 'how long without a heartbeat makes a cluster unwatched', formatDuration(HEARTBEAT_MISSING_MS))
    .addOption(new Option('--output <format>', 'output format (json: the shape docs/fleet.md documents)').choices(['text', 'json']).default('text'))
    .addHelpText('after', '\nExit codes: 0 every cluster shown is watched; 1 one is not (no heartbeat within --missing-after); 2 unusable input or an unknown cluster.')
    .action(async (ids: string[], options: { stateDir?: string; table?: string; region?: string; at?: string; missingAfter: string; output: string }) =>
      exit(await clustersStatusCommand(ids, options, io)),
    );
};

/** addValidate: `lineup validate`, check JobSet files. */
const addValidate = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('validate')
    .description('check JobSet files: exit 0 valid, 1 invalid (one "FILE: path: message" line per error), 2 unusable input')
    .argument('<file...>', 'YAML files holding one or more JobSets (documents of other kinds are skipped and named)')
    .action((files: string[]) => exit(runValidate(files, io)));
};

/** addPlan: `lineup plan`, a JobSet's startup order as stages. */
const addPlan = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('plan')
    .description('print the startup order of a JobSet as stages, and what each stage waits for')
    .argument('<file>', 'YAML file holding one JobSet (documents of other kinds are skipped and named)')
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((file: string, options: { output: string }) => exit(runPlan(file, options, io)));
};

/** addSimulate: `lineup simulate`, the real reconcile code against a simulated cluster in virtual time. */
const addSimulate = (program: Command, io: CliIo, exit: Exit): void => {
  program
    .command('simulate')
    .description('run the real reconcile code against a simulated cluster in virtual time and print the timeline')
    .argument('<file>', 'YAML file holding one JobSet (documents of other kinds are skipped and named)')
    .option('--behaviour <file>', 'when Jobs become ready, succeed or fail, and outside actions (YAML)')
    .option('--until <duration>', `stop at this virtual time, e.g. 2h, or ${UNTIL_NEVER_HELP}`, '24h')
    .option('--latency <duration>', 'delay between a change and the reconcile pass that sees it', '0ms')
    .addOption(new Option('--output <format>', 'output format (html: one self-contained page drawing the timeline)').choices([...SIMULATE_OUTPUTS]).default('text'))
    .addHelpText('after', '\nExit codes: 0 finished or reached --until; 1 the JobSet was rejected; 2 unusable input.')
    .action((file: string, options: { behaviour?: string; until: string; latency: string; output: string }) =>
      exit(runSimulate(file, options, io)),
    );
};

/** buildProgram: the commander program; `exit` receives each command's exit code. */
export const buildProgram = (io: CliIo, exit: Exit): Command => {
  const program = new Command('lineup')
    .description('Serverless startup sequencing for Kubernetes JobSets: check and plan JobSets, simulate them, run the controller locally, or forward a cluster\'s changes to the deployed pipeline.')
    .showHelpAfterError('(run lineup --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  addDemo(program, io, exit);
  addRun(program, io, exit);
  addForward(program, io, exit);
  addHistory(program, io, exit);
  addExport(program, io, exit);
  addReplay(program, io, exit);
  addClusters(program, io, exit);
  addValidate(program, io, exit);
  addPlan(program, io, exit);
  addSimulate(program, io, exit);
  return program;
};

/** main: parse argv and run; usage errors exit 2, as the CLI contract says. */
export const main = async (argv: readonly string[], io: CliIo = processIo): Promise<number> => {
  let code: number = ExitCode.Ok;
  const program = buildProgram(io, (exitCode) => {
    code = exitCode;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // --help and --version end through the same path with exit code 0.
    return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  }
  return code;
};

/**
 * exitQuietlyOnClosedPipe: `lineup demo | head` closes stdout early; like any Unix tool, stop
 * without a stack trace then. Any other stream error is a real failure and stays loud.
 */
export const exitQuietlyOnClosedPipe = (): void => {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
};

/**
 * exitWhenFlushed: end the process with `code` once stdout and stderr have written everything.
 * When main returns, every command is done; whatever still holds the event loop open (a request
 * to a server that never answered) must not keep it running.
 */
export const exitWhenFlushed = async (code: number): Promise<never> => {
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
  process.exit(code);
};

if (import.meta.main) {
  exitQuietlyOnClosedPipe();
  await exitWhenFlushed(await main(process.argv.slice(2)));
}
