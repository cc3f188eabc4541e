/**
 * Who spent the CPU during a fleet's run: the benchmark's own process (forwarders, pollers,
 * reconciler, in-process dynalite, the Job watch) and each server it started (kube-apiserver,
 * etcd, kube-controller-manager, kube-scheduler, kwok, moto), by /proc, and how loaded the
 * machine was (load average). The many-clusters figures are bounded by the CPU these processes
 * get on a shared machine, which this makes visible.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { clockTicksPerSecond, cpuTicksOf } from '../procStats.ts';

/** ProcessCpu: CPU seconds a process (by command name) used during the run. */
export interface ProcessCpu {
  readonly name: string;
  readonly cpuSeconds: number;
}

/** TreeSample: per pid, its command name and CPU ticks. */
type TreeSample = Map<number, { readonly name: string; readonly ticks: number }>;

/** statOf: command name, parent pid and CPU ticks of `/proc/<pid>/stat`, undefined once the process is gone. */
const statOf = (pid: number): { name: string; ppid: number; ticks: number } | undefined => {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    // Exited between readdir and read: it has nothing more to count.
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ESRCH')) return undefined;
    throw error;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ppid: Number(fields[1]), ticks: cpuTicksOf(stat) };
};

/** sampleTree: this process and its descendants now. */
export const sampleTree = (): TreeSample => {
  const all = new Map<number, { name: string; ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat) all.set(Number(entry), stat);
  }
  const tree = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, stat] of all) {
      if (!tree.has(pid) && tree.has(stat.ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  const sample: TreeSample = new Map();
  for (const pid of tree) {
    const stat = all.get(pid);
    if (stat) sample.set(pid, { name: pid === process.pid ? 'bench (node)' : stat.name, ticks: stat.ticks });
  }
  return sample;
};

/** cpuBetween: CPU seconds per command name between two samples, the busiest first (processes started between them count from 0). */
export const cpuBetween = (from: TreeSample, to: TreeSample, ticksPerSecond: number = clockTicksPerSecond()): ProcessCpu[] => {
  const byName = new Map<string, number>();
  for (const [pid, { name, ticks }] of to) byName.set(name, (byName.get(name) ?? 0) + ticks - (from.get(pid)?.ticks ?? 0));
  return [...byName]
    .map(([name, ticks]) => ({ name, cpuSeconds: Math.round((ticks / ticksPerSecond) * 10) / 10 }))
    .filter((entry) => entry.cpuSeconds > 0)
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds);
};

/** loadAverage: the 1-minute load average of /proc/loadavg. */
export const loadAverage = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
