/**
 * Fleet isolation in the synthesized template (docs/security.md): in a stack with a forwarder of every
 * kind — an EKS cluster with the Pod Identity forwarder, one with the Lambda forwarder, one with
 * IRSA, a token cluster with its Lambda forwarder — and a partner account's forwarder role, no
 * forwarder or partner grant can write an item that the stack's registration, `lineup clusters add`
 * or the reconciler writes (a registry entry, a heartbeat, a JobSet's state or journal), and every
 * forwarder grant that writes is held by dynamodb:LeadingKeys to that forwarder's own
 * `FORWARDER#<id>` key. Every table grant of the template is read here, not only the ones
 * Lineup's code means to add, so a grant added later by anything is judged the same way.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../infra/config.ts';
import type { LineupConfigInput } from '../../infra/config.ts';
import { KeyPart, BOOKMARK_ATTRIBUTES, clusterPk, forwarderPk, jobSetPk } from '../../lib/store/table.ts';
import { actionsOf, synthStack } from './helpers.ts';
import type { PolicyStatementJson } from './helpers.ts';

const CA = 'LS0tLS1CRUdJTiBDRVJU';
const PARTNER_ROLE = 'arn:aws:iam::210987654321:role/lineup-forwarder';
const CONFIG = {
  clusters: [
    { id: 'pods', clusterName: 'pods-eks' },
    { id: 'lam', clusterName: 'lam-eks', forwarder: 'lambda', endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', caData: CA },
    { id: 'irsa', clusterName: 'irsa-eks', forwarder: 'irsa', oidcProviderArn: 'arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/ABCDEF0123' },
    { id: 'onprem', endpoint: 'https://k8s.onprem.example.com:6443', caData: CA, tokenSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:lineup/onprem-AbCdEf', forwarder: 'lambda' },
    {
      id: 'partner',
      clusterName: 'partner-eks',
      region: 'eu-west-1',
      endpoint: 'https://DEF.gr7.eu-west-1.eks.amazonaws.com',
      caData: CA,
      manageAccess: false,
      forwarder: 'none',
      accessRoleArn: 'arn:aws:iam::210987654321:role/lineup-access',
      forwarderRoleArns: [PARTNER_ROLE],
    },
  ],
} as const satisfies LineupConfigInput;
const IDS = CONFIG.clusters.map((cluster) => cluster.id);
/** Clusters whose forwarder role the stack creates (the partner's lives in its own account). */
const STACK_FORWARDERS = ['pods', 'lam', 'irsa', 'onprem'] as const;

const { template } = synthStack(CONFIG);
const resources = template.toJSON()['Resources'] as Record<string, { Type: string; Properties: Record<string, unknown> }>;

/** DynamoDB actions that change an item (or that could: wildcards and PartiQL). */
const isWrite = (action: string): boolean =>
  /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems|PartiQL(Insert|Update|Delete)|\*|.*\*.*)$/.test(action) || action === '*';
const isDynamo = (action: string): boolean => action === '*' || action.startsWith('dynamodb:');

/** A DynamoDB grant and whose it is. */
interface Grant {
  readonly who: string;
  readonly statement: PolicyStatementJson;
}

/** rolesOfPolicy: the logical ids of the roles a policy is attached to. */
const rolesOfPolicy = (properties: Record<string, unknown>): string[] => ((properties['Roles'] ?? []) as { Ref?: string }[]).map((role) => role.Ref ?? JSON.stringify(role));

/** identityGrants: every DynamoDB statement of every identity policy, by the role it is attached to. */
const identityGrants = (): Grant[] =>
  Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .flatMap((policy) =>
      (policy.Properties['PolicyDocument'] as { Statement: PolicyStatementJson[] }).Statement.filter((statement) => actionsOf(statement).some(isDynamo)).flatMap((statement) =>
        rolesOfPolicy(policy.Properties).map((who) => ({ who, statement })),
      ),
    );

/** tableGrants: every statement of the table's resource policy, by principal ARN. */
const tableGrants = (): Grant[] => {
  const [table] = Object.values(resources).filter((resource) => resource.Type === 'AWS::DynamoDB::Table');
  const statements = ((table?.Properties['ResourcePolicy'] as { PolicyDocument: { Statement: PolicyStatementJson[] } } | undefined)?.PolicyDocument.Statement ?? []);
  return statements.flatMap((statement) => {
    const principal = (statement.Principal as { AWS?: string | string[] } | undefined)?.AWS;
    return (Array.isArray(principal) ? principal : [principal ?? JSON.stringify(statement.Principal)]).map((who) => ({ who, statement }));
  });
};

