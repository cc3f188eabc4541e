/**
 * The cost model's arithmetic on small fixed counts, checked against figures worked out by hand,
 * and its shape: the per-startup part grows in proportion to startups, the fleet part does not.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CountsFileSchema, DAYS_PER_MONTH, costReport, podMonthly, startupLines, startupWork } from '../../infra/cost/costModel.ts';
import type { CountsFile, Range, StartupWork } from '../../infra/cost/costModel.ts';
import { DEFAULT_COUNTS_FILE } from '../../infra/cost/report.ts';

const exactly = (mean: number): Range => ({ mean, min: mean, max: mean });
/** close: equal to 1e-9 relative (the figures are sums of products of decimals). */
const close = (actual: number, expected: number, what: string): void => {
  assert.ok(Math.abs(actual - expected) <= Math.abs(expected) * 1e-9, `${what}: got ${actual}, expected ${expected}`);
};

const WORK: StartupWork = { events: 10, reconcilerInvocations: 10, kubeRequests: 20, dynamoRequests: 30, dynamoWriteUnits: 40, dynamoReadUnits: 4, storedBytes: 0 };

describe('cost model', () => {
  it('turns counts into billable units per startup', () => {
    // Prepare: 2 of the 12 updates were lease takes that failed (deferred), so they move no index entry.
    const counts: CountsFile = {
      description: 'test',
      producedBy: 'hand',
      producedAt: '2025-06-01',
      source: 'test',
      startupsPerRun: 1,
      counters: {
        'events.put': exactly(10),
        'reconciler.invocations': exactly(10),
        'reconciler.deferred': exactly(2),
        'k8s.get': exactly(5),
        'k8s.list': exactly(3),
        'k8s.retries': exactly(4),
        'dynamodb.UpdateItem': exactly(12),
        'dynamodb.PutItem': exactly(4),
        'dynamodb.GetItem': exactly(1),
        'dynamodb.Query': exactly(2),
      },
      dynamoCapacity: {
        PutItem: { requests: exactly(4), capacityUnits: exactly(9), itemBytes: exactly(6000) },
        UpdateItem: { requests: exactly(12), capacityUnits: exactly(12), itemBytes: exactly(0) },
      },
    };
    // Act
    const work = startupWork(counts);
    // Assess: WRU = 9 (puts) + 12 (updates) + 10 × 1.5 (index); RRU = 1 (get) + 2 × 0.5 (empty queries).
    assert.deepEqual(work, { events: 10, reconcilerInvocations: 10, kubeRequests: 8, dynamoRequests: 19, dynamoWriteUnits: 36, dynamoReadUnits: 2, storedBytes: 6000 });
  });

  it('prices a million startups of fixed work as worked out by hand', () => {
    const lines = Object.fromEntries(startupLines(WORK, 1_000_000).map((line) => [line.item, line.monthly]));
    // 10 M events at $1/M, plus 10 M × 1,000 B archived at $0.10/GB.
    close(lines['EventBridge events + archive'] ?? NaN, 10 + ((1e10 / 1024 ** 3) * 0.1), 'EventBridge');
    // 10 M messages × 3 requests at $0.40/M.
    close(lines['SQS requests'] ?? NaN, 12, 'SQS');
    // 10 M requests at $0.20/M; (10 × 15 + 30 × 8 + 20 × 25) ms = 890 ms per startup at 0.5 GB.
    close(lines['Lambda reconciler (requests + GB-s)'] ?? NaN, 2 + 890 * 1e6 / 1000 * 0.5 * 0.0000133334, 'Lambda');
    // 40 M WRU at $0.625/M, 4 M RRU at $0.125/M.
    close(lines['DynamoDB requests (WRU + RRU)'] ?? NaN, 25.5, 'DynamoDB');
    // 10 M invocations × 1,200 B of logs at $0.50/GB.
    close(lines['CloudWatch Logs ingestion'] ?? NaN, (1.2e10 / 1024 ** 3) * 0.5, 'Logs');
  });

  it('prices the daily full resync from the JobSets it re-queues: unfinished ones daily, finished ones weekly', () => {
    const report = costReport({ clusters: 1, startupsPerDay: 1000 }, WORK);
    const line = report.lineup.find((candidate) => candidate.item.startsWith('full resync'));
    assert.ok(line, 'a full-resync line');
    const startups = 1000 * DAYS_PER_MONTH;
    // Per startup: 1 day unfinished × 1 run a day, then 30 days known / 7 days per recheck.
    const passes = startups * (1 + 30 / 7);
    // Each pass: 1 event ($1/M) and 3 SQS requests ($0.40/M); (15 + 3 × 8 + 25) ms at 0.5 GB plus its
    // request; 3 updates × 2.5 WRU at $0.625/M. Each daily run reads 30,000 state items at 1 RRU, $0.125/M.
    const perPass = (1 + 3 * 0.4) / 1e6 + (0.2 / 1e6 + 0.064 * 0.5 * 0.0000133334) + (3 * 2.5 * 0.625) / 1e6;
    const reads = (DAYS_PER_MONTH * 30_000 * 0.125) / 1e6;
    close(line.monthly, passes * perPass + reads, 'full resync');
    assert.ok((line.monthly / startups) * 1000 < 0.05, `under $0.05 per 1,000 startups: ${line.monthly}`);
  });

  it('prices a pod by its reserved CPU and memory at Fargate arm64 rates', () => {
    // 730 h × (0.5 vCPU × $0.03238 + 0.125 GB × $0.00356).
    close(podMonthly(500, 128), 730 * (0.5 * 0.03238 + 0.125 * 0.00356), 'upstream pod');
    close(costReport({ clusters: 50, startupsPerDay: 1000 }, WORK).upstreamMonthly, 50 * 730 * 0.016635, 'upstream fleet');
  });

  it('grows the per-startup part in proportion to startups', () => {
    const startupPart = (startupsPerDay: number): number =>
      costReport({ clusters: 10, startupsPerDay }, WORK).lineup.filter((line) => line.kind === 'startup').reduce((sum, line) => sum + line.monthly, 0);
    const one = startupPart(1000);
    for (const factor of [2, 5, 10]) close(startupPart(1000 * factor), one * factor, `×${factor}`);
    const report = costReport({ clusters: 10, startupsPerDay: 1000 }, WORK);
    close(report.startupsPerMonth, 1000 * DAYS_PER_MONTH, 'startups a month');
  });

  it('keeps the fleet part fixed as startups grow, so the cost per 1,000 startups falls', () => {
    const fleetPart = (startupsPerDay: number): number =>
      costReport({ clusters: 10, startupsPerDay }, WORK).lineup.filter((line) => line.kind === 'fixed').reduce((sum, line) => sum + line.monthly, 0);
    close(fleetPart(100), fleetPart(100_000), 'fleet part');
    assert.ok(costReport({ clusters: 10, startupsPerDay: 100_000 }, WORK).lineupPer1000Startups < costReport({ clusters: 10, startupsPerDay: 100 }, WORK).lineupPer1000Startups);
  });

  it('reads the committed story 2 counts', () => {
    const counts = CountsFileSchema.parse(JSON.parse(readFileSync(DEFAULT_COUNTS_FILE, 'utf8')));
    const work = startupWork(counts);
    assert.ok(work.events > 0 && work.reconcilerInvocations > 0 && work.dynamoWriteUnits > 0, JSON.stringify(work));
  });

  it('prices the 50-cluster fleet with in-cluster forwarders at $40 a month or less, from the committed measured counts', () => {
    const counts = CountsFileSchema.parse(JSON.parse(readFileSync(DEFAULT_COUNTS_FILE, 'utf8')));
    const report = costReport({ clusters: 50, startupsPerDay: 1000 }, startupWork(counts));
    assert.ok(report.lineupMonthly <= 40, `$${report.lineupMonthly.toFixed(2)} a month`);
  });

  it('keeps CloudWatch fixed whatever the number of clusters: no alarm or custom metric per cluster', () => {
    const cloudWatch = (clusters: number, forwarder: 'pod' | 'lambda') => {
      const line = costReport({ clusters, startupsPerDay: 1000, forwarder }, WORK).lineup.find((item) => item.item.startsWith('CloudWatch: '));
      assert.ok(line, 'a CloudWatch line');
      return line;
    };
    for (const forwarder of ['pod', 'lambda'] as const) {
      assert.deepEqual(cloudWatch(200, forwarder), cloudWatch(1, forwarder), forwarder);
    }
    assert.match(cloudWatch(50, 'pod').item, /^CloudWatch: 6 alarms, 1 dashboard, 19 custom metrics/);
    assert.match(cloudWatch(50, 'lambda').item, /^CloudWatch: 7 alarms, 1 dashboard, 30 custom metrics/);
  });

  it('prices a quiet cluster\'s heartbeat as one checkpoint write per interval and the resync\'s two reads a run, and nothing on the bus', () => {
    const heartbeats = (clusters: number): number => costReport({ clusters, startupsPerDay: 1000 }, WORK).lineup.find((item) => item.item.startsWith('forwarder heartbeats'))?.monthly ?? Number.NaN;
    // Per cluster a month: 730 h × 30 writes at $0.625 per million, and 730 h × 60 runs × 2 read units at $0.125 per million.
    close(heartbeats(2) - heartbeats(1), (730 * 30 * 0.625 + 730 * 60 * 2 * 0.125) / 1e6, 'one more cluster');
  });
});
