/**
 * What `lineup clusters add` registers: the flags checked one by one and turned into a
 * registry entry, or an InvalidInputError saying which flag, the value seen and what was expected;
 * and what to install in the cluster next. Pure but for reading the CA file through `readFile`.
 */
import { X509Certificate } from 'node:crypto';
import { InvalidInputError } from '../errors.ts';
import { CLUSTER_ID_PATTERN } from '../events/schema.ts';
import type { ClusterRecord } from '../store/types.ts';

/** AddClusterFlags: what `lineup clusters add ID` is given. */
export interface AddClusterFlags {
  /** arn:aws:eks:REGION:ACCOUNT:cluster/NAME: the reconciler signs EKS tokens for it. */
  readonly eksArn?: string | undefined;
  /** The API server, https://… */
  readonly endpoint?: string | undefined;
  /** A file holding the cluster CA's PEM (or its base64, as a kubeconfig's certificate-authority-data). */
  readonly ca?: string | undefined;
  /** Without --eks-arn: the Secrets Manager secret holding the bearer token of Lineup's user. */
  readonly tokenSecret?: string | undefined;
  /** With --eks-arn: a role the reconciler assumes to sign the cluster's tokens. */
  readonly roleArn?: string | undefined;
}

/** EKS_CLUSTER_ARN: an EKS cluster ARN, its region and name captured. */
const EKS_CLUSTER_ARN = /^arn:aws[a-z-]*:eks:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):cluster\/([A-Za-z0-9][A-Za-z0-9_-]{0,99})$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----/;

/** caPemOf: the CA file's certificate as PEM, accepting base64 of the PEM; an error unless it parses as an X.509 certificate. */
const caPemOf = (path: string, readFile: (path: string) => string): string => {
  let text: string;
  try {
    text = readFile(path).trim();
  } catch (error) {
    throw new InvalidInputError(`--ca ${path}: cannot read it: ${(error as Error).message}`, { cause: error });
  }
  const pem = PEM_CERTIFICATE.test(text) ? text : Buffer.from(text, 'base64').toString('utf8').trim();
  if (!PEM_CERTIFICATE.test(pem)) throw new InvalidInputError(`--ca ${path}: no "-----BEGIN CERTIFICATE-----" in it (nor in its base64): expected the cluster CA's PEM`);
  try {
    new X509Certificate(pem);
  } catch (error) {
    throw new InvalidInputError(`--ca ${path}: the certificate does not parse: ${(error as Error).message}`, { cause: error });
  }
  return pem;
};

/** endpointOf: the API server URL, https only. */
const endpointOf = (endpoint: string): string => {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch (error) {
    throw new InvalidInputError(`--endpoint ${JSON.stringify(endpoint)} is not a URL: expected https://<host>[:port]`, { cause: error });
  }
  if (url.protocol !== 'https:') throw new InvalidInputError(`--endpoint ${endpoint} has protocol ${url.protocol}, expected https://`);
  return endpoint;
};

/**
 * clusterRecordOf: the registry entry `lineup clusters add ID` writes. Either `--eks-arn ARN`
 * (auth: EKS tokens for that cluster, optionally through `--role-arn`) or `--token-secret ARN`
 * (auth: a bearer token kept in Secrets Manager); both need `--endpoint` and `--ca`, which
 * `aws eks describe-cluster` prints for an EKS cluster.
 */
