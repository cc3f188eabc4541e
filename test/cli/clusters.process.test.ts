/**
 * `lineup clusters list | add | remove | status` through the CLI's main() against a state
 * directory that a whole `lineup demo --state-dir` run kept (its clock started at a fixed time):
 * the demo's heartbeat (its forwarder's newest checkpoint), lag, last hour and startups as of a
 * time within its virtual clock, the JSON shape, and watched/unwatched exit codes. Then a demo
 * whose clock started at the wall clock's now, as `lineup demo` starts it: status right after
 * calls its cluster watched. The command's help and `add`'s refusals: clusters.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runDemoCommand } from '../../lib/cli/demo.ts';
import { HEARTBEAT_INTERVAL_MS } from '../../lib/forwarder/heartbeat.ts';
import type { CliIo } from '../../lib/cli/io.ts';
import { runCli, type CliRun } from './inProcess.ts';

const CA = fileURLToPath(new URL('../fixtures/cluster-ca.pem', import.meta.url));
const EKS_ARN = 'arn:aws:eks:eu-west-1:123456789012:cluster/prod';
const STORY2 = fileURLToPath(new URL('../../examples/story2-messagequeue-driver-worker.yaml', import.meta.url));

/** demoStartedAt: `lineup demo STORY2 --speed 0 --state-dir stateDir` with its virtual clock started at `startedAt`. */
const demoStartedAt = async (stateDir: string, startedAt: number): Promise<CliRun> => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), readFile: (path) => readFileSync(path, 'utf8') };
  const code = await runDemoCommand([STORY2], { speed: '0', stateDir }, io, () => startedAt);
  return { code, stdout: out.join(''), stderr: err.join('') };
};

/** firstPassAt: epoch ms of the first journaled pass of the story 2 JobSet in `stateDir`. */
const firstPassAt = async (stateDir: string): Promise<number> => {
  const history = await runCli(['history', 'local/default/messagequeue-driver-worker', '--state-dir', stateDir, '--output', 'json']);
  assert.equal(history.code, 0, history.stderr);
  return Date.parse((JSON.parse(history.stdout) as { passes: { at: string }[] }).passes[0]?.at ?? '');
};

