/**
 * PrivateNetwork: the reconciler and the resync in a VPC (infra/config.ts `vpc`), for clusters
 * whose API endpoint is private and for accounts where functions may not use Lambda's own
 * network. Children:
 * - `NetworkInterfaces-<function>`: the policy that lets Lambda create the function's network
 *   interfaces in the subnets (what the managed AWSLambdaVPCAccessExecutionRole grants, written
 *   out so no managed policy is attached); the function is created only after it;
 * - with createEndpoints, the VPC endpoints the two functions call, and no others:
 *   `DynamoDbEndpoint` (gateway, on the subnets' route tables: both read and write the table),
 *   `EventsEndpoint` (interface: the resync puts Sync events on the bus), `StsEndpoint`
 *   (interface, only when a cluster names accessRoleArn: the reconciler assumes it; an EKS token
 *   itself is signed locally and calls nothing), `SecretsManagerEndpoint` (interface, only with
 *   token clusters: their bearer tokens). The clusters' API servers are reached at their own
 *   (private) endpoints. The SQS queue needs none: Lambda's event source polls it, not the function.
 */
import { Aws } from 'aws-cdk-lib';
import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { VpcConfig } from '../config.ts';
import type { LineupFunction } from './lineupFunction.ts';

/** NETWORK_INTERFACE_ACTIONS: what Lambda needs to attach a function to a VPC (AWS's AWSLambdaVPCAccessExecutionRole). */
export const NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/** InterfaceEndpointService: the services an interface endpoint may be created for, by construct id. */
export const InterfaceEndpointService = {
  EventsEndpoint: 'events',
  StsEndpoint: 'sts',
  SecretsManagerEndpoint: 'secretsmanager',
} as const;
export type InterfaceEndpointId = keyof typeof InterfaceEndpointService;

/** PrivateNetworkProps: the subnets, the functions placed in them, and which interface endpoints they call. */
export interface PrivateNetworkProps {
  readonly vpc: VpcConfig;
  /** Functions by a name used in construct ids (`Reconciler`, `Resync`). */
  readonly functions: Readonly<Record<string, LineupFunction>>;
  readonly interfaceEndpoints: readonly InterfaceEndpointId[];
}

/** PrivateNetwork: see the file comment. */
export class PrivateNetwork extends Construct {
  readonly endpoints: ReadonlyMap<string, ec2.CfnVPCEndpoint>;

  constructor(scope: Construct, id: string, props: PrivateNetworkProps) {
    super(scope, id);
    const { vpc } = props;
    for (const [name, fn] of Object.entries(props.functions)) this.place(name, fn, vpc);
    const endpoints = new Map<string, ec2.CfnVPCEndpoint>();
    if (vpc.createEndpoints) {
      endpoints.set(
        'DynamoDbEndpoint',
        new ec2.CfnVPCEndpoint(this, 'DynamoDbEndpoint', {
          vpcId: vpc.vpcId,
          serviceName: `com.amazonaws.${Aws.REGION}.dynamodb`,
          vpcEndpointType: 'Gateway',
          routeTableIds: [...vpc.routeTableIds],
        }),
      );
      for (const endpointId of props.interfaceEndpoints) {
        endpoints.set(
          endpointId,
          new ec2.CfnVPCEndpoint(this, endpointId, {
            vpcId: vpc.vpcId,
            serviceName: `com.amazonaws.${Aws.REGION}.${InterfaceEndpointService[endpointId]}`,
            vpcEndpointType: 'Interface',
            // The SDK calls the service's usual name; private DNS answers it with the endpoint.
            privateDnsEnabled: true,
            subnetIds: [...vpc.subnetIds],
            securityGroupIds: [...vpc.securityGroupIds],
          }),
        );
      }
    }
    this.endpoints = endpoints;
  }

  /** place: the function's VpcConfig, and the network-interface policy it is created after. */
  private place(name: string, fn: LineupFunction, vpc: VpcConfig): void {
    const cfn = fn.function.node.defaultChild as lambda.CfnFunction;
    cfn.vpcConfig = { subnetIds: [...vpc.subnetIds], securityGroupIds: [...vpc.securityGroupIds] };
    const policy = new iam.Policy(this, `NetworkInterfaces-${name}`, {
      roles: [fn.role],
      // Describe* takes no resource, and Lambda creates the interfaces under its own names: '*' is what AWS documents.
      statements: [new iam.PolicyStatement({ actions: [...NETWORK_INTERFACE_ACTIONS], resources: ['*'] })],
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Lambda needs these EC2 actions to attach the function to its VPC subnets (the AWSLambdaVPCAccessExecutionRole managed policy grants the same on *): the Describe actions take no resource, and the interfaces get names Lambda chooses.',
    });
    // CreateFunction checks that the role may create the interfaces, so the policy must exist first.
    fn.function.node.addDependency(policy);
  }
}
