/**
 * What the API server's audit log says happened: who sent each request (Lineup by its user,
 * upstream and the Job controller by their user agents, the bench by its own), each controller's
 * requests per startup, and when each stage of each JobSet began and ended, cut into the parts of
 * Lineup's pipeline. Times are the API server's (at response completion), not the bench's own
 * event loop, which Lineup's pipeline, dynalite and the bench's Job watch share and which can
 * answer late; the watch only says which write each Job's running or ready state follows from.
 */
import type { PassRecord } from '../../test/integration/e2e/pipeline.ts';
import { LINEUP_USER } from '../../test/integration/harness/index.ts';
import { AUDITED_VERBS, UPSTREAM_USER_AGENT_PREFIX, describeWrites, type AuditedWrite } from '../../test/integration/harness/upstream.ts';
import { BENCH_USER_AGENT } from './kubeClient.ts';
import { median, percentile, round, type ApiFigure, type SegmentFigure, type StageFigure } from './figures.ts';
import { NAMESPACE, jobKey, jobsOf, type Controller, type Stage } from './story.ts';

/** READ_VERBS: the verbs counted as API reads. */
const READ_VERBS: readonly string[] = ['get', 'list', 'watch'];
const WRITE_VERBS: readonly string[] = AUDITED_VERBS;

/**
 * JOB_CONTROLLER_USER_AGENT_PREFIX: how kube-controller-manager's requests introduce themselves
 * (client-go's `kube-controller-manager/<version> (…) kubernetes/<commit>/<controller>`); the test
 * control plane runs it as the admin.
 */
const JOB_CONTROLLER_USER_AGENT_PREFIX = 'kube-controller-manager/';
/** JOB_CONTROLLER_USER: kube-controller-manager's own user, where a cluster gives it one. */
const JOB_CONTROLLER_USER = 'system:kube-controller-manager';

/** Actor: who sent a request. */
export type Actor = Controller | 'jobController' | 'bench' | 'system';

/**
 * actorOf: who sent a request — Lineup (its own user), upstream (its user agent; it runs as the
 * admin), kube-controller-manager (its user agent or user), the bench (its user agent), or
 * anyone else (the scheduler, kwok, the server itself, the harness's setup).
 */
export const actorOf = (record: AuditedWrite): Actor => {
  if (record.username === LINEUP_USER) return 'lineup';
  if (record.userAgent.startsWith(UPSTREAM_USER_AGENT_PREFIX)) return 'upstream';
  if (record.userAgent.startsWith(JOB_CONTROLLER_USER_AGENT_PREFIX) || record.username === JOB_CONTROLLER_USER) return 'jobController';
  return record.userAgent === BENCH_USER_AGENT ? 'bench' : 'system';
};

/** isWrite: a create, update, patch or delete. */
export const isWrite = (record: AuditedWrite): boolean => WRITE_VERBS.includes(record.verb);

/** describeRequests: describeWrites's wording for reads too. */
export const describeRequests = (records: readonly AuditedWrite[], noun: string): string =>
  describeWrites(records).replace(/^(\d+) writes?/, (_, n: string) => `${n} ${noun}`);

/** apiFigure: one controller's requests in the audit log, per startup. */
export const apiFigure = (records: readonly AuditedWrite[], controller: Controller, jobSets: number): ApiFigure => {
  const mine = records.filter((record) => actorOf(record) === controller);
  const writes = mine.filter(isWrite);
  const reads = mine.filter((record) => READ_VERBS.includes(record.verb));
  const failed = mine.filter((record) => record.code >= 400);
  return {
    writesPerStartup: round(writes.length / jobSets, 2),
    readsPerStartup: round(reads.length / jobSets, 2),
    writes: describeRequests(writes, 'writes'),
    reads: describeRequests(reads, 'reads'),
    failed: failed.length === 0 ? 'none' : `${describeRequests(failed, 'refused')} (codes ${[...new Set(failed.map((record) => record.code))].join(', ')})`,
  };
};

