/**
 * The real-server test harness: kube-apiserver + etcd (and, on it, kube-controller-manager,
 * kube-scheduler and kwok: controlPlane.ts), moto (EventBridge, SQS) and dynalite
 * (DynamoDB) on loopback, each in its own temporary directory and torn down even when a test
 * fails. See each module's header for how its server is started.
 */
export { LOOPBACK, freePort, freePorts } from './ports.ts';
export {
  KEEP_DIRS_ENV,
  ServerStartError,
  createServerDir,
  httpRequest,
  logTail,
  removeServerDir,
  startServerProcess,
  type ExitInfo,
  type HttpRequestOptions,
  type HttpResponse,
  type ReadinessCheck,
  type ServerProcess,
  type ServerProcessOptions,
} from './process.ts';
export {
  ADMIN_USER,
  FIELD_MANAGER,
  LINEUP_GROUP,
  LINEUP_USER,
  ensureKubeBinaries,
  pinnedVersions,
  startKubeApiServer,
  type ApplyOptions,
  type KubeBinaries,
  type KubeServer,
  type KubeServerOptions,
  type RequestOptions,
  type TokenKind,
} from './kube.ts';
export {
  MOTO_ACCOUNT_ID,
  MOTO_REGION,
  MOTO_VERSION,
  ensureMotoVenv,
  motoVenvDir,
  startMoto,
  type AwsClientConfig,
  type MotoServer,
} from './moto.ts';
export { startDynalite, type DynaliteServer } from './dynamo.ts';
export { forwarderProcessEnv, lineupAgainstTable, runLineup, tableEnv, type CliRun } from './cli.ts';
export {
  CONTROLLERS,
  KWOK_STAGES_FILE,
  PodAnnotation,
  ensureControlPlaneBinaries,
  podAnnotations,
  setPodBehaviour,
  startControlPlane,
  type ControlPlane,
  type ControlPlaneBinaries,
  type ControlPlaneOptions,
  type PodBehaviour,
  type PodOutcome,
} from './controlPlane.ts';
