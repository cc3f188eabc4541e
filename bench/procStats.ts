/**
 * A process's own memory and CPU, from Linux's /proc: the resident set (VmRSS) and its peak
 * (VmHWM) from /proc/<pid>/status, user + system CPU time from /proc/<pid>/stat. What a
 * container's cgroup would charge the process, read without a container.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** ProcSample: one reading of a process. */
export interface ProcSample {
  /** Wall clock, epoch ms. */
  readonly at: number;
  readonly rssKiB: number;
  readonly peakRssKiB: number;
  /** utime + stime, in clock ticks. */
  readonly cpuTicks: number;
}

/** statusKiB: a `Name:   1234 kB` line of /proc/<pid>/status, in KiB. */
const statusKiB = (status: string, field: string): number => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!match?.[1]) throw new Error(`/proc status has no ${field} line, expected "${field}: <n> kB"`);
  return Number(match[1]);
};

/**
 * cpuTicksOf: utime + stime of a /proc/<pid>/stat line. The command name (field 2) is in
 * parentheses and may hold spaces and parentheses itself, so fields are counted after the last ')'.
 */
export const cpuTicksOf = (stat: string): number => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`/proc stat line has no utime/stime: ${stat.slice(0, 120)}`);
  return utime + stime;
};

/** parseStatus: VmRSS and VmHWM of a /proc/<pid>/status text. */
export const parseStatus = (status: string): { rssKiB: number; peakRssKiB: number } => ({ rssKiB: statusKiB(status, 'VmRSS'), peakRssKiB: statusKiB(status, 'VmHWM') });

/** sampleProc: a reading of `pid` now. */
export const sampleProc = (pid: number): ProcSample => {
  const status = parseStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { at: Date.now(), ...status, cpuTicks: cpuTicksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) };
};

let ticksPerSecond: number | undefined;
/** clockTicksPerSecond: the kernel's USER_HZ (`getconf CLK_TCK`, 100 on Linux). */
export const clockTicksPerSecond = (): number => {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  return ticksPerSecond;
};

/** millicores: CPU used between two samples, in thousandths of a core (Kubernetes' `m`). */
export const millicores = (from: ProcSample, to: ProcSample, ticksPerSec: number = clockTicksPerSecond()): number => {
  const seconds = (to.at - from.at) / 1000;
  if (seconds <= 0) throw new Error(`samples ${from.at} → ${to.at} span no time, expected a later second sample`);
  return ((to.cpuTicks - from.cpuTicks) / ticksPerSec / seconds) * 1000;
};
