/** `npm run bench`: runs every benchmark and prints its figures (`-- --json` for machine-readable output). */
import { runSimulateBench } from './simulate.ts';

const json = process.argv.includes('--json');
const figures = { simulate: runSimulateBench() };
if (json) console.log(JSON.stringify(figures, null, 2));
else {
  for (const figure of figures.simulate) {
    console.log(`simulate ${figure.size} InOrder (${figure.jobs} jobs): ${figure.wallMs} ms wall, ${figure.passes} passes, peak RSS ${figure.peakRssMiB} MiB`);
  }
}
