/**
 * The pipeline benchmark's audit timeline (bench/pipeline/timeline.ts) on hand-written audit
 * records: who sent each request (the control plane shares the admin's user, so kube-controller-
 * manager and the bench are told apart by user agent), each controller's writes counting only its
 * own, and which write a stage's ready and running moments are taken from. No server runs here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BENCH_USER_AGENT } from '../../bench/pipeline/kubeClient.ts';
import { actorOf, apiFigure, stageTimes, timelineOf } from '../../bench/pipeline/timeline.ts';
import type { Stage } from '../../bench/pipeline/story.ts';
import { ADMIN_USER, LINEUP_USER } from '../../test/integration/harness/index.ts';
import type { AuditedWrite } from '../../test/integration/harness/upstream.ts';

const KCM_USER_AGENT = 'kube-controller-manager/v1.36.3 (linux/amd64) kubernetes/abcdef0/job-controller';
const UPSTREAM_USER_AGENT = 'jobset/v0.0.0 (linux/amd64) kubernetes/$Format';
const SCHEDULER_USER_AGENT = 'kube-scheduler/v1.36.3 (linux/amd64) kubernetes/abcdef0/scheduler';

/** record: an audit record, a successful write unless `fields` say otherwise. */
const record = (fields: Partial<AuditedWrite> & Pick<AuditedWrite, 'at'>): AuditedWrite => ({
  receivedAt: fields.at - 5,
  verb: 'update',
  resource: 'jobs',
  subresource: undefined,
  namespace: 'lineup',
  name: 'js-a-0',
  userAgent: KCM_USER_AGENT,
  username: ADMIN_USER,
  code: 200,
  ...fields,
});

const jobController = (at: number, receivedAt: number, name: string, namespace = 'lineup'): AuditedWrite =>
  record({ at, receivedAt, subresource: 'status', name, namespace });

describe('actorOf', () => {
  it('tells Lineup by its user, upstream and kube-controller-manager by their user agents, the bench by its own, and the rest apart', () => {
    assert.equal(actorOf(record({ at: 1, username: LINEUP_USER, userAgent: 'node' })), 'lineup');
    assert.equal(actorOf(record({ at: 1, userAgent: UPSTREAM_USER_AGENT })), 'upstream');
    assert.equal(actorOf(record({ at: 1, userAgent: KCM_USER_AGENT })), 'jobController');
    assert.equal(actorOf(record({ at: 1, userAgent: 'anything', username: 'system:kube-controller-manager' })), 'jobController');
    assert.equal(actorOf(record({ at: 1, userAgent: BENCH_USER_AGENT })), 'bench');
    // The scheduler and kwok run as the admin too: neither the bench nor a controller.
    assert.equal(actorOf(record({ at: 1, userAgent: SCHEDULER_USER_AGENT })), 'system');
  });
});

describe('apiFigure', () => {
  it("counts only the controller's own requests, not the Job controller's status writes to its Jobs", () => {
    const records = [
      record({ at: 1, verb: 'create', username: LINEUP_USER, userAgent: 'node' }),
      record({ at: 2, verb: 'patch', username: LINEUP_USER, userAgent: 'node' }),
      record({ at: 3, verb: 'get', resource: 'jobsets', username: LINEUP_USER, userAgent: 'node' }),
      jobController(4, 3, 'js-a-0'),
      jobController(5, 4, 'js-a-0'),
      record({ at: 6, verb: 'create', namespace: 'upstream', userAgent: UPSTREAM_USER_AGENT }),
    ];
    const lineup = apiFigure(records, 'lineup', 1);
    assert.equal(lineup.writesPerStartup, 2);
    assert.equal(lineup.readsPerStartup, 1);
    assert.equal(apiFigure(records, 'upstream', 1).writesPerStartup, 1);
  });
});

describe('timelineOf', () => {
  const seen = {
    runningAt: new Map([['lineup/js-a-0', 1_002]]),
    // The watch saw the ready status before the API server stamped that write's response complete.
    readyAt: new Map([['lineup/js-a-0', 1_303]]),
  };
  const records = [
    record({ at: 900, receivedAt: 890, verb: 'create', resource: 'jobsets', name: 'js', userAgent: BENCH_USER_AGENT }),
    // Lineup creates the Job suspended, then un-suspends it.
    record({ at: 950, receivedAt: 940, verb: 'create', username: LINEUP_USER, userAgent: 'node' }),
    record({ at: 1_000, receivedAt: 995, verb: 'patch', username: LINEUP_USER, userAgent: 'node' }),
    // The Job controller: pods created (active), then pods ready, then succeeded.
    jobController(1_100, 1_095, 'js-a-0'),
    jobController(1_305, 1_300, 'js-a-0'),
    jobController(11_400, 11_390, 'js-a-0'),
    // A status write by someone else, and a refused one, are never the ready write.
    record({ at: 1_250, receivedAt: 1_240, subresource: 'status', userAgent: BENCH_USER_AGENT }),
    record({ at: 1_302, receivedAt: 1_301, subresource: 'status', code: 409 }),
  ];
  const timeline = timelineOf(records, seen);

  it("takes a Job's ready moment from the Job controller's last status write received before the watch saw it ready", () => {
    assert.equal(timeline.readyAt('lineup', 'js-a-0'), 1_305);
  });

  it("takes a Job's running moment from its controller's last write to it received before the watch saw it running", () => {
    assert.equal(timeline.runningAt('lineup', 'js-a-0'), 1_000);
  });

  it("takes a JobSet's start from the bench's create", () => {
    assert.equal(timeline.createdAt('lineup', 'js'), 900);
  });

  it('falls back to the sighting without a matching write, and knows nothing of a Job never seen', () => {
    const bare = timelineOf([], { runningAt: new Map([['upstream/js-a-0', 42]]), readyAt: new Map() });
    assert.equal(bare.runningAt('upstream', 'js-a-0'), 42);
    assert.equal(bare.readyAt('upstream', 'js-a-0'), undefined);
  });

  it("measures a transition from the previous stage's last ready write to the write that ran the next stage's last Job", () => {
    const stages: Stage[] = [
      { name: 'a', jobs: 1 },
      { name: 'b', jobs: 2 },
    ];
    const more = [
      ...records,
      record({ at: 1_500, receivedAt: 1_490, verb: 'patch', name: 'js-b-0', username: LINEUP_USER, userAgent: 'node' }),
      record({ at: 1_700, receivedAt: 1_690, verb: 'patch', name: 'js-b-1', username: LINEUP_USER, userAgent: 'node' }),
    ];
    const sightings = {
      runningAt: new Map([...seen.runningAt, ['lineup/js-b-0', 1_510], ['lineup/js-b-1', 1_710]]),
      readyAt: seen.readyAt,
    };
    const [first, second] = stageTimes('lineup', ['js'], stages, timelineOf(more, sightings));
    assert.deepEqual(first?.get('js'), { from: 900, trigger: 'js', to: 1_000, lastJob: 'js-a-0' });
    assert.deepEqual(second?.get('js'), { from: 1_305, trigger: 'js-a-0', to: 1_700, lastJob: 'js-b-1' });
  });
});
