/**
 * cdk-nag AwsSolutions over the whole app (every cluster form): no finding is left
 * unacknowledged, every acknowledgement (infra/nag.ts) carries its reason, and each one is
 * still needed — without them, cdk-nag reports exactly the acknowledged findings.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createApp } from '../../infra/app.ts';
import { CONFIG_CONTEXT_KEY, parseConfig } from '../../infra/config.ts';
import { NAG_ACKNOWLEDGEMENTS } from '../../infra/nag.ts';
import { LineupStack } from '../../infra/stack.ts';
import { FLEET, NO_BUNDLING } from './helpers.ts';

interface ValidationReport {
  readonly pluginReports: {
    readonly pluginName: string;
    readonly conclusion: string;
    readonly violations: { readonly ruleName: string; readonly violatingConstructs: { readonly constructPath: string }[] }[];
  }[];
}

const dirs: string[] = [];
const outdir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'lineup-nag-'));
  dirs.push(dir);
  return dir;
};
const report = (dir: string): ValidationReport => JSON.parse(readFileSync(join(dir, 'validation-report.json'), 'utf8')) as ValidationReport;
/** findings: `rule path` for every violation, the path relative to the stack and without the L1 `Resource` leaf. */
const findings = (validation: ValidationReport): string[] =>
  validation.pluginReports
    .flatMap((plugin) => plugin.violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} ${c.constructPath.replace(/^Lineup\//, '').replace(/\/Resource$/, '')}`)))
    .sort();

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged finding for a fleet of every cluster form', () => {
    // Prepare
    const dir = outdir();
    const { app } = createApp({ outdir: dir, context: { ...NO_BUNDLING, [CONFIG_CONTEXT_KEY]: FLEET } });
    // Act: synth throws when a plugin reports a violation.
    app.synth();
    // Assess
    assert.deepEqual(findings(report(dir)), []);
  });

  it('reports no unacknowledged finding for the stack without clusters', () => {
    const dir = outdir();
    createApp({ outdir: dir, context: { ...NO_BUNDLING } }).app.synth();
    assert.deepEqual(findings(report(dir)), []);
  });

  it('runs the checks on the app createApp builds: an unacknowledged finding fails its synthesis', () => {
    // Without this, the two tests above would pass on an app that never ran cdk-nag: its
    // report lists no plugin when nothing is found.
    const dir = outdir();
    const { app, stack } = createApp({ outdir: dir, context: { ...NO_BUNDLING } });
    new sqs.Queue(stack, 'Unacknowledged');
    assert.throws(() => app.synth(), /Validation failed/);
    const unacknowledged = findings(report(dir)).filter((finding) => finding.endsWith(' Unacknowledged'));
    assert.deepEqual(unacknowledged, ['AwsSolutions-SQS3 Unacknowledged', 'AwsSolutions-SQS4 Unacknowledged']);
  });

  it('gives every acknowledgement a rule id and a reason', () => {
    for (const ack of NAG_ACKNOWLEDGEMENTS) {
      assert.match(ack.id, /^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      assert.ok(ack.reason.length >= 60, `${ack.id} on ${ack.path}: the reason must say why, got ${JSON.stringify(ack.reason)}`);
    }
  });

  it('needs every acknowledgement: without them cdk-nag reports exactly those findings', () => {
    // Prepare: the same app, without infra/nag.ts.
    const dir = outdir();
    const app = new App({ outdir: dir, context: NO_BUNDLING });
    new LineupStack(app, 'Lineup', { config: parseConfig(FLEET, 'test') });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    assert.throws(() => app.synth(), /Validation failed/);
    // Assess
    assert.deepEqual(findings(report(dir)), NAG_ACKNOWLEDGEMENTS.map((ack) => `${ack.id} ${ack.path}`).sort());
  });
});
