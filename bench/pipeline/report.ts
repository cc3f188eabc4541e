/** The pipeline benchmark's figures as text lines (`npm run bench` without --json). */
import type { PhaseFigures, PipelineFigures, StageFigure } from './figures.ts';

/** renderPhase: one phase's figures as text lines (`one`: JobSets one at a time, so medians only). */
const renderPhase = (p: PhaseFigures, one: boolean): string[] => {
  const lines: string[] = [];
  const stageLine = (who: string, stage: StageFigure): string =>
    one
      ? `  ${who.padEnd(9)} ${stage.transition.padEnd(36)} median ${String(stage.p50Ms).padStart(7)} ms  (${stage.jobSets} JobSets)`
      : `  ${who.padEnd(9)} ${stage.transition.padEnd(36)} p50 ${String(stage.p50Ms).padStart(7)} ms  p99 ${String(stage.p99Ms).padStart(7)} ms  (${stage.jobSets} JobSets)`;
  lines.push(
    `pipeline [${p.phase}] ${p.jobSets} JobSets per controller; completed: Lineup ${p.lineup.jobSetsCompleted}/${p.jobSets}, upstream ${p.upstream.jobSetsCompleted}/${p.jobSets}; ${(p.runMs / 1000).toFixed(1)} s`,
  );
  lines.push(`pipeline [${p.phase}] stage latency (audit times: the Job controller's last ready write of the previous stage, or the JobSet's create → the write that ran the next stage's last Job):`);
  p.lineup.stages.forEach((stage, index) => {
    lines.push(stageLine('Lineup', stage));
    const theirs = p.upstream.stages[index];
    if (theirs !== undefined) lines.push(stageLine('upstream', theirs));
  });
  lines.push(`pipeline [${p.phase}] where Lineup's stage latency goes (medians, which need not add up to the median total):`);
  for (const segment of p.lineup.segments) {
    lines.push(
      `  ${segment.transition.padEnd(36)} change → on the bus ${segment.toBusP50Ms} ms, bus → pass starts ${segment.toPassP50Ms} ms, pass → Job running ${segment.passP50Ms} ms; ` +
        `Lineup's own share (event received → the write that ran it) ${segment.ownShareP50Ms} ms`,
    );
  }
  lines.push(`pipeline [${p.phase}] test-server calls (moto: EventBridge, SQS; dynalite: DynamoDB): ${p.serverCalls.map((c) => `${c.operation} ${c.calls}× p50 ${c.p50Ms} ms p99 ${c.p99Ms} ms`).join('; ')}`);
  for (const [who, api] of [['Lineup', p.lineup.api], ['upstream', p.upstream.api]] as const) {
    lines.push(`pipeline [${p.phase}] API per startup, ${who}: ${api.writesPerStartup} writes, ${api.readsPerStartup} reads (audit log)`);
    lines.push(`  in all: ${api.writes}`);
    lines.push(`  in all: ${api.reads}`);
    lines.push(`  refused: ${api.failed}`);
  }
  lines.push(`pipeline [${p.phase}] Lineup's own Kubernetes counters per startup: ${Object.entries(p.lineup.kubeCountersPerStartup).map(([name, n]) => `${name} ${n}`).join(', ')}`);
  lines.push(
    `pipeline [${p.phase}] Lineup per startup: ${p.lineup.eventsPerStartup} events put, ${p.lineup.passesPerStartup} reconcile passes, ${p.lineup.invocationsPerStartup} handler invocations, ` +
      `${p.lineup.dynamoPerStartup} DynamoDB requests (${Object.entries(p.lineup.dynamoByOperation).map(([op, n]) => `${op} ${n}`).join(', ')}), ${p.lineup.dynamoWriteUnitsPerStartup} write units; ` +
      `${p.lineup.watchEventsPerStartup} raw watch events (both namespaces); ${p.lineup.recordsFailed} records failed`,
  );
  lines.push(`pipeline [${p.phase}] Lineup/upstream: ${Object.entries(p.ratios).map(([name, r]) => `${name} ×${Number.isNaN(r) ? 'n/a' : r}`).join('; ')}`);
  return lines;
};

/** renderPipelineFigures: the figures as text lines. */
export const renderPipelineFigures = (f: PipelineFigures): string[] => {
  const lines = [
    `pipeline: KEP-104 story 2 on one kube-apiserver, Lineup (forwarder → moto EventBridge → moto SQS → ${f.pollers} pollers → reconciler; dynalite) beside upstream ${f.upstreamVersion}; ` +
      `the real Job controller, scheduler and a kwok node: pods Running and Ready ${f.readyAfterMs} ms after they are scheduled, Succeeded ${f.completeAfterMs} ms after they run; ` +
      `rule from ${f.ruleFrom}; wall ${(f.wallMs / 1000).toFixed(1)} s`,
    `pipeline before the first JobSet (fixed, not per startup): Lineup ${f.setupRequests.lineup}; upstream ${f.setupRequests.upstream}`,
    ...renderPhase(f.solo, true),
    ...renderPhase(f.burst, false),
    `pipeline final status, ${f.statusPairsCompared} Lineup JobSets beside their upstream twins: ${f.statusDifferences.length === 0 ? 'no differences' : `${f.statusDifferences.length} distinct differences`}`,
  ];
  for (const d of f.statusDifferences) {
    lines.push(`  ${d.field}: Lineup ${d.lineup} | upstream ${d.upstream} — ${d.jobSets} JobSets (${d.examples.join(', ')}${d.jobSets > d.examples.length ? ', …' : ''})`);
    lines.push(`    ${d.verdict.kind === 'not documented' ? 'NOT DOCUMENTED' : `${d.verdict.kind}: ${d.verdict.why}`}`);
  }
  if (f.jobWatchProblems.length > 0) {
    lines.push(`pipeline Job watch problems (${f.jobWatchProblems.length}):`);
    for (const problem of f.jobWatchProblems.slice(0, 5)) lines.push(`  ${problem.slice(0, 240)}`);
  }
  lines.push(`pipeline per-startup counts (${f.burst.phase}) written to ${f.countsFile}`);
  return lines;
};
