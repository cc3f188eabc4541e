/**
 * Benchmark: differential conformance against upstream JobSet v0.12.0 — every scenario of
 * test/conformance/generate.ts (FORMS × VARIANTS, 42 JobSets: every startup form, replicas 1–5,
 * parallelism = completions = 2, success policy All/Any with targets, failure policy with
 * restarts and a FailJobSet rule, Job failures, suspend and resume mid-startup, JobSet TTL) as a
 * Lineup twin and an upstream twin on one kube-apiserver with the real control plane minus
 * kubelet (test/integration/conformance/bed.ts), both controllers at once. Prints, per
 * difference in start order or final status, the JobSets showing it and its verdict (a README
 * deviations row, a timing effect, or not documented), then one line per JobSet.
 *
 * `node bench/differential.ts` runs it alone (exit 1 when a difference is not documented);
 * `npm run bench` runs it after the pipeline benchmark.
 */
import { compareRuns, differenceTable, startOrder, undocumented, type Difference } from '../test/conformance/compare.ts';
import { conformanceCases } from '../test/conformance/generate.ts';
import { ConformanceBed } from '../test/integration/conformance/bed.ts';
import { ensureUpstreamBinary } from '../test/integration/harness/upstream.ts';

/** RUN_TIMEOUT_MS: every twin to a terminal state. */
const RUN_TIMEOUT_MS = 10 * 60_000;

/** DifferentialFigures: what was run and how the twins differed. */
export interface DifferentialFigures {
  readonly upstreamVersion: string;
  readonly jobSets: number;
  readonly differences: readonly Difference[];
  readonly undocumented: number;
  /** JobSets whose twins showed no difference at all. */
  readonly identical: number;
  /** Per JobSet: its start order under Lineup and under upstream, and each side's terminal state. */
  readonly perJobSet: readonly { readonly name: string; readonly lineup: string; readonly upstream: string; readonly lineupEnd: string; readonly upstreamEnd: string }[];
  readonly wallMs: number;
}

const terminalOf = (final: Record<string, unknown> | undefined, deleted: boolean): string => {
  const status = final?.status as { terminalState?: string; restarts?: number } | undefined;
  return `${status?.terminalState ?? '(none)'}${status?.restarts ? `, ${status.restarts} restarts` : ''}${deleted ? ', deleted (TTL)' : ''}`;
};

/** pairOf: one JobSet's record alone, to compare one pair. */
const pairOf = <T>(records: ReadonlyMap<string, T>, name: string): Map<string, T> => {
  const record = records.get(name);
  return new Map(record === undefined ? [] : [[name, record]]);
};

/** runDifferentialBench: start the bed with upstream, run every scenario's twins, compare. */
export const runDifferentialBench = async (): Promise<DifferentialFigures> => {
  const started = Date.now();
  const binary = await ensureUpstreamBinary();
  const cases = conformanceCases();
  process.stderr.write(`bench differential: ${cases.length} JobSets, each as a Lineup twin and an upstream ${binary.version} twin, on the real control plane\n`);
  const bed = await ConformanceBed.start({ upstream: true, clusterId: 'bench-differential' });
  try {
    const runs = await bed.run(cases, ['lineup', 'upstream'], RUN_TIMEOUT_MS);
    const differences = compareRuns(runs.lineup, runs.upstream);
    return {
      upstreamVersion: binary.version,
      jobSets: cases.length,
      differences,
      undocumented: undocumented(differences).length,
      identical: cases.filter((c) => compareRuns(pairOf(runs.lineup, c.name), pairOf(runs.upstream, c.name)).length === 0).length,
      perJobSet: cases.map((c) => {
        const ours = runs.lineup.get(c.name);
        const theirs = runs.upstream.get(c.name);
        return {
          name: c.name,
          lineup: startOrder(ours?.starts ?? {}),
          upstream: startOrder(theirs?.starts ?? {}),
          lineupEnd: terminalOf(ours?.final, ours?.deleted ?? false),
          upstreamEnd: terminalOf(theirs?.final, theirs?.deleted ?? false),
        };
      }),
      wallMs: Date.now() - started,
    };
  } finally {
    await bed.stop();
  }
};

/** renderDifferentialFigures: the table of differences and verdicts, then one line per JobSet. */
export const renderDifferentialFigures = (f: DifferentialFigures): string[] => [
  `differential conformance against upstream ${f.upstreamVersion}: ${f.jobSets} JobSets, ${f.identical} without any difference, ${f.differences.length} distinct differences, ${f.undocumented} not documented (${(f.wallMs / 1000).toFixed(0)} s)`,
  ...(f.differences.length === 0 ? [] : differenceTable(f.differences)),
  ...f.perJobSet.map((j) => `  ${j.name}: Lineup ${j.lineup} → ${j.lineupEnd}; upstream ${j.upstream} → ${j.upstreamEnd}`),
];

if (import.meta.main) {
  const figures = await runDifferentialBench();
  console.log(renderDifferentialFigures(figures).join('\n'));
  if (figures.undocumented > 0) process.exitCode = 1;
}