export const clusterRecordOf = (id: string, flags: AddClusterFlags, readFile: (path: string) => string): ClusterRecord => {
  if (!CLUSTER_ID_PATTERN.test(id)) throw new InvalidInputError(`cluster id ${JSON.stringify(id)} is not a DNS label: expected ${CLUSTER_ID_PATTERN.source}`);
  const eks = flags.eksArn === undefined ? undefined : EKS_CLUSTER_ARN.exec(flags.eksArn);
  if (flags.eksArn !== undefined && !eks) throw new InvalidInputError(`--eks-arn ${JSON.stringify(flags.eksArn)} is not an EKS cluster ARN: expected arn:aws:eks:REGION:ACCOUNT:cluster/NAME`);
  if (flags.eksArn === undefined && flags.tokenSecret === undefined) {
    throw new InvalidInputError(`cluster ${id}: no credentials: expected --eks-arn ARN (EKS tokens) or --token-secret ARN (a bearer token in Secrets Manager)`);
  }
  if (flags.eksArn !== undefined && flags.tokenSecret !== undefined) throw new InvalidInputError(`cluster ${id}: --eks-arn and --token-secret both given: expected one`);
  if (flags.roleArn !== undefined && flags.eksArn === undefined) throw new InvalidInputError(`--role-arn ${flags.roleArn} without --eks-arn: expected it only for an EKS cluster`);
  if (flags.roleArn !== undefined && !ROLE_ARN.test(flags.roleArn)) throw new InvalidInputError(`--role-arn ${JSON.stringify(flags.roleArn)} is not an IAM role ARN: expected arn:aws:iam::ACCOUNT:role/NAME`);
  if (flags.tokenSecret !== undefined && !SECRET_ARN.test(flags.tokenSecret)) {
    throw new InvalidInputError(`--token-secret ${JSON.stringify(flags.tokenSecret)} is not a Secrets Manager secret ARN: expected arn:aws:secretsmanager:REGION:ACCOUNT:secret:NAME`);
  }
  if (flags.endpoint === undefined || flags.ca === undefined) {
    const missing = flags.endpoint === undefined ? (flags.ca === undefined ? '--endpoint and --ca' : '--endpoint') : '--ca';
    const hint = eks ? ` (aws eks describe-cluster --name ${eks[3]} --region ${eks[1]} --query 'cluster.[endpoint,certificateAuthority.data]' prints both)` : '';
    throw new InvalidInputError(`cluster ${id}: ${missing} missing: expected the API server's https URL and a file with its CA${hint}`);
  }
  const endpoint = endpointOf(flags.endpoint);
  const caData = caPemOf(flags.ca, readFile);
  const auth: ClusterRecord['auth'] = eks
    ? { type: 'eks', clusterName: eks[3] ?? '', region: eks[1] ?? '', ...(flags.roleArn === undefined ? {} : { roleArn: flags.roleArn }) }
    : { type: 'token', tokenSecretArn: flags.tokenSecret };
  return { id, endpoint, caData, auth };
};

/** nextSteps: what to install in a newly registered cluster, in order, as lines to print. */
export const nextSteps = (record: ClusterRecord): string[] => [
  `next, in cluster ${record.id}:`,
  '  1. kubectl apply -f infra/manifests/clusterrole.yaml -f infra/manifests/clusterrolebinding.yaml -f infra/manifests/validating-admission-policy.yaml',
  record.auth.type === 'eks'
    ? `  2. an EKS access entry for the reconciler's role (stack output ReconcilerRoleArn${record.auth.roleArn === undefined ? '' : `, or ${record.auth.roleArn}, which it assumes`}) in group lineup:reconciler`
    : `  2. put the bearer token of the lineup user (bound by clusterrolebinding.yaml) in secret ${record.auth.type === 'token' ? (record.auth.tokenSecretArn ?? '') : ''}`,
  `  3. the forwarder: infra/manifests/forwarder.yaml with LINEUP_FORWARDER_CLUSTER=${record.id} (docs/deploy.md, Install the forwarder)`,
  `then \`lineup clusters status ${record.id}\` shows its heartbeat (the forwarder's first checkpoint) within a minute; until then the resync polls the cluster's JobSets as unwatched and counts it in the UnwatchedClusters alarm.`,
  'a cluster no Lineup forwarder watches belongs in the stack\'s clusters with heartbeatAlarm: false, so the alarm leaves it out (and for access entries made by the stack).',
];
