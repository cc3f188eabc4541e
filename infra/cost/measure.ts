/**
 * `node infra/cost/measure.ts [--runs 5] [--out infra/cost/story2-counts.json] [FILE]`
 *
 * Produces the operation counts the cost model starts from: runs FILE (default: KEP story 2,
 * examples/story2-messagequeue-driver-worker.yaml) through `lineup demo`'s pipeline
 * (lib/hosts/demo.ts runDemo: forwarder → in-process bus with the deployed rule pattern → the
 * real SQS batch handler → DynamoDB leases in embedded dynalite) `--runs` times, and writes the
 * mean counters per startup with their range.
 *
 * The pipeline's counters (lib/counters.ts) count requests; the cost of a DynamoDB write also
 * depends on the item's size, so this measurement also asks dynalite for ConsumedCapacity on
 * every request — by wrapping the document client's send, since the store does not ask for it —
 * and records the bytes the journal writes. dynalite accounts for the table only: index
 * writes are added by the cost model (Assumption.resyncIndexWritesPerUpdate). Requests here
 * include the demo's own set-up writes, which the pipeline's counters do not count.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { runDemo } from '../../lib/hosts/demo.ts';
import { loadedJobSets, readJobSetFile } from '../../lib/jobset/load.ts';
import { EMPTY_BEHAVIOUR } from '../../lib/sim/behaviour.ts';
import { parseDuration } from '../../lib/duration.ts';
import type { CountsFile, Range } from './costModel.ts';
import { dynamoItemBytes } from '../../lib/store/itemSize.ts';

/** DEFAULT_STORY: the JobSet the committed counts come from. */
export const DEFAULT_STORY = 'examples/story2-messagequeue-driver-worker.yaml';

/** Capacity: what dynalite reported for one operation over a run. */
interface Capacity {
  requests: number;
  capacityUnits: number;
  itemBytes: number;
}

const capacity = new Map<string, Capacity>();

/** measureCapacity: ask for ConsumedCapacity on every document-client request and add it up by operation. */
const measureCapacity = (): void => {
  const send = DynamoDBDocumentClient.prototype.send;
  const wrapped = async function (this: DynamoDBDocumentClient, command: { input: Record<string, unknown>; constructor: { name: string } }): Promise<unknown> {
    command.input['ReturnConsumedCapacity'] = 'TOTAL';
    // lib-dynamodb command names (PutCommand) → DynamoDB operations (PutItem).
    const operation = { Put: 'PutItem', Update: 'UpdateItem', Get: 'GetItem', Query: 'Query', BatchGet: 'BatchGetItem', Delete: 'DeleteItem' }[command.constructor.name.replace(/Command$/, '')];
    const entry = capacity.get(operation ?? '') ?? { requests: 0, capacityUnits: 0, itemBytes: 0 };
    if (operation !== undefined) capacity.set(operation, entry);
    let output: { ConsumedCapacity?: unknown };
    try {
      output = (await (send as (this: DynamoDBDocumentClient, c: unknown) => Promise<unknown>).call(this, command)) as { ConsumedCapacity?: unknown };
    } catch (error) {
      // A write whose condition failed (a lease held elsewhere) is still billed: state items are
      // under 1 KB, so one write unit.
      entry.requests += 1;
      entry.capacityUnits += 1;
      throw error;
    }
    const consumed = Array.isArray(output.ConsumedCapacity) ? output.ConsumedCapacity : output.ConsumedCapacity === undefined ? [] : [output.ConsumedCapacity];
    entry.requests += 1;
    for (const unit of consumed as { CapacityUnits?: number }[]) entry.capacityUnits += unit.CapacityUnits ?? 0;
    const item = command.input['Item'];
    if (typeof item === 'object' && item !== null) entry.itemBytes += dynamoItemBytes(item as Record<string, unknown>);
    return output;
  };
  (DynamoDBDocumentClient.prototype as { send: unknown }).send = wrapped;
};

const range = (values: readonly number[]): Range => {
  const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  return { mean: Math.round(mean * 100) / 100, min: Math.min(...values), max: Math.max(...values) };
};

/** main: run, average, write; returns the exit code. */
export const main = async (argv: readonly string[]): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { runs: { type: 'string', default: '5' }, out: { type: 'string', default: 'infra/cost/story2-counts.json' } },
  });
  const file = positionals[0] ?? DEFAULT_STORY;
  const runs = Number(values.runs);
  const jobSets = loadedJobSets(readJobSetFile(file, (path) => readFileSync(path, 'utf8')));
  measureCapacity();
  const counters: Record<string, number[]> = {};
  const units: Record<string, { requests: number[]; capacityUnits: number[]; itemBytes: number[] }> = {};
  for (let run = 0; run < runs; run += 1) {
    capacity.clear();
    const summary = await runDemo({
      jobSets,
      behaviour: EMPTY_BEHAVIOUR,
      planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true },
      realMsPerVirtualSecond: 0,
      until: parseDuration('1h'),
      onEntry: () => undefined,
      log: () => undefined,
    });
    for (const [name, count] of Object.entries(summary.counters)) (counters[name] ??= []).push(count / jobSets.length);
    for (const [operation, measured] of capacity) {
      const entry = (units[operation] ??= { requests: [], capacityUnits: [], itemBytes: [] });
      entry.requests.push(measured.requests / jobSets.length);
      entry.capacityUnits.push(measured.capacityUnits / jobSets.length);
      entry.itemBytes.push(measured.itemBytes / jobSets.length);
    }
    process.stderr.write(`run ${run + 1}/${runs}: ${JSON.stringify(summary.counters)}\n`);
  }
  const counts: CountsFile = {
    description: `operation counts per JobSet startup of ${file}, mean of ${runs} runs (min and max beside)`,
    producedBy: `node infra/cost/measure.ts --runs ${runs} ${file}`,
    producedAt: new Date().toISOString().slice(0, 10),
    source: 'lineup demo pipeline (lib/hosts/demo.ts runDemo): forwarder, in-process bus with reconcilerRulePattern(), the SQS batch handler, dynalite',
    startupsPerRun: jobSets.length,
    counters: Object.fromEntries(Object.entries(counters).sort(([a], [b]) => a.localeCompare(b)).map(([name, list]) => [name, range(list)])),
    dynamoCapacity: Object.fromEntries(
      Object.entries(units).sort(([a], [b]) => a.localeCompare(b)).map(([operation, entry]) => [
        operation,
        { requests: range(entry.requests), capacityUnits: range(entry.capacityUnits), itemBytes: range(entry.itemBytes) },
      ]),
    ),
  };
  writeFileSync(values.out, `${JSON.stringify(counts, null, 2)}\n`);
  process.stderr.write(`wrote ${values.out}\n`);
  return 0;
};

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
