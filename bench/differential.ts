/**
 * Benchmark: differential conformance against upstream JobSet v0.12.0 — every scenario of
 * test/conformance/generate.ts (FORMS × VARIANTS, 42 JobSets: every startup form, replicas 1–5,
 * parallelism = completions = 2, success policy All/Any with targets, failure policy with
 * restarts and a FailJobSet rule, Job failures, suspend and resume mid-startup, JobSet TTL) as a
 * Lineup twin and an upstream twin on one kube-apiserver with the real control plane minus
 * kubelet (test/integration/conformance/bed.ts), both controllers at once, every request
 * audited and every Job, Pod and JobSet change recorded. Prints, per difference in start order
 * (from the request times that ran the Jobs) or final status, the JobSets showing it and its
 * verdict — a deviations row (docs/conformance.md) or a timing effect whose check against the recorded data
 * held (test/conformance/verdictChecks.ts), not explained when the data contradict it, or not
 * documented — then how many facts each verdict rests on, both controllers' reaction times and
 * the Job controller's lag, then one line per JobSet.
 *
 * `node bench/differential.ts` runs it alone (exit 1 when a difference is not documented or not
 * explained; `--json` prints the figures with every pair's evidence; `--records FILE` writes
 * every twin's whole record, the pairs a comparison can be fed); `npm run bench` runs it after
 * the pipeline benchmark.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Verdict } from './pipeline/figures.ts';
import { compareRuns, differenceTable, startOrder, undocumented, type Difference, type RunRecord } from '../test/conformance/compare.ts';
import { quotedRows } from '../test/conformance/deviations.ts';
import { jobControllerLagsMs, reactionMs, spreadOf, type Spread } from '../test/conformance/reactionTimes.ts';
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
  /** Differences not documented or not explained. */
  readonly undocumented: number;
  /** Per verdict: the differences and pairs it covers and the recorded facts it rests on. */
  readonly evidenceCounts: readonly EvidenceCount[];
  /** Each controller's reaction: from the deciding Job's finish to its terminal write, over the JobSets. */
  readonly reaction: Readonly<Record<'lineup' | 'upstream', Spread>>;
  /** The Job controller's lag, both namespaces: from a Job's last Pod ending to its write finishing the Job. */
  readonly jobControllerLag: Spread;
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

/** EvidenceCount: one verdict, how many differences and pairs it covers, and its facts by kind. */
export interface EvidenceCount {
  readonly verdict: string;
  readonly differences: number;
  readonly pairs: number;
  readonly facts: Readonly<Record<string, number>>;
}

/** verdictLabel: "timing: <the row it quotes>", "not explained", … */
const verdictLabel = (verdict: Verdict): string => {
  if (verdict.kind === 'not documented' || verdict.kind === 'not explained') return verdict.kind;
  const rows = quotedRows(verdict.why);
  return `${verdict.kind}: ${rows.length === 0 ? verdict.why.split(':')[0] ?? '' : `"${rows.join('", "')}"`}`;
};

/** FACT_KINDS: the kinds of recorded fact counted per verdict, by what their line says. */
const FACT_KINDS: readonly (readonly [string, RegExp])[] = [
  ['Jobs counted by Lineup only', /counted by Lineup only —/],
  ['Jobs counted by upstream only', /counted by upstream only —/],
  ['counters recounted from the Jobs left', /^final counters recount/],
  ['last stage never all ready before the end', /never all ready|all ready only at/],
  ['last stage ready, no status write before the end', /with no status write between/],
  ['both wrote StartupPolicyCompleted True', /^both showed StartupPolicyCompleted True/],
  ['no startup condition upstream', /showed no startup condition/],
  ['messages naming what is awaited', /^Lineup: .*; upstream: /],
  ['Suspended never written', /never wrote Suspended/],
  ['Suspended=True writes refused', /planned Suspended=True and the write was refused/],
  ['first failed Job the earliest', / named .*: failed at /],
  ['start request times', /^(Lineup|upstream) run requested/],
];

/** evidenceCounts: per verdict, its differences, pairs and facts. */
export const evidenceCounts = (differences: readonly Difference[]): EvidenceCount[] => {
  const counts = new Map<string, { differences: number; pairs: Set<string>; facts: Record<string, number> }>();
  for (const difference of differences) {
    const label = verdictLabel(difference.verdict);
    const count = counts.get(label) ?? { differences: 0, pairs: new Set<string>(), facts: {} };
    count.differences += 1;
    for (const [name, lines] of Object.entries(difference.evidence ?? {})) {
      count.pairs.add(name);
      for (const line of lines) {
        const kind = FACT_KINDS.find(([, pattern]) => pattern.test(line))?.[0] ?? 'other';
        count.facts[kind] = (count.facts[kind] ?? 0) + 1;
      }
    }
    counts.set(label, count);
  }
  return [...counts.entries()].map(([verdict, count]) => ({ verdict, differences: count.differences, pairs: count.pairs.size, facts: count.facts }));
};

