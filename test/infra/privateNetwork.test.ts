/**
 * Private endpoints (config `vpc`): the reconciler and the resync run in the given subnets with
 * the given security groups, after the policy that lets Lambda attach them; the stack adds the
 * endpoints they call (DynamoDB gateway, EventBridge, STS and Secrets Manager only when a cluster
 * needs them), and cdk-nag finds nothing unacknowledged.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../infra/app.ts';
import { CONFIG_CONTEXT_KEY, ConfigError, parseConfig } from '../../infra/config.ts';
import type { LineupConfigInput } from '../../infra/config.ts';
import { NETWORK_INTERFACE_ACTIONS } from '../../infra/constructs/privateNetwork.ts';
import { FLEET, NO_BUNDLING, logicalIdOf, resourcesOf, statementsOfRole, synthStack } from './helpers.ts';
import type { CfnResource } from './helpers.ts';

const VPC = {
  vpcId: 'vpc-0a1b2c3d4e5f60718',
  subnetIds: ['subnet-0aaa1111bbbb2222c', 'subnet-0ddd3333eeee4444f'],
  securityGroupIds: ['sg-0123456789abcdef0'],
  routeTableIds: ['rtb-0aa11bb22cc33dd44', 'rtb-0ee55ff66aa77bb88'],
};
const TOKEN_CLUSTER = {
  id: 'onprem',
  endpoint: 'https://10.1.2.3:6443',
  caData: 'LS0tLS1CRUdJTiBDRVJU',
  tokenSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:lineup/onprem-AbCdEf',
};
const CONFIG = { clusters: [...FLEET.clusters, TOKEN_CLUSTER], vpc: VPC } satisfies LineupConfigInput;

/** endpointsByService: the template's VPC endpoints by the service their name ends with. */
const endpointsByService = (resources: Record<string, CfnResource>): Map<string, CfnResource> =>
  new Map(
    Object.values(resources).map((endpoint) => {
      const name = JSON.stringify(endpoint.Properties['ServiceName']);
      const service = /\.([a-z]+)"\]\]\}$/.exec(name)?.[1] ?? name;
      return [service, endpoint];
    }),
  );

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('private endpoints (vpc)', () => {
  const { template } = synthStack(CONFIG);
  const functions = resourcesOf(template, 'AWS::Lambda::Function');
  const byPrefix = (prefix: string): CfnResource => {
    const found = Object.entries(functions).find(([id]) => id.startsWith(prefix));
    assert.ok(found, `no function ${prefix}`);
    return found[1];
  };

  it('places the reconciler and the resync in the subnets with the security groups, and nothing else', () => {
    for (const prefix of ['Reconciler', 'Resync']) {
      assert.deepEqual(byPrefix(prefix).Properties['VpcConfig'], { SubnetIds: VPC.subnetIds, SecurityGroupIds: VPC.securityGroupIds }, prefix);
    }
    const lambdaForwarder = Object.entries(functions).find(([id]) => id.startsWith('Clusteredge1Forwarder'));
    assert.ok(lambdaForwarder);
    assert.equal(lambdaForwarder[1].Properties['VpcConfig'], undefined);
  });

  it('lets Lambda attach each of them by a policy of its own that the function is created after', () => {
    for (const prefix of ['Reconciler', 'Resync']) {
      const statements = statementsOfRole(template, `${prefix}Role`).filter((statement) => String(statement.Action).includes('ec2:'));
      assert.deepEqual(statements, [{ Action: [...NETWORK_INTERFACE_ACTIONS], Effect: 'Allow', Resource: '*' }], prefix);
      const policyId = logicalIdOf(template, 'AWS::IAM::Policy', `NetworkNetworkInterfaces${prefix}`);
      const fn = Object.entries(template.toJSON()['Resources'] as Record<string, { DependsOn?: string[] }>).find(([id]) => id.startsWith(prefix) && functions[id] !== undefined);
      assert.ok(fn?.[1].DependsOn?.includes(policyId), `${prefix} depends on ${policyId}: ${JSON.stringify(fn?.[1].DependsOn)}`);
    }
  });

  it('creates the DynamoDB gateway endpoint on the route tables and the interface endpoints the functions call, with private DNS', () => {
    const endpoints = endpointsByService(resourcesOf(template, 'AWS::EC2::VPCEndpoint'));
    assert.deepEqual([...endpoints.keys()].sort(), ['dynamodb', 'events', 'secretsmanager', 'sts']);
    const dynamo = endpoints.get('dynamodb');
    assert.equal(dynamo?.Properties['VpcEndpointType'], 'Gateway');
    assert.deepEqual(dynamo?.Properties['RouteTableIds'], VPC.routeTableIds);
    for (const service of ['events', 'secretsmanager', 'sts']) {
      const endpoint = endpoints.get(service);
      assert.equal(endpoint?.Properties['VpcEndpointType'], 'Interface', service);
      assert.equal(endpoint?.Properties['PrivateDnsEnabled'], true, service);
      assert.deepEqual(endpoint?.Properties['SubnetIds'], VPC.subnetIds, service);
      assert.deepEqual(endpoint?.Properties['SecurityGroupIds'], VPC.securityGroupIds, service);
      assert.equal(endpoint?.Properties['VpcId'], VPC.vpcId, service);
    }
  });

  it('leaves out STS without an access role and Secrets Manager without a token cluster', () => {
    const { template: eksOnly } = synthStack({ clusters: [{ id: 'a', clusterName: 'a' }], vpc: VPC });
    assert.deepEqual([...endpointsByService(resourcesOf(eksOnly, 'AWS::EC2::VPCEndpoint')).keys()].sort(), ['dynamodb', 'events']);
  });

  it('creates no endpoint with createEndpoints false (the VPC has its own), and needs no route tables then', () => {
    const { template: shared } = synthStack({ clusters: [TOKEN_CLUSTER], vpc: { ...VPC, routeTableIds: [], createEndpoints: false } });
    assert.deepEqual(resourcesOf(shared, 'AWS::EC2::VPCEndpoint'), {});
    assert.ok(Object.values(resourcesOf(shared, 'AWS::Lambda::Function')).some((fn) => fn.Properties['VpcConfig'] !== undefined));
  });

  it('puts nothing in a VPC without the option', () => {
    const { template: plain } = synthStack(FLEET);
    assert.deepEqual(resourcesOf(plain, 'AWS::EC2::VPCEndpoint'), {});
    assert.ok(Object.values(resourcesOf(plain, 'AWS::Lambda::Function')).every((fn) => fn.Properties['VpcConfig'] === undefined));
  });

  it('is cdk-nag clean: synthesis passes AwsSolutions with only the network-interface wildcard acknowledged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lineup-nag-vpc-'));
    dirs.push(dir);
    const { app } = createApp({ outdir: dir, context: { ...NO_BUNDLING, [CONFIG_CONTEXT_KEY]: CONFIG } });
    app.synth();
    const report = JSON.parse(readFileSync(join(dir, 'validation-report.json'), 'utf8')) as { pluginReports: { violations: unknown[] }[] };
    assert.deepEqual(report.pluginReports.flatMap((plugin) => plugin.violations), []);
  });

  const refused: { name: string; vpc: Record<string, unknown>; message: RegExp }[] = [
    { name: 'createEndpoints without route tables', vpc: { ...VPC, routeTableIds: [] }, message: /vpc\.routeTableIds: createEndpoints needs the subnets' routeTableIds/ },
    { name: 'no subnets', vpc: { ...VPC, subnetIds: [] }, message: /vpc\.subnetIds/ },
    { name: 'a security group that is not an id', vpc: { ...VPC, securityGroupIds: ['lineup'] }, message: /expected a security group id \(sg-…\), got "lineup"/ },
  ];
  for (const tc of refused) {
    it(`refuses ${tc.name}`, () => {
      assert.throws(() => parseConfig({ vpc: tc.vpc }, 'test'), (error: unknown) => error instanceof ConfigError && tc.message.test(error.message));
    });
  }
});
