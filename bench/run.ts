/** `npm run bench`: runs every benchmark and prints its figures (`-- --json` for machine-readable output). */
import { runForwarderBench } from './forwarder.ts';
import { runPlannerBench } from './planner.ts';
import { runSimulateBench } from './simulate.ts';

const json = process.argv.includes('--json');
const figures = { planner: runPlannerBench(), simulate: runSimulateBench(), forwarder: await runForwarderBench() };
if (json) console.log(JSON.stringify(figures, null, 2));
else {
  for (const f of figures.planner) {
    console.log(`planner ${f.size} mid-startup (${f.jobs} jobs): p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, ${f.allocatedMiB ?? '?'} MiB allocated per plan`);
  }
  for (const f of figures.forwarder) {
    console.log(`forwarder → ${f.sink}: ${f.eventsPerSecond} raw events/s; ${f.forwarded} of ${f.rawEvents} forwarded in ${f.putCalls} PutEvents calls`);
  }
  for (const f of figures.simulate) {
    console.log(`simulate ${f.size} InOrder (${f.jobs} jobs): ${f.wallMs} ms wall, ${f.passes} passes, peak RSS ${f.peakRssMiB} MiB`);
  }
}