/** Timeline: when things happened, from the audit log and the bench's Job watch. */
export interface Timeline {
  /** The bench's create of the JobSet. */
  createdAt(namespace: string, jobSet: string): number | undefined;
  /** The Job controller's status write that made the Job ready: its last one received before the watch saw the Job ready. */
  readyAt(namespace: string, job: string): number | undefined;
  /** The controller's last write to the Job itself (create, or the patch that un-suspended it) received before the watch saw it running. */
  runningAt(namespace: string, job: string): number | undefined;
}

/** Seen: when the bench's Job watch first saw each Job (`namespace/name`) running, and ready. */
export interface Seen {
  readonly runningAt: ReadonlyMap<string, number>;
  readonly readyAt: ReadonlyMap<string, number>;
}

/**
 * timelineOf: a Timeline over audit records and the watch's sightings. A write is matched to a
 * sighting by the time the API server received it, which precedes anything a watch can see of
 * it (its response-complete time can come a moment after the watch event); without a matching
 * write, the sighting's own time.
 */
export const timelineOf = (records: readonly AuditedWrite[], seen: Seen): Timeline => {
  const byObject = new Map<string, AuditedWrite[]>();
  for (const record of records) {
    if (record.code >= 300 || record.name === undefined) continue;
    const key = `${record.resource}/${jobKey(record.namespace, record.name)}`;
    byObject.set(key, [...(byObject.get(key) ?? []), record]);
  }
  const writesOf = (resource: string, namespace: string, name: string): AuditedWrite[] => (byObject.get(`${resource}/${jobKey(namespace, name)}`) ?? []).filter(isWrite);
  /** lastWriteBefore: the last of the Job's writes `chosen` received before the watch saw `sighting`, or the sighting. */
  const lastWriteBefore = (sighting: ReadonlyMap<string, number>, namespace: string, job: string, chosen: (record: AuditedWrite) => boolean): number | undefined => {
    const at = sighting.get(jobKey(namespace, job));
    if (at === undefined) return undefined;
    return writesOf('jobs', namespace, job).filter((record) => chosen(record) && record.receivedAt <= at).at(-1)?.at ?? at;
  };
  return {
    createdAt: (namespace, jobSet) => writesOf('jobsets', namespace, jobSet).find((record) => record.verb === 'create' && actorOf(record) === 'bench')?.at,
    readyAt: (namespace, job) => lastWriteBefore(seen.readyAt, namespace, job, (record) => record.subresource === 'status' && actorOf(record) === 'jobController'),
    runningAt: (namespace, job) => {
      const controller = namespace === NAMESPACE.lineup ? 'lineup' : 'upstream';
      return lastWriteBefore(seen.runningAt, namespace, job, (record) => record.subresource === undefined && actorOf(record) === controller);
    },
  };
};

/** StageTimes: one JobSet's transition — when it began (the last ready write, or the JobSet's create), and the next stage's last Job to run and when. */
export interface StageTimes {
  readonly from: number;
  readonly trigger: string;
  readonly to: number;
  readonly lastJob: string;
}

/** stageTimes: per transition, per JobSet name, its StageTimes (JobSets that did not make it left out). */
export const stageTimes = (namespace: string, names: readonly string[], stages: readonly Stage[], timeline: Timeline): Map<string, StageTimes>[] => {
  const last = (jobSet: string, stage: Stage, at: (namespace: string, job: string) => number | undefined): { job: string; at: number } | undefined => {
    let latest: { job: string; at: number } | undefined;
    for (const job of jobsOf(jobSet, stage)) {
      const time = at(namespace, job);
      if (time === undefined) return undefined;
      if (latest === undefined || time > latest.at) latest = { job, at: time };
    }
    return latest;
  };
  return stages.map((stage, index) => {
    const previous = stages[index - 1];
    const byJobSet = new Map<string, StageTimes>();
    for (const name of names) {
      const to = last(name, stage, timeline.runningAt);
      const created = timeline.createdAt(namespace, name);
      const from = previous === undefined ? (created === undefined ? undefined : { job: name, at: created }) : last(name, previous, timeline.readyAt);
      if (to !== undefined && from !== undefined) byJobSet.set(name, { from: from.at, trigger: from.job, to: to.at, lastJob: to.job });
    }
    return byJobSet;
  });
};

