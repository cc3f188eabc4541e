/**
 * InvokeFunction: Scheduler's LambdaInvoke target, granting its role lambda:InvokeFunction on
 * the function's unqualified ARN only. LambdaInvoke grants through IFunction.grantInvoke, which
 * adds `<arn>:*` (every version and alias) — a wildcard Scheduler never needs, since it invokes
 * the unqualified function.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { ScheduleTargetBaseProps } from 'aws-cdk-lib/aws-scheduler-targets';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';

/** InvokeFunction: a LambdaInvoke whose role may invoke exactly this function. */
export class InvokeFunction extends schedulerTargets.LambdaInvoke {
  private readonly invoked: lambda.IFunction;

  constructor(func: lambda.IFunction, props: ScheduleTargetBaseProps = {}) {
    super(func, props);
    this.invoked = func;
  }

  protected override addTargetActionToRole(role: iam.IRole): void {
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.invoked.functionArn] }));
  }
}
