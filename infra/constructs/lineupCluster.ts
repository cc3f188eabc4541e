/**
 * LineupCluster: everything one configured cluster adds to the stack —
 * - `Registration`: its registry item (and endpoint lookup), see clusterRegistry.ts;
 * - `ForwarderRole` (pod-identity, irsa): the role the in-cluster forwarder's pods assume;
 * - `Forwarder` + `ForwarderSchedule` (lambda): the Lambda watch session, started every
 *   WATCH_SESSION_MAX_MS so consecutive sessions abut;
 * - `ReconcilerAccess`, `ForwarderAccess`, `ForwarderPodIdentity` (manageAccess): EKS access
 *   entries that put Lineup's roles in Kubernetes groups (no access policy: the groups get only
 *   what infra/manifests/clusterrolebinding.yaml grants) and the Pod Identity association;
 * - `BusPolicy` (forwarderRoleArns): the bus resource policy statement letting forwarder roles
 *   outside the stack (a cluster's own account) put events with source `lineup.<id>` only; with
 *   table resource policy statements for their bookmarks (`FORWARDER#<id>` only, permissions.ts).
 *
 * The stack's own forwarder roles are held by their identity policies, with the same
 * `events:source` condition (permissions.ts). They get no bus policy statement: for a principal
 * of the bus's own account an Allow there would add nothing, and every statement costs about
 * 330 of the bus policy's 10,240 characters (EventBridge's default quota), so a statement per
 * cluster would stop a fleet at about 30 clusters.
 * Construct IDs include the cluster id, which is therefore permanent (config.ts).
 */