/** forwarderOf: the cluster id whose forwarder `who` is (a stack forwarder role's logical id, or a partner role ARN), if any. */
const forwarderOf = (who: string): string | undefined => {
  for (const id of STACK_FORWARDERS) if (who.startsWith(`Cluster${id.replace(/[^A-Za-z0-9]/g, '')}ForwarderRole`)) return id;
  return CONFIG.clusters.find((cluster) => (cluster as { forwarderRoleArns?: readonly string[] }).forwarderRoleArns?.includes(who))?.id;
};

/** leadingKeysOf: the partition keys a statement's conditions let it touch: undefined when nothing holds it to some. */
const leadingKeysOf = (statement: PolicyStatementJson): { readonly operator: string; readonly keys: readonly string[] } | undefined => {
  for (const [operator, keys] of Object.entries(statement.Condition ?? {})) {
    const value = keys['dynamodb:LeadingKeys'];
    if (value !== undefined) return { operator, keys: Array.isArray(value) ? (value as string[]) : [String(value)] };
  }
  return undefined;
};

/** globMatches: IAM StringLike matching (`*` any run, `?` one character). */
const globMatches = (pattern: string, value: string): boolean =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`).test(value);

/** mayTouch: whether the statement's LeadingKeys condition lets it name partition key `pk` (every key, when it has none). */
const mayTouch = (statement: PolicyStatementJson, pk: string): boolean => {
  const leading = leadingKeysOf(statement);
  if (leading === undefined) return true;
  if (!leading.operator.startsWith('ForAllValues:')) return true; // a single-valued or ForAnyValue operator does not bound every key named
  const like = leading.operator.endsWith('StringLike');
  if (!like && !leading.operator.endsWith('StringEquals')) return true;
  return leading.keys.some((key) => (like ? globMatches(key, pk) : key === pk));
};

/** flatten: a template string value, its deploy-time tokens (an Fn::Join's non-string parts) as `TOKEN`. */
const flatten = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
  if (join === undefined) throw new Error(`expected a string or an Fn::Join, got ${JSON.stringify(value)}`);
  return join[1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join(join[0]);
};

/** registeredKeys: the partition keys the stack's registration writes (read from the custom resources' PutItem calls). */
const registeredKeys = (): string[] =>
  Object.values(resources)
    .filter((resource) => resource.Type === 'Custom::LineupClusterRegistration')
    .map((resource) => {
      const call = JSON.parse(flatten(resource.Properties['Create'])) as { parameters: { Item: Record<string, { S?: string }> } };
      return String(call.parameters.Item['pk']?.S);
    });

/**
 * PROTECTED_KEYS: every partition key of an item a forwarder must not write: the registry entries
 * (the stack's registration and `lineup clusters add`) and heartbeats (the reconciler) under
 * CLUSTER#<id>, and JobSet state and journal items (the reconciler) under JOBSET#<cluster>#…,
 * for every cluster, its own included; and every other forwarder's bookmarks.
 */
const protectedKeys = (forwarder: string): string[] => [
  ...IDS.map(clusterPk),
  ...IDS.map((id) => jobSetPk({ cluster: id, namespace: 'default', name: 'js' })),
  ...IDS.filter((id) => id !== forwarder).map(forwarderPk),
  `${KeyPart.cluster}not-yet-added`,
  `${KeyPart.jobSet}${forwarder}`,
];

describe('fleet isolation in the template', () => {
  const grants = [...identityGrants(), ...tableGrants()];
  const forwarderGrants = grants.filter((grant) => forwarderOf(grant.who) !== undefined);

  it('finds the table grants of every forwarder: Pod Identity, Lambda, IRSA, the token cluster\'s Lambda, and the partner account', () => {
    assert.deepEqual([...new Set(forwarderGrants.map((grant) => forwarderOf(grant.who)))].sort(), ['irsa', 'lam', 'onprem', 'partner', 'pods']);
    // The registration writes exactly the clusters' CLUSTER#<id> keys (what `lineup clusters add` writes too).
    assert.deepEqual(registeredKeys().sort(), IDS.map(clusterPk).sort());
  });

  it('grants DynamoDB to no principal but the reconciler, the resync, the registry writer and each forwarder', () => {
    const known = (who: string) => /^(ReconcilerRole|ResyncRole|RegistryWriterRole)/.test(who) || forwarderOf(who) !== undefined;
    assert.deepEqual(grants.filter((grant) => !known(grant.who)).map((grant) => grant.who), []);
  });

  it('lets no forwarder or partner grant write a registry entry, heartbeat, JobSet state or journal item, or another forwarder\'s bookmark', () => {
    for (const { who, statement } of forwarderGrants) {
      const forwarder = forwarderOf(who) ?? '';
      if (!actionsOf(statement).some(isWrite)) continue;
      assert.equal(statement.Effect, 'Allow');
      const reachable = [...protectedKeys(forwarder), ...registeredKeys()].filter((pk) => mayTouch(statement, pk));
      assert.deepEqual(reachable, [], `${who} may write under ${reachable.join(', ')}: ${JSON.stringify(statement)}`);
    }
  });

  it("holds every forwarder write grant to the forwarder's own FORWARDER#<id> key and the bookmark's attributes, on the table only", () => {
    const writes = forwarderGrants.filter(({ statement }) => actionsOf(statement).some(isWrite));
    assert.deepEqual([...new Set(writes.map((grant) => forwarderOf(grant.who)))].sort(), ['irsa', 'lam', 'onprem', 'partner', 'pods'], 'every forwarder writes its bookmarks');
    for (const { who, statement } of writes) {
      const forwarder = forwarderOf(who) ?? '';
      assert.deepEqual(actionsOf(statement), ['dynamodb:PutItem'], who);
      assert.deepEqual(statement.Condition, { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [forwarderPk(forwarder)], 'dynamodb:Attributes': [...BOOKMARK_ATTRIBUTES] } }, who);
      const resource = JSON.stringify(statement.Resource);
      assert.ok(resource === '"*"' ? who.startsWith('arn:') : /^\{"Fn::GetAtt":\["Table[0-9A-F]+","Arn"\]\}$/.test(resource), `${who}: ${resource}`);
    }
  });

  it("lets a forwarder read only its own bookmarks, and a Lambda watch session its own registry entry (read only)", () => {
    for (const { who, statement } of forwarderGrants) {
      const forwarder = forwarderOf(who) ?? '';
      if (actionsOf(statement).some(isWrite)) continue;
      assert.deepEqual(actionsOf(statement), ['dynamodb:GetItem'], who);
      const lambda = forwarder === 'lam' || forwarder === 'onprem';
      const allowed = lambda ? [forwarderPk(forwarder), clusterPk(forwarder)] : [forwarderPk(forwarder)];
      const keys = leadingKeysOf(statement);
      assert.equal(keys?.operator, 'ForAllValues:StringEquals', who);
      assert.equal(keys.keys.length, 1, who);
      assert.ok(allowed.includes(keys.keys[0] ?? ''), `${who} reads under ${keys.keys.join(', ')}`);
    }
  });

  it('holds each Pod Identity role to the stack account, its EKS cluster and the forwarder\'s ServiceAccount (aws:SourceAccount and Pod Identity\'s session tags)', () => {
    const roles = Object.entries(resources).filter(([id, resource]) => resource.Type === 'AWS::IAM::Role' && id.startsWith('ClusterpodsForwarderRole'));
    assert.equal(roles.length, 1);
    const [statement] = (roles[0]?.[1].Properties['AssumeRolePolicyDocument'] as { Statement: PolicyStatementJson[] }).Statement;
    assert.deepEqual(statement?.Principal, { Service: 'pods.eks.amazonaws.com' });
    const equals = statement?.Condition?.['StringEquals'] ?? {};
    assert.deepEqual(equals['aws:SourceAccount'], { Ref: 'AWS::AccountId' });
    assert.match(JSON.stringify(equals['aws:RequestTag/eks-cluster-arn']), /":eks:",\{"Ref":"AWS::Region"\},":",\{"Ref":"AWS::AccountId"\},":cluster\/pods-eks"/);
    assert.deepEqual([equals['aws:RequestTag/kubernetes-namespace'], equals['aws:RequestTag/kubernetes-service-account']], ['lineup', 'lineup-forwarder']);
  });

  it('leaves the other table writes to the reconciler and the registry writer, which is held to CLUSTER# keys', () => {
    const writers = grants.filter(({ who, statement }) => forwarderOf(who) === undefined && actionsOf(statement).some(isWrite));
    for (const { who, statement } of writers) {
      if (who.startsWith('ReconcilerRole')) continue; // the reconciler writes heartbeats, state and the journal
      assert.match(who, /^RegistryWriterRole/);
      assert.deepEqual(leadingKeysOf(statement), { operator: 'ForAllValues:StringLike', keys: [`${KeyPart.cluster}*`] });
      assert.ok(!mayTouch(statement, forwarderPk('pods')) && !mayTouch(statement, jobSetPk({ cluster: 'pods', namespace: 'ns', name: 'js' })));
    }
  });
});

// The configuration really has the forwarder kinds the header names.
const parsed = parseConfig(CONFIG, 'test');
assert.deepEqual(
  parsed.clusters.map((cluster) => [cluster.id, cluster.forwarder, cluster.tokenSecretArn !== undefined]),
  [
    ['pods', 'pod-identity', false],
    ['lam', 'lambda', false],
    ['irsa', 'irsa', false],
    ['onprem', 'lambda', true],
    ['partner', 'none', false],
  ],
);