/** transitionName: "JobSet created → messagequeue running", "messagequeue ready → driver running", … */
export const transitionName = (stages: readonly Stage[], index: number): string =>
  index === 0 ? `JobSet created → ${stages[0]?.name ?? ''} running` : `${stages[index - 1]?.name ?? ''} ready → ${stages[index]?.name ?? ''} running`;

/** stageFigures: p50 and p99 of each transition. */
export const stageFigures = (times: readonly Map<string, StageTimes>[], stages: readonly Stage[]): StageFigure[] =>
  times.map((byJobSet, index) => {
    const latencies = [...byJobSet.values()].map((time) => time.to - time.from).sort((a, b) => a - b);
    return { transition: transitionName(stages, index), jobSets: latencies.length, p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)) };
  });

/** ranLastJob: the pass resumed the Job, or created it running. */
const ranLastJob = (pass: PassRecord, job: string): boolean =>
  pass.plan.actions.some((action) => (action.kind === 'ResumeJob' && action.name === job) || (action.kind === 'CreateJob' && action.job.metadata.name === job && action.job.spec.suspend !== true));

/**
 * segmentFigures: Lineup's transitions cut in three at the put of the triggering change on the
 * bus and the start of the pass that ran the next stage's last Job (its decision's time), and
 * Lineup's own share of each: from the reconciler receiving the event of that pass (a later pass
 * of a lease loop, which keeps no event: from its start; never before the transition began) to
 * the write that ran the last Job. When that pass began before the trigger's own event was on
 * the bus (an earlier event's pass read the live state), the first part ends at the pass.
 * `puts`: when each event went on the bus, by `namespace/name` of its object.
 */
export const segmentFigures = (times: readonly Map<string, StageTimes>[], stages: readonly Stage[], puts: ReadonlyMap<string, readonly number[]>, passes: readonly PassRecord[]): SegmentFigure[] =>
  times.map((byJobSet, index) => {
    const parts = { toBus: [] as number[], toPass: [] as number[], pass: [] as number[], ownShare: [] as number[] };
    for (const [jobSet, time] of byJobSet) {
      const pass = passes.find((candidate) => candidate.key.namespace === NAMESPACE.lineup && candidate.key.name === jobSet && ranLastJob(candidate, time.lastJob));
      if (pass === undefined) continue;
      // A later pass of a lease loop keeps no event: the loop picked the change up when that pass
      // began. An event received before the stage began (another Job's) counts from the stage's start.
      const received = pass.decision.timings.receivedAt ?? pass.decision.timings.passStartedAt;
      parts.ownShare.push(Math.max(0, time.to - Math.max(received, time.from)));
      const put = (puts.get(jobKey(NAMESPACE.lineup, time.trigger)) ?? []).find((at) => at >= time.from);
      if (put === undefined) continue;
      const onBus = Math.min(put, pass.decision.at);
      // Never below 0: a pass an earlier event started can read the ready write a moment before
      // the API server stamps that write's response complete (and the two clocks count whole ms apart).
      parts.toBus.push(Math.max(0, onBus - time.from));
      parts.toPass.push(pass.decision.at - onBus);
      parts.pass.push(time.to - pass.decision.at);
    }
    return { transition: transitionName(stages, index), toBusP50Ms: median(parts.toBus), toPassP50Ms: median(parts.toPass), passP50Ms: median(parts.pass), ownShareP50Ms: median(parts.ownShare) };
  });
