/** The /proc readings the forwarder footprint benchmark is built on: parsed from Linux's own formats, and read from a live process. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpuTicksOf, millicores, parseStatus, sampleProc } from '../../bench/procStats.ts';

describe('procStats', () => {
  it('reads utime + stime after the command name, even one holding spaces and parentheses', () => {
    // Fields 14 and 15 (utime, stime) are 1200 and 34.
    const stat = '4242 (node (my) worker) S 1 4242 4242 0 -1 4194560 5000 0 0 0 1200 34 0 0 20 0 11 0 100 1000000 2000 18446744073709551615';
    assert.equal(cpuTicksOf(stat), 1234);
  });

  it('reads VmRSS and VmHWM in KiB, and names the line it misses', () => {
    assert.deepEqual(parseStatus('Name:\tnode\nVmHWM:\t  81920 kB\nVmRSS:\t   65536 kB\n'), { rssKiB: 65536, peakRssKiB: 81920 });
    assert.throws(() => parseStatus('Name:\tnode\nVmRSS:\t1 kB\n'), /no VmHWM line/);
  });

  it('turns CPU ticks over wall time into millicores', () => {
    const from = { at: 0, rssKiB: 0, peakRssKiB: 0, cpuTicks: 100 };
    const to = { at: 10_000, rssKiB: 0, peakRssKiB: 0, cpuTicks: 150 };
    // 50 ticks at 100 per second = 0.5 s of CPU in 10 s: 50m.
    assert.equal(millicores(from, to, 100), 50);
    assert.throws(() => millicores(to, to, 100), /span no time/);
  });

  it('samples this very process: a resident set of some MiB and CPU time that grows with work', () => {
    const before = sampleProc(process.pid);
    let spin = 0;
    const until = Date.now() + 200;
    while (Date.now() < until) spin += 1;
    const after = sampleProc(process.pid);
    assert.ok(spin > 0);
    assert.ok(before.rssKiB > 10 * 1024 && after.peakRssKiB >= after.rssKiB, JSON.stringify(after));
    assert.ok(after.cpuTicks > before.cpuTicks, `${before.cpuTicks} → ${after.cpuTicks}`);
  });
});
