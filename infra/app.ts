/**
 * The CDK app: `npx aws-cdk@<v> deploy --app "node infra/app.ts"` (cdk.json says the same), or
 * `npm run synth` (infra/synth.ts). Configuration comes from context `lineup:config` or the
 * file named by `lineup:configFile` (infra/config.ts). cdk-nag's AwsSolutions checks run on
 * every synthesis; a finding not acknowledged in infra/nag.ts fails it.
 */
import { App, Validations } from 'aws-cdk-lib';
import type { AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { configFromContext } from './config.ts';
import { acknowledgeNagFindings } from './nag.ts';
import { LineupStack } from './stack.ts';

/** LineupApp: the app and its one stack. */
export interface LineupApp {
  readonly app: App;
  readonly stack: LineupStack;
}

/**
 * createApp: the app with LineupStack and the cdk-nag checks. Tests pass `context` (and
 * `aws:cdk:bundling-stacks: []` to skip bundling); the CLI passes its context through the
 * environment, which App reads itself.
 *
 * @example
 * const { app } = createApp({ context: { 'lineup:config': { clusters: [{ id: 'prod', clusterName: 'prod' }] } } });
 * app.synth();
 */
export const createApp = (props: AppProps = {}): LineupApp => {
  const app = new App(props);
  const config = configFromContext((key) => app.node.tryGetContext(key) as unknown);
  const stack = new LineupStack(app, config.stackName, { config });
  acknowledgeNagFindings(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
};

if (import.meta.main) createApp().app.synth();
