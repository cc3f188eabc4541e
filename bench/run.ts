/**
 * `npm run bench`: runs every benchmark and prints its figures (`-- --json` for machine-readable
 * output: every figure, and a `summary` of the headline ones in a shape that stays the same,
 * bench/summary.ts). The pipeline benchmark starts real servers — kube-apiserver and etcd, moto, the upstream
 * JobSet controller — and builds them first on a fresh clone (several minutes; progress on stderr).
 *
 *   npm run bench -- [--json] [--jobsets N] [--skip-pipeline] [--skip-cold-start]
 *
 * --jobsets N        JobSets per controller in the pipeline's burst (default 100)
 * --skip-pipeline    no servers (so neither the pipeline, the differential conformance run, the forwarder
 *                    footprint nor the many-clusters figures); the cost figures then price bench/results/pipeline-counts.json
 *                    from an earlier run (or the committed demo counts when there is none)
 * --skip-cold-start  no synthesis and no import timing
 */
import { parseArgs } from 'node:util';
import { renderColdStartFigures, runColdStartBench } from './coldStart.ts';
import { renderCostFigures, runCostBench } from './cost.ts';
import { renderBatchWindowFigures, runBatchWindowBench } from './batchWindow.ts';
import { renderDifferentialFigures, runDifferentialBench } from './differential.ts';
import { renderJournalSizeFigures, runJournalSizeBench } from './journalSize.ts';
import { renderStateStoreFigures, runStateStoreBench } from './stateStore.ts';
import { runForwarderBench } from './forwarder.ts';
import { renderForwarderFootprintFigures, runForwarderFootprintBench } from './forwarderFootprint.ts';
import { renderManyClustersFigures, runManyClustersBench } from './manyClusters.ts';
import { renderFairShareFigures, runFairShareBench } from './fairShare.ts';
import { DEFAULT_JOBSETS, renderPipelineFigures, runPipelineBench } from './pipeline.ts';
import { runPlannerBench } from './planner.ts';
import { runSimulateBench } from './simulate.ts';
import { buildSummary } from './summary.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    jobsets: { type: 'string', default: String(DEFAULT_JOBSETS) },
    'skip-pipeline': { type: 'boolean', default: false },
    'skip-cold-start': { type: 'boolean', default: false },
  },
});
const jobSets = Number(values.jobsets);
if (!Number.isInteger(jobSets) || jobSets < 1) {
  process.stderr.write(`bench: --jobsets must be a whole number ≥ 1, got ${values.jobsets}\n`);
  process.exit(2);
}

const started = Date.now();
// The in-process benchmarks first, while nothing else runs; then the ones that start servers.
// simulate first: its peak RSS is the process's, which the planner's largest case would set.
const simulate = runSimulateBench();
const journal = await runJournalSizeBench();
const stateStore = await runStateStoreBench();
const planner = runPlannerBench();
const forwarder = await runForwarderBench();
const batchWindow = await runBatchWindowBench();
const coldStart = values['skip-cold-start'] ? undefined : runColdStartBench();
const pipeline = values['skip-pipeline'] ? undefined : await runPipelineBench({ jobSets });
const forwarderFootprint = values['skip-pipeline'] ? undefined : await runForwarderFootprintBench();
const manyClusters = values['skip-pipeline'] ? undefined : await runManyClustersBench();
const fairShare = values['skip-pipeline'] ? undefined : await runFairShareBench();
const differential = values['skip-pipeline'] ? undefined : await runDifferentialBench();
const cost = runCostBench(pipeline?.countsFile);
const summary = buildSummary({ pipeline, coldStart, cost });
const figures = { summary, planner, simulate, journal, stateStore, forwarder, batchWindow, coldStart, pipeline, forwarderFootprint, manyClusters, fairShare, differential, cost, wallMs: Date.now() - started };

if (values.json) console.log(JSON.stringify(figures, null, 2));
else {
  for (const f of figures.planner) {
    console.log(`planner ${f.size} mid-startup (${f.jobs} jobs): p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, ${f.allocatedMiB ?? '?'} MiB allocated per plan`);
  }
  for (const f of figures.forwarder) {
    console.log(`forwarder → ${f.sink}: ${f.eventsPerSecond} raw events/s; ${f.forwarded} of ${f.rawEvents} passed the filter, put as ${f.eventsPut} events in ${f.putCalls} PutEvents calls`);
  }
  console.log(renderBatchWindowFigures(figures.batchWindow).join('\n'));
  for (const f of figures.simulate) {
    console.log(`simulate ${f.size} InOrder (${f.jobs} jobs): ${f.wallMs} ms wall, ${f.passes} passes, peak RSS ${f.peakRssMiB} MiB`);
  }
  console.log(renderJournalSizeFigures(journal).join('\n'));
  console.log(renderStateStoreFigures(stateStore).join('\n'));
  if (coldStart !== undefined) console.log(renderColdStartFigures(coldStart).join('\n'));
  if (pipeline !== undefined) console.log(renderPipelineFigures(pipeline).join('\n'));
  if (forwarderFootprint !== undefined) console.log(renderForwarderFootprintFigures(forwarderFootprint).join('\n'));
  if (manyClusters !== undefined) console.log(renderManyClustersFigures(manyClusters).join('\n'));
  if (fairShare !== undefined) console.log(renderFairShareFigures(fairShare).join('\n'));
  if (differential !== undefined) console.log(renderDifferentialFigures(differential).join('\n'));
  console.log(renderCostFigures(cost).join('\n'));
  console.log(`bench: wall ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