/** reactionOf: each JobSet's reaction on one side. */
const reactionOf = (records: ReadonlyMap<string, RunRecord>): Spread =>
  spreadOf([...records.values()].flatMap((record) => {
    const ms = record.evidence === undefined ? undefined : reactionMs(record.evidence);
    return ms === undefined ? [] : [ms];
  }));

/** pairOf: one JobSet's record alone, to compare one pair. */
const pairOf = <T>(records: ReadonlyMap<string, T>, name: string): Map<string, T> => {
  const record = records.get(name);
  return new Map(record === undefined ? [] : [[name, record]]);
};

/** runDifferentialBench: start the bed with upstream, run every scenario's twins, compare. */
export const runDifferentialBench = async (options: { recordsFile?: string } = {}): Promise<DifferentialFigures> => {
  const started = Date.now();
  const binary = await ensureUpstreamBinary();
  const cases = conformanceCases();
  process.stderr.write(`bench differential: ${cases.length} JobSets, each as a Lineup twin and an upstream ${binary.version} twin, on the real control plane\n`);
  const bed = await ConformanceBed.start({ upstream: true, clusterId: 'bench-differential' });
  try {
    const runs = await bed.run(cases, ['lineup', 'upstream'], RUN_TIMEOUT_MS);
    if (options.recordsFile !== undefined) writeFileSync(options.recordsFile, JSON.stringify({ lineup: Object.fromEntries(runs.lineup), upstream: Object.fromEntries(runs.upstream) }));
    const differences = compareRuns(runs.lineup, runs.upstream);
    return {
      upstreamVersion: binary.version,
      jobSets: cases.length,
      differences,
      undocumented: undocumented(differences).length,
      evidenceCounts: evidenceCounts(differences),
      reaction: { lineup: reactionOf(runs.lineup), upstream: reactionOf(runs.upstream) },
      jobControllerLag: spreadOf([...runs.lineup.values(), ...runs.upstream.values()].flatMap((record) => (record.evidence === undefined ? [] : jobControllerLagsMs(record.evidence)))),
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

/** spreadText: "median 63.2 ms, max 410 ms over 40". */
const spreadText = (spread: Spread): string => `median ${spread.medianMs} ms, max ${spread.maxMs} ms over ${spread.count}`;

/** renderDifferentialFigures: the table of differences and verdicts, the evidence counts, the reaction times, then one line per JobSet. */
export const renderDifferentialFigures = (f: DifferentialFigures): string[] => [
  `differential conformance against upstream ${f.upstreamVersion}: ${f.jobSets} JobSets, ${f.identical} without any difference, ${f.differences.length} distinct differences, ${f.undocumented} not documented or not explained (${(f.wallMs / 1000).toFixed(0)} s)`,
  ...(f.differences.length === 0 ? [] : differenceTable(f.differences)),
  'evidence per verdict:',
  ...f.evidenceCounts.map((c) => `  ${c.verdict}: ${c.differences} differences over ${c.pairs} pairs; ${Object.entries(c.facts).map(([kind, n]) => `${n} ${kind}`).join(', ') || 'no recorded facts'}`),
  ...f.differences.filter((d) => d.verdict.kind === 'not explained').flatMap((d) => Object.entries(d.evidence ?? {}).map(([name, lines]) => `  not explained, ${d.field} in ${name}: ${lines.join(' | ')}`)),
  `reaction, the deciding Job's finish → the terminal write: Lineup ${spreadText(f.reaction.lineup)}; upstream ${spreadText(f.reaction.upstream)}`,
  `the Job controller's lag, a Job's last Pod ended → the Job marked finished: ${spreadText(f.jobControllerLag)}`,
  ...f.perJobSet.map((j) => `  ${j.name}: Lineup ${j.lineup} → ${j.lineupEnd}; upstream ${j.upstream} → ${j.upstreamEnd}`),
];

if (import.meta.main) {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, records: { type: 'string' } } });
  const figures = await runDifferentialBench(values.records === undefined ? {} : { recordsFile: values.records });
  console.log(values.json ? JSON.stringify(figures, null, 2) : renderDifferentialFigures(figures).join('\n'));
  if (figures.undocumented > 0) process.exitCode = 1;
}
