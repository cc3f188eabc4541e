/**
 * The in-cluster forwarder: a Namespace, the ServiceAccount Lineup's RBAC binds, and a
 * one-replica Deployment running the forwarder's bundle (`lineup forward` without the rest of the
 * CLI: lib/hosts/forwarderProcess.ts, bundled by infra/k8s/forwarderBundle.ts), configured by the same
 * environment variables the Lambda functions read (lib/hosts/lambdaConfig.ts EnvVar).
 *
 * Per-cluster values are `${NAME}` placeholders for envsubst (docs/deploy.md shows the
 * command); FORWARDER_PLACEHOLDERS lists every one, so the docs and the test can check that
 * nothing else is left to fill in.
 */
import { EnvVar } from '../../lib/hosts/lambdaConfig.ts';
import { FORWARDER_IMAGE_ENTRY, FORWARDER_NODE_ARGS, FORWARDER_NODE_OPTIONS, FORWARDER_RESOURCES, KubeName } from './names.ts';

/** FORWARDER_PLACEHOLDERS: the envsubst variables forwarder.yaml uses, each with where its value comes from. */
export const FORWARDER_PLACEHOLDERS = {
  [EnvVar.ForwarderCluster]: 'the cluster id in the stack configuration',
  [EnvVar.TableName]: 'stack output TableName',
  [EnvVar.EventBusName]: 'stack output EventBusArn (an ARN works from any account)',
  [EnvVar.ControllerName]: 'controllerName in the stack configuration',
  [EnvVar.ClaimUnmanaged]: 'claimUnmanaged in the stack configuration (true or false)',
  AWS_REGION: 'the region of the stack',
  LINEUP_IMAGE: 'the forwarder image (docs/deploy.md: build it with infra/forwarder.Dockerfile)',
} as const;

const placeholder = (name: keyof typeof FORWARDER_PLACEHOLDERS): string => `\${${name}}`;

/** APP_LABELS: the labels every forwarder object carries. */
const APP_LABELS = { 'app.kubernetes.io/name': KubeName.forwarder, 'app.kubernetes.io/part-of': 'lineup' } as const;

/** forwarderNamespace: the namespace, held to the restricted Pod Security Standard. */
export const forwarderNamespace = () => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    name: KubeName.namespace,
    labels: { 'app.kubernetes.io/part-of': 'lineup', 'pod-security.kubernetes.io/enforce': 'restricted' },
  },
});

/** forwarderServiceAccount: the identity clusterrolebinding.yaml binds (and, with IRSA, the role annotation goes here). */
export const forwarderServiceAccount = () => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: KubeName.forwarder, namespace: KubeName.namespace, labels: { ...APP_LABELS } },
});

/** forwarderDeployment: one replica (two would send every event twice), replaced with Recreate for the same reason. */
export const forwarderDeployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: KubeName.forwarder, namespace: KubeName.namespace, labels: { ...APP_LABELS } },
  spec: {
    replicas: 1,
    strategy: { type: 'Recreate' },
    selector: { matchLabels: { 'app.kubernetes.io/name': KubeName.forwarder } },
    template: {
      metadata: { labels: { ...APP_LABELS } },
      spec: {
        serviceAccountName: KubeName.forwarder,
        // The in-cluster KubeConfig reads the projected token: the watch runs as the ServiceAccount.
        automountServiceAccountToken: true,
        // SIGTERM flushes accepted events and writes the last checkpoint (lib/cli/forward.ts).
        terminationGracePeriodSeconds: 30,
        securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [
          {
            name: 'forwarder',
            image: placeholder('LINEUP_IMAGE'),
            // One minified JavaScript file: no TypeScript to strip at start, none of the CLI the forwarder does not use.
            command: ['node', ...FORWARDER_NODE_ARGS, FORWARDER_IMAGE_ENTRY],
            env: [
              { name: EnvVar.ForwarderCluster, value: placeholder(EnvVar.ForwarderCluster) },
              { name: EnvVar.TableName, value: placeholder(EnvVar.TableName) },
              { name: EnvVar.EventBusName, value: placeholder(EnvVar.EventBusName) },
              { name: EnvVar.ControllerName, value: placeholder(EnvVar.ControllerName) },
              { name: EnvVar.ClaimUnmanaged, value: placeholder(EnvVar.ClaimUnmanaged) },
              { name: 'AWS_REGION', value: placeholder('AWS_REGION') },
              // V8's heap sized to the memory limit (names.ts): it collects before the kernel would kill the pod.
              { name: 'NODE_OPTIONS', value: FORWARDER_NODE_OPTIONS },
            ],
            resources: {
              requests: { cpu: `${FORWARDER_RESOURCES.requestCpuMillis}m`, memory: `${FORWARDER_RESOURCES.requestMemoryMiB}Mi` },
              limits: { memory: `${FORWARDER_RESOURCES.limitMemoryMiB}Mi` },
            },
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              runAsNonRoot: true,
              capabilities: { drop: ['ALL'] },
            },
            volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
          },
        ],
        volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '16Mi' } }],
      },
    },
  },
});
