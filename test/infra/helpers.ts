/** Shared set-up of the infra tests: stacks synthesized without bundling, and a fleet covering every cluster form. */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { parseConfig } from '../../infra/config.ts';
import type { LineupConfigInput } from '../../infra/config.ts';
import { LineupStack } from '../../infra/stack.ts';

/** NO_BUNDLING: CDK context that skips esbuild (the assets are placeholders); synth.process.test.ts bundles for real. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] } as const;

/** FLEET: one cluster of each form the configuration allows. */
export const FLEET = {
  clusters: [
    // Pod Identity forwarder, endpoint read from EKS at deploy time.
    { id: 'prod-a', clusterName: 'prod-a' },
    // IRSA forwarder.
    { id: 'prod-b', clusterName: 'prod-b-eks', forwarder: 'irsa', oidcProviderArn: 'arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/ABCDEF0123' },
    // Lambda watch session, endpoint and CA given.
    { id: 'edge-1', clusterName: 'edge-1', forwarder: 'lambda', endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', caData: 'LS0tLS1CRUdJTiBDRVJU' },
    // Another account: no access entries here, its own forwarder role, a role to sign as.
    {
      id: 'partner',
      clusterName: 'partner-eks',
      region: 'eu-west-1',
      endpoint: 'https://DEF.gr7.eu-west-1.eks.amazonaws.com',
      caData: 'LS0tLS1CRUdJTiBDRVJU',
      manageAccess: false,
      forwarder: 'none',
      accessRoleArn: 'arn:aws:iam::210987654321:role/lineup-access',
      forwarderRoleArns: ['arn:aws:iam::210987654321:role/lineup-forwarder'],
    },
  ],
} as const satisfies LineupConfigInput;

/** synthStack: LineupStack for `config`, without bundling, and its template. */
export const synthStack = (config: LineupConfigInput = {}): { stack: LineupStack; template: Template } => {
  const app = new App({ context: NO_BUNDLING });
  const parsed = parseConfig(config, 'test');
  const stack = new LineupStack(app, parsed.stackName, { config: parsed });
  return { stack, template: Template.fromStack(stack) };
};

/** CfnResource: a template resource as the tests read it. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

/** resourcesOf: the template's resources of one type, by logical id. */
export const resourcesOf = (template: Template, type: string): Record<string, CfnResource> => template.findResources(type) as Record<string, CfnResource>;

/** onlyResource: the single resource of a type whose logical id starts with `prefix`. */
export const onlyResource = (template: Template, type: string, prefix: string): CfnResource => {
  const matches = Object.entries(resourcesOf(template, type)).filter(([id]) => id.startsWith(prefix));
  if (matches.length !== 1) throw new Error(`expected one ${type} whose logical id starts with ${prefix}, found ${matches.map(([id]) => id).join(', ') || 'none'}`);
  const [, resource] = matches[0] as [string, CfnResource];
  return resource;
};

/** logicalIdOf: the single logical id of a type starting with `prefix`. */
export const logicalIdOf = (template: Template, type: string, prefix: string): string => {
  const ids = Object.keys(resourcesOf(template, type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1 || ids[0] === undefined) throw new Error(`expected one ${type} whose logical id starts with ${prefix}, found ${ids.join(', ') || 'none'}`);
  return ids[0];
};

/** PolicyStatementJson: an IAM statement as synthesized. */
export interface PolicyStatementJson {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource?: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
  readonly Principal?: unknown;
}

/** statementsOfRole: every statement of the AWS::IAM::Policy resources attached to the role whose logical id starts with `rolePrefix`. */
export const statementsOfRole = (template: Template, rolePrefix: string): PolicyStatementJson[] => {
  const roleId = logicalIdOf(template, 'AWS::IAM::Role', rolePrefix);
  return Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties['Roles'] as { Ref?: string }[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => (policy.Properties['PolicyDocument'] as { Statement: PolicyStatementJson[] }).Statement);
};

/** actionsOf: a statement's actions as a list. */
export const actionsOf = (statement: PolicyStatementJson): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);
