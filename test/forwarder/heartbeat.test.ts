/**
 * The forwarder's heartbeat loop: a beat whenever no checkpoint was written for an interval —
 * counted from the newest write, so a forwarder that checkpoints by itself beats never; a beat
 * that writes nothing (failed, or nothing to vouch for yet) is tried again after the retry wait,
 * not at once; the loop ends when its signal aborts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEARTBEAT_INTERVAL_MS, heartbeatWait, runHeartbeats } from '../../lib/forwarder/heartbeat.ts';
import { HEARTBEAT_MISSING_MS } from '../../lib/fleet/status.ts';

describe('forwarder/heartbeat', () => {
  it('beats only once no checkpoint was written for an interval, and retries a beat that wrote nothing after the retry wait', async () => {
    // Prepare: a clock the fake sleep advances; the watch itself checkpoints at 150 s; the beat at 390 s fails.
    let clock = 0;
    let lastWriteAt = 0;
    const beats: number[] = [];
    const waits: number[] = [];
    const abort = new AbortController();
    // Act
    await runHeartbeats(
      {
        intervalMs: 120_000,
        retryMs: 30_000,
        now: () => clock,
        lastWriteAt: () => lastWriteAt,
        beat: async () => {
          beats.push(clock);
          if (clock !== 390_000) lastWriteAt = clock;
        },
        sleep: async (ms) => {
          waits.push(ms);
          const before = clock;
          clock += ms;
          if (before < 150_000 && clock >= 150_000) lastWriteAt = 150_000;
          if (clock >= 600_000) abort.abort();
        },
      },
      abort.signal,
    );
    // Assess: 120 s after the start a beat; the watch's own write at 150 s moves the next to 270 s; the failed one at 390 s is retried at 420 s.
    assert.deepEqual(beats, [120_000, 270_000, 390_000, 420_000, 540_000]);
    assert.deepEqual(waits, [120_000, 120_000, 30_000, 120_000, 30_000, 120_000, 120_000]);
  });

  it('stops at once when its signal aborts, without a beat', async () => {
    const abort = new AbortController();
    abort.abort();
    let beats = 0;
    await runHeartbeats({ intervalMs: 1, now: () => 0, lastWriteAt: () => -10, beat: async () => void (beats += 1), sleep: async () => undefined }, abort.signal);
    assert.equal(beats, 0);
  });

  it('waits out whatever is left of the interval since the newest write; two intervals fit in the missing time with room for one lost write', () => {
    assert.equal(heartbeatWait(1_000, 61_000, 120_000), 60_000);
    assert.equal(heartbeatWait(1_000, 121_000, 120_000), 0);
    assert.ok(2 * HEARTBEAT_INTERVAL_MS < HEARTBEAT_MISSING_MS, 'one failed beat does not make a live cluster unwatched');
  });
});