describe('lineup clusters', () => {
  describe("against lineup demo --state-dir's state", () => {
    let scratch = '';
    let stateDir = '';

    before(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'lineup-clusters-'));
      stateDir = join(scratch, 'D');
      // A fixed start, so the times below are known.
      const demo = await demoStartedAt(stateDir, Date.parse('2026-01-01T00:00:00Z'));
      assert.equal(demo.code, 0, demo.stderr);
    });

    after(() => rmSync(scratch, { recursive: true, force: true }));

    /** journaledBy: the passes the demo's journal holds up to `at` (what status counts as the last hour's passes). */
    const journaledBy = async (at: string): Promise<number> => {
      const history = await runCli(['history', 'local/default/messagequeue-driver-worker', '--state-dir', stateDir, '--output', 'json']);
      assert.equal(history.code, 0, history.stderr);
      const passes = (JSON.parse(history.stdout) as { passes: { at: string }[] }).passes;
      return passes.filter((pass) => Date.parse(pass.at) <= Date.parse(at)).length;
    };

    it('status as of a moment in the startup: watched, its lag, the last hour, and the JobSet starting since its first pass', async () => {
      const run = await runCli(['clusters', 'status', '--state-dir', stateDir, '--at', '2026-01-01T00:00:01.500Z']);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.split('\n');
      assert.equal(lines[0], `${stateDir} at 2026-01-01T00:00:01.500Z`);
      assert.match(lines[1] ?? '', /^local {2}token {2}watched: heartbeat 0s ago \(a checkpoint at least every 2m\); lag 0s \(newest bookmark 2026-01-01T00:00:\d\d\.000Z\)$/);
      const passes = await journaledBy('2026-01-01T00:00:01.500Z');
      assert.ok(passes > 0, 'the demo journaled passes by then');
      assert.match(lines[2] ?? '', new RegExp(`^ {2}last hour: \\d+ events, ${passes} passes, 0 errors; 1 jobsets, 0 failing$`));
      assert.equal(lines[3], '  starting now: 1, the oldest default/messagequeue-driver-worker since 2026-01-01T00:00:00.000Z (2s)');
    });

    it('status --output json: the documented shape; after the startup nothing is starting', async () => {
      const run = await runCli(['clusters', 'status', 'local', '--state-dir', stateDir, '--at', '2026-01-01T00:01:00Z', '--output', 'json']);
      assert.equal(run.code, 0, run.stderr);
      const report = JSON.parse(run.stdout) as Record<string, unknown> & { clusters: Record<string, unknown>[] };
      assert.deepEqual(Object.keys(report), ['format', 'source', 'at', 'missingAfterMs', 'clusters']);
      assert.equal(report['format'], 'lineup.dev/clusters-status/v1');
      assert.equal(report['missingAfterMs'], 300_000);
      const [local] = report.clusters;
      assert.deepEqual(
        { ...local, heartbeat: { ...(local?.['heartbeat'] as object), sentAt: 0, receivedAt: 0, ageMs: 0 }, lag: undefined, lastHour: undefined },
        {
          id: 'local',
          auth: 'token',
          endpoint: 'https://simulated.invalid',
          watch: 'watched',
          heartbeat: { sentAt: 0, receivedAt: 0, ageMs: 0, intervalMs: HEARTBEAT_INTERVAL_MS },
          lag: undefined,
          lastHour: undefined,
          jobSets: 1,
          failing: 0,
          starting: { count: 0, jobSets: [] },
        },
      );
      assert.deepEqual(local?.['lastHour'], { events: (local?.['lastHour'] as { events: number }).events, passes: await journaledBy('2026-01-01T00:01:00Z'), errors: 0 });
    });

    it('status hours after the demo: its heartbeat is long past, so the cluster is unwatched (exit 1); --missing-after decides how long is too long', async () => {
      const later = await runCli(['clusters', 'status', '--state-dir', stateDir, '--at', '2026-01-01T08:00:00Z']);
      assert.equal(later.code, 1, later.stderr);
      assert.match(later.stdout, /\nlocal {2}token {2}UNWATCHED: no heartbeat for 7h59m\d+s \(missing after 5m\), the last checkpoint written 2026-01-01T00:00:\d\d\.000Z; the resync polls its jobsets; lag /);
      const strict = await runCli(['clusters', 'status', '--state-dir', stateDir, '--at', '2026-01-01T00:02:00Z', '--missing-after', '30s']);
      assert.equal(strict.code, 1);
      assert.match(strict.stdout, /UNWATCHED: no heartbeat for 1m\d+s \(missing after 30s\)/);
      const bad = await runCli(['clusters', 'status', '--state-dir', stateDir, '--missing-after', 'soon']);
      assert.deepEqual([bad.code, bad.stdout], [2, '']);
      assert.equal(bad.stderr, 'lineup clusters status: --missing-after: duration "soon" is not valid: expected terms like 500ms, 5s, 2m, 1h30m (units h, m, s, ms), 0 or never\n');
      const unknown = await runCli(['clusters', 'status', 'nowhere', '--state-dir', stateDir]);
      assert.deepEqual([unknown.code, unknown.stderr], [2, `lineup clusters status: cluster nowhere is unknown in ${stateDir}: not registered, and no heartbeat, bookmark or JobSet recorded\n`]);
    });

    it('list, add, list --output json, a second add of the id refused, remove, remove again refused', async () => {
      assert.equal((await runCli(['clusters', 'list', '--state-dir', stateDir])).stdout, 'local  https://simulated.invalid  token\n');
      const added = await runCli(['clusters', 'add', 'prod', '--eks-arn', EKS_ARN, '--role-arn', 'arn:aws:iam::123456789012:role/lineup-signer', '--endpoint', 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', '--ca', CA, '--state-dir', stateDir]);
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, new RegExp(`^registered cluster prod \\(eks, https://ABC\\.gr7\\.eu-west-1\\.eks\\.amazonaws\\.com\\) in ${stateDir}\\nnext, in cluster prod:\\n {2}1\\. kubectl apply -f infra/manifests/clusterrole\\.yaml`));
      assert.match(added.stdout, /\n {2}3\. the forwarder: infra\/manifests\/forwarder\.yaml with LINEUP_FORWARDER_CLUSTER=prod /);
      const listed = JSON.parse((await runCli(['clusters', 'list', '--state-dir', stateDir, '--output', 'json'])).stdout) as { clusters: { id: string; caData?: string; auth: unknown }[] };
      assert.deepEqual(listed.clusters.map((record) => record.id), ['local', 'prod']);
      assert.deepEqual(listed.clusters[1]?.auth, { type: 'eks', clusterName: 'prod', region: 'eu-west-1', roleArn: 'arn:aws:iam::123456789012:role/lineup-signer' });
      assert.equal(listed.clusters[1]?.caData, readFileSync(CA, 'utf8').trim());
      const again = await runCli(['clusters', 'add', 'prod', '--token-secret', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:t', '--endpoint', 'https://other.example', '--ca', CA, '--state-dir', stateDir]);
      assert.deepEqual([again.code, again.stdout], [2, '']);
      assert.match(again.stderr, /^lineup clusters add: cluster prod is already registered in .*: expected a new id \(lineup clusters remove prod first to replace it\)\n$/);
      // Registered but never heard from: status says so, exit 1.
      const status = await runCli(['clusters', 'status', 'prod', '--state-dir', stateDir]);
      assert.equal(status.code, 1);
      assert.match(status.stdout, /\nprod {2}eks {2}UNWATCHED: no forwarder checkpoint ever written; the resync polls its jobsets; no bookmark yet\n {2}last hour: 0 events, 0 passes, 0 errors; 0 jobsets, 0 failing\n {2}starting now: none\n$/);
      const removed = await runCli(['clusters', 'remove', 'prod', '--state-dir', stateDir]);
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stdout, /^removed cluster prod from /);
      const twice = await runCli(['clusters', 'remove', 'prod', '--state-dir', stateDir]);
      assert.equal(twice.code, 2);
      assert.match(twice.stderr, /^lineup clusters remove: cluster prod is not registered in /);
      assert.equal((await runCli(['clusters', 'list', '--state-dir', stateDir])).stdout, 'local  https://simulated.invalid  token\n');
    });

    it('a state directory that does not exist, or --table without --region, is one line and exit 2', async () => {
      const none = await runCli(['clusters', 'list', '--state-dir', join(scratch, 'missing')]);
      assert.deepEqual([none.code, none.stderr], [2, `lineup clusters list: no state in ${join(scratch, 'missing')}: expected the --state-dir of a lineup run or lineup demo\n`]);
      const noRegion = await runCli(['clusters', 'status', '--table', 'T']);
      assert.deepEqual([noRegion.code, noRegion.stderr], [2, "lineup clusters status: --table T without --region: expected the table's AWS region\n"]);
    });
  });

  describe('a demo whose clock starts at the wall clock, as lineup demo starts it', () => {
    let scratch = '';
    before(() => {
      scratch = mkdtempSync(join(tmpdir(), 'lineup-clusters-now-'));
    });
    after(() => rmSync(scratch, { recursive: true, force: true }));

    it('status right after it, on the wall clock: its cluster is watched (exit 0), and its first pass is at the second it started', async () => {
      const stateDir = join(scratch, 'D');
      const startedAt = Date.now();
      const demo = await demoStartedAt(stateDir, startedAt);
      assert.equal(demo.code, 0, demo.stderr);
      const status = await runCli(['clusters', 'status', '--state-dir', stateDir]);
      assert.equal(status.code, 0, status.stdout);
      assert.match(status.stdout, /\nlocal {2}token {2}watched: heartbeat \d+s ago \(a checkpoint at least every 2m\); /);
      const first = await firstPassAt(stateDir);
      assert.ok(first <= startedAt && startedAt - first < 60_000, `first pass at ${new Date(first).toISOString()}, the demo started at ${new Date(startedAt).toISOString()}`);
    });
  });
});