import { createHash } from 'node:crypto';
import { Aws, CfnOutput, Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { eventSource } from '../../lib/events/schema.ts';
import { EnvVar } from '../../lib/hosts/lambdaConfig.ts';
import { ForwarderMode, eksClusterName } from '../config.ts';
import type { ClusterConfig } from '../config.ts';
import { KubeGroup, KubeName } from '../k8s/names.ts';
import { FORWARDER_SESSION_RATE_MS, FunctionSizing } from '../sizing.ts';
import { clusterPutEventsStatement, forwarderBookmarkStatements, registryReadStatement, tokenSecretStatement } from '../permissions.ts';
import { ClusterRegistration, eksClusterArn } from './clusterRegistry.ts';
import type { RegistryWriter } from './clusterRegistry.ts';
import { LineupFunction } from './lineupFunction.ts';
import { InvokeFunction } from './invokeFunction.ts';

/** FORWARDER_SCHEDULE_RETRIES: Scheduler retries of a session start that failed (throttling); each gap is a delay in forwarding. */
export const FORWARDER_SCHEDULE_RETRIES = 3;

/** busPolicyStatementId: the bus policy's StatementId for a cluster (at most 64 characters, EventBridge's limit). */
export const busPolicyStatementId = (clusterId: string): string => {
  const plain = `lineup-${clusterId}`;
  return plain.length <= 64 ? plain : `lineup-${createHash('sha256').update(clusterId).digest('hex').slice(0, 32)}`;
};

/** outputSuffix: a cluster id as a CloudFormation output name part (`prod-eu-1` → `ProdEu1`). */
export const outputSuffix = (clusterId: string): string =>
  clusterId
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** POD_IDENTITY_SERVICE: the service principal EKS Pod Identity assumes a pod's role as. */
export const POD_IDENTITY_SERVICE = 'pods.eks.amazonaws.com';

/**
 * podIdentityTrustConditions: the Pod Identity role's trust conditions — aws:SourceAccount the
 * stack's account, and the session tags EKS Pod Identity sets on every AssumeRole (the EKS user
 * guide's "Create IAM role with trust policy required by EKS Pod Identity" and its session-tag
 * list): `eks-cluster-arn` this cluster's ARN (arn:aws:eks:<region>:<account>:cluster/<name>),
 * `kubernetes-namespace` and `kubernetes-service-account` the forwarder's. So the service hands
 * the role to no other account's, cluster's or ServiceAccount's association, even one created by
 * mistake.
 */
export const podIdentityTrustConditions = (scope: Construct, cluster: ClusterConfig): Record<string, Record<string, string>> => ({
  StringEquals: {
    'aws:SourceAccount': Aws.ACCOUNT_ID,
    'aws:RequestTag/eks-cluster-arn': eksClusterArn(scope, eksClusterName(cluster), cluster.region ?? Aws.REGION),
    'aws:RequestTag/kubernetes-namespace': KubeName.namespace,
    'aws:RequestTag/kubernetes-service-account': KubeName.forwarder,
  },
});

/** oidcIssuer: the issuer host and path an IAM OIDC provider ARN names (what IRSA trust conditions key on). */
export const oidcIssuer = (providerArn: string): string => providerArn.slice(providerArn.indexOf(':oidc-provider/') + ':oidc-provider/'.length);

/** LineupClusterProps: the cluster and the shared parts it plugs into. */
export interface LineupClusterProps {
  readonly cluster: ClusterConfig;
  readonly bus: events.IEventBus;
  readonly table: dynamodb.Table;
  readonly reconcilerRole: iam.IRole;
  readonly registryWriter: RegistryWriter;
  /** Environment every function shares (table, bus, controller name, claimUnmanaged). */
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetentionDays: number;
  /** Source maps in the Lambda forwarder's zip (infra/config.ts `sourceMaps`). @default false */
  readonly sourceMaps?: boolean | undefined;
}

/** LineupCluster: see the file comment for its children. */
export class LineupCluster extends Construct {
  /** The in-cluster forwarder's role (pod-identity, irsa). */
  readonly forwarderRole: iam.Role | undefined;
  /** The Lambda watch session (lambda). */
  readonly forwarderFunction: LineupFunction | undefined;

  constructor(scope: Construct, id: string, props: LineupClusterProps) {
    super(scope, id);
    const { cluster } = props;
    new ClusterRegistration(this, 'Registration', { cluster, tableName: props.table.tableName, writer: props.registryWriter });

    if (cluster.accessRoleArn !== undefined) {
      // The reconciler signs this cluster's EKS tokens as the access role (lib/k8s/auth.ts).
      props.reconcilerRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: [cluster.accessRoleArn] }));
    }

    this.forwarderRole = this.inClusterForwarderRole(cluster);
    this.forwarderFunction = cluster.forwarder === ForwarderMode.Lambda ? this.lambdaForwarder(props) : undefined;
    const forwarderPrincipal = this.forwarderRole ?? this.forwarderFunction?.role;
    if (forwarderPrincipal) {
      forwarderPrincipal.addToPrincipalPolicy(clusterPutEventsStatement(props.bus.eventBusArn, cluster.id));
      for (const statement of forwarderBookmarkStatements(props.table.tableArn, cluster.id)) forwarderPrincipal.addToPrincipalPolicy(statement);
    }
    // Only the Lambda watch session reads the registry (an in-cluster forwarder knows its own API server).
    this.forwarderFunction?.role.addToPrincipalPolicy(registryReadStatement(props.table.tableArn, cluster.id));

    if (cluster.manageAccess) this.eksAccess(props);

    if (cluster.forwarderRoleArns.length > 0) {
      new events.CfnEventBusPolicy(this, 'BusPolicy', {
        eventBusName: props.bus.eventBusName,
        statementId: busPolicyStatementId(cluster.id),
        statement: {
          Sid: busPolicyStatementId(cluster.id),
          Effect: 'Allow',
          Principal: { AWS: [...cluster.forwarderRoleArns] },
          Action: 'events:PutEvents',
          Resource: props.bus.eventBusArn,
          Condition: { StringEquals: { 'events:source': eventSource(cluster.id) } },
        },
      });
      // A resource policy names its own table as `*` (its ARN would be a circular reference).
      for (const statement of forwarderBookmarkStatements('*', cluster.id)) {
        statement.addPrincipals(...cluster.forwarderRoleArns.map((arn) => new iam.ArnPrincipal(arn)));
        props.table.addToResourcePolicy(statement);
      }
    }
  }

  /** inClusterForwarderRole: the role of the forwarder Deployment's pods, trusted by Pod Identity or by the cluster's OIDC provider. */
  private inClusterForwarderRole(cluster: ClusterConfig): iam.Role | undefined {
    const serviceAccount = `system:serviceaccount:${KubeName.namespace}:${KubeName.forwarder}`;
    let assumedBy: iam.IPrincipal;
    if (cluster.forwarder === ForwarderMode.PodIdentity) {
      // Only the Pod Identity association below (this cluster, namespace and ServiceAccount) hands
      // this role out; the confused-deputy conditions let the service assume it for this stack's
      // account and this EKS cluster only (docs/security.md).
      assumedBy = new iam.SessionTagsPrincipal(new iam.ServicePrincipal(POD_IDENTITY_SERVICE)).withConditions(podIdentityTrustConditions(this, cluster));
    } else if (cluster.forwarder === ForwarderMode.Irsa && cluster.oidcProviderArn !== undefined) {
      const issuer = oidcIssuer(cluster.oidcProviderArn);
      assumedBy = new iam.FederatedPrincipal(
        cluster.oidcProviderArn,
        { StringEquals: { [`${issuer}:sub`]: serviceAccount, [`${issuer}:aud`]: 'sts.amazonaws.com' } },
        'sts:AssumeRoleWithWebIdentity',
      );
    } else return undefined;
    const role = new iam.Role(this, 'ForwarderRole', { assumedBy, description: `Lineup forwarder of cluster ${cluster.id} (${serviceAccount})` });
    if (cluster.forwarder === ForwarderMode.Irsa) {
      const output = new CfnOutput(this, 'ForwarderRoleArn', {
        value: role.roleArn,
        description: `Lineup: annotate ServiceAccount ${KubeName.namespace}/${KubeName.forwarder} of cluster ${cluster.id} with this role (eks.amazonaws.com/role-arn)`,
      });
      output.overrideLogicalId(`ForwarderRoleArn${outputSuffix(cluster.id)}`);
    }
    return role;
  }

  /** lambdaForwarder: the watch-session function and the schedule that starts it. */
  private lambdaForwarder(props: LineupClusterProps): LineupFunction {
    const forwarder = new LineupFunction(this, 'Forwarder', {
      entry: 'forwarder.ts',
      description: `Lineup forwarder watch session of cluster ${props.cluster.id}`,
      memorySize: FunctionSizing.forwarder.memoryMb,
      timeout: Duration.millis(FunctionSizing.forwarder.timeoutMs),
      environment: { ...props.environment, [EnvVar.ForwarderCluster]: props.cluster.id },
      logRetentionDays: props.logRetentionDays,
      sourceMaps: props.sourceMaps,
    });
    if (props.cluster.accessRoleArn !== undefined) {
      forwarder.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: [props.cluster.accessRoleArn] }));
    }
    if (props.cluster.tokenSecretArn !== undefined) forwarder.role.addToPrincipalPolicy(tokenSecretStatement([props.cluster.tokenSecretArn]));
    new scheduler.Schedule(this, 'ForwarderSchedule', {
      description: `Lineup: start a forwarder watch session for cluster ${props.cluster.id}`,
      schedule: scheduler.ScheduleExpression.rate(Duration.millis(FORWARDER_SESSION_RATE_MS)),
      target: new InvokeFunction(forwarder.function, { retryAttempts: FORWARDER_SCHEDULE_RETRIES, maxEventAge: Duration.minutes(5) }),
    });
    return forwarder;
  }

  /** eksAccess: access entries (no access policies) and the Pod Identity association. */
  private eksAccess(props: LineupClusterProps): void {
    const { cluster } = props;
    const lambdaForwarder = this.forwarderFunction;
    if (cluster.accessRoleArn !== undefined) {
      // Both the reconciler and a Lambda forwarder sign as the access role, so one entry carries both groups.
      new eks.CfnAccessEntry(this, 'ReconcilerAccess', {
        clusterName: eksClusterName(cluster),
        principalArn: cluster.accessRoleArn,
        type: 'STANDARD',
        kubernetesGroups: [KubeGroup.reconciler, ...(lambdaForwarder ? [KubeGroup.forwarder] : [])],
      });
    } else {
      new eks.CfnAccessEntry(this, 'ReconcilerAccess', {
        clusterName: eksClusterName(cluster),
        principalArn: props.reconcilerRole.roleArn,
        type: 'STANDARD',
        kubernetesGroups: [KubeGroup.reconciler],
      });
      if (lambdaForwarder) {
        new eks.CfnAccessEntry(this, 'ForwarderAccess', {
          clusterName: eksClusterName(cluster),
          principalArn: lambdaForwarder.role.roleArn,
          type: 'STANDARD',
          kubernetesGroups: [KubeGroup.forwarder],
        });
      }
    }
    if (cluster.forwarder === ForwarderMode.PodIdentity && this.forwarderRole) {
      new eks.CfnPodIdentityAssociation(this, 'ForwarderPodIdentity', {
        clusterName: eksClusterName(cluster),
        namespace: KubeName.namespace,
        serviceAccount: KubeName.forwarder,
        roleArn: this.forwarderRole.roleArn,
      });
    }
  }
}
