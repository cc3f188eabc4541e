/**
 * Token clusters in the stack: a cluster reached with a bearer token kept in Secrets Manager is
 * registered with `auth: {type: 'token', tokenSecretArn}`, and the functions that talk to it may
 * read exactly the configured secrets (one statement, no wildcard).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, ForwarderMode, parseConfig } from '../../infra/config.ts';
import type { LineupConfigInput } from '../../infra/config.ts';
import { actionsOf, onlyResource, resourcesOf, statementsOfRole, synthStack } from './helpers.ts';

const SECRET_A = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:lineup/onprem-a-AbCdEf';
const SECRET_B = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:lineup/onprem-b-123456';
const CA = 'LS0tLS1CRUdJTiBDRVJU';

const CONFIG = {
  clusters: [
    { id: 'eks-a', clusterName: 'eks-a' },
    { id: 'onprem-a', endpoint: 'https://k8s-a.example.com:6443', caData: CA, tokenSecretArn: SECRET_A },
    { id: 'onprem-b', endpoint: 'https://k8s-b.example.com:6443', caData: CA, tokenSecretArn: SECRET_B, forwarder: 'lambda' },
  ],
} as const satisfies LineupConfigInput;

describe('token clusters', () => {
  const { template } = synthStack(CONFIG);

  it('defaults a token cluster to no access entries and no forwarder from the stack', () => {
    const [, a] = parseConfig(CONFIG, 'test').clusters;
    assert.equal(a?.manageAccess, false);
    assert.equal(a?.forwarder, ForwarderMode.None);
  });

  it('grants the reconciler secretsmanager:GetSecretValue on exactly the configured secrets, in one statement', () => {
    const statements = statementsOfRole(template, 'ReconcilerRole').filter((statement) => actionsOf(statement).some((action) => action.startsWith('secretsmanager:')));
    assert.deepEqual(statements, [{ Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: [SECRET_A, SECRET_B] }]);
  });

  it("grants a token cluster's Lambda forwarder its own secret only", () => {
    const statements = statementsOfRole(template, 'ClusteronprembForwarderRole').filter((statement) => actionsOf(statement).some((action) => action.startsWith('secretsmanager:')));
    assert.deepEqual(statements, [{ Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: SECRET_B }]);
  });

  it('grants no identity any other Secrets Manager action or secret', () => {
    const statements = Object.values(resourcesOf(template, 'AWS::IAM::Policy')).flatMap(
      (policy) => (policy.Properties['PolicyDocument'] as { Statement: { Action: string | string[]; Resource?: unknown }[] }).Statement,
    );
    const secretActions = statements.flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action])).filter((action) => action.startsWith('secretsmanager:'));
    assert.deepEqual([...new Set(secretActions)], ['secretsmanager:GetSecretValue']);
  });

  it('registers a token cluster with its secret, endpoint and CA, asking EKS nothing for it', () => {
    const registration = JSON.stringify(onlyResource(template, 'Custom::LineupClusterRegistration', 'ClusteronpremaRegistration').Properties['Create']);
    for (const expected of ['\\"type\\":{\\"S\\":\\"token\\"}', SECRET_A, 'https://k8s-a.example.com:6443', CA]) assert.ok(registration.includes(expected), `registry item lacks ${expected}: ${registration}`);
    template.resourceCountIs('Custom::LineupEksEndpoint', 1);
    const entries = Object.values(resourcesOf(template, 'AWS::EKS::AccessEntry')).map((entry) => entry.Properties['ClusterName']);
    assert.deepEqual([...new Set(entries)], ['eks-a']);
  });

  it('grants nothing of Secrets Manager to a stack without token clusters', () => {
    const { template: eksOnly } = synthStack({ clusters: [{ id: 'eks-a', clusterName: 'eks-a' }] });
    assert.ok(!JSON.stringify(eksOnly.toJSON()).includes('secretsmanager:'));
  });

  const refused: { name: string; cluster: Record<string, unknown>; message: RegExp }[] = [
    { name: 'a cluster with neither clusterName nor tokenSecretArn', cluster: { id: 'x' }, message: /an EKS cluster needs clusterName \(or a token cluster tokenSecretArn\), got neither \(cluster x\)/ },
    { name: 'a token cluster without endpoint', cluster: { id: 'x', tokenSecretArn: SECRET_A }, message: /a token cluster needs endpoint and caData .*got no endpoint/ },
    { name: 'a token cluster with manageAccess', cluster: { id: 'x', endpoint: 'https://k.example.com', caData: CA, tokenSecretArn: SECRET_A, manageAccess: true }, message: /got manageAccess true/ },
    { name: 'a token cluster with a pod-identity forwarder', cluster: { id: 'x', endpoint: 'https://k.example.com', caData: CA, tokenSecretArn: SECRET_A, forwarder: 'pod-identity' }, message: /forwarder is none or lambda/ },
    { name: 'a secret named without its ARN suffix', cluster: { id: 'x', endpoint: 'https://k.example.com', caData: CA, tokenSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:lineup/onprem' }, message: /expected a Secrets Manager secret's full ARN/ },
  ];
  for (const tc of refused) {
    it(`refuses ${tc.name}`, () => {
      assert.throws(() => parseConfig({ clusters: [tc.cluster] }, 'test'), (error: unknown) => error instanceof ConfigError && tc.message.test(error.message));
    });
  }
});
