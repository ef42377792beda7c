/**
 * What the machine was doing: the load average (a shared machine makes every figure noisy) and
 * the CPU time a target's processes used (Linux `/proc`; null elsewhere).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Load averages over 1, 5 and 15 minutes. */
export type LoadAverage = [number, number, number];

/** Above this 1-minute load average a run is called noisy (on any machine: other work ran). */
export const NOISY_LOAD = 1.0;

/** Above this many cores used by other work during a run (on average), it is called noisy. */
export const NOISY_OTHERS = 0.25;

export function loadAverage(): LoadAverage {
  try {
    const [one, five, fifteen] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
    if ([one, five, fifteen].every((v) => Number.isFinite(v))) {
      return [one!, five!, fifteen!];
    }
  } catch {}
  const [one = 0, five = 0, fifteen = 0] = loadavg();
  return [one, five, fifteen];
}

/** `1.23 / 0.98 / 0.75`. */
export function formatLoad(load: LoadAverage): string {
  return load.map((v) => v.toFixed(2)).join(' / ');
}

const TICKS_PER_SECOND = 100;
/** User + system CPU seconds of one `/proc/<pid>/stat` (utime and stime are fields 14 and 15). */
const cpuSeconds = (fields: string[]) =>
  (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;

/** The `/proc/<pid>/stat` fields (from field 3, the state) of every process of group `pgid`. */
function groupStats(pgid: number): { pid: string; fields: string[] }[] | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const out: { pid: string; fields: string[] }[] = [];
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); pgrp is field 5.
    if (Number(fields[2]) === pgid) out.push({ pid: entry, fields });
  }
  return out.length > 0 ? out : null;
}

/**
 * CPU seconds (user + system) used so far by every process of process group `pgid` (a target is
 * started as a group leader, so this covers wrappers and their children, e.g. wrangler's
 * workerd). Null where /proc cannot be read.
 */
export function groupCpuSeconds(pgid: number): number | null {
  return groupStats(pgid)?.reduce((sum, { fields }) => sum + cpuSeconds(fields), 0) ?? null;
}

/**
 * CPU seconds used so far by the workerd process of group `pgid` that runs the Worker and its
 * Durable Objects: what Cloudflare bills is the CPU of that code, not `wrangler dev`'s own
 * tooling around it (its Node processes and the proxy workerd that holds the user-facing
 * `port`, both absent in production). Null unless exactly one such process is found.
 */
export function workerdCpuSeconds(pgid: number, port: number): number | null {
  const stats = groupStats(pgid);
  if (stats === null) return null;
  const runtime = stats.filter(({ pid }) => {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'workerd') return false;
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return !args.some((arg) => arg.endsWith(`=127.0.0.1:${port}`));
    } catch {
      return false;
    }
  });
  return runtime.length === 1 ? cpuSeconds(runtime[0]!.fields) : null;
}

/** Resident memory of every process of group `pgid` together (bytes); null without /proc. */
export function groupRssBytes(pgid: number): number | null {
  const stats = groupStats(pgid);
  if (stats === null) return null;
  let kib = 0;
  for (const { pid } of stats) {
    try {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kib += Number(match?.[1] ?? 0);
    } catch {}
  }
  return kib * 1024;
}

/**
 * CPU time (ms, nanosecond precision) the threads of process group `pgid` have run so far
 * (`/proc/<pid>/task/<tid>/schedstat`; threads that already exited are not counted). Null
 * without /proc.
 */
export function groupCpuMs(pgid: number): number | null {
  const stats = groupStats(pgid);
  if (stats === null) return null;
  let ns = 0;
  for (const { pid } of stats) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {}
    }
  }
  return ns / 1e6;
}

/** CPU time of the whole machine and of this process with its reaped children, in clock ticks. */
export interface CpuSnapshot {
  at: number;
  busyTicks: number;
  ownTicks: number;
}

export function cpuSnapshot(): CpuSnapshot | null {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
    const self = readFileSync('/proc/self/stat', 'utf8');
    const own = self.slice(self.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14-17.
    const ownTicks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(own[i]), 0);
    return {
      at: performance.now(),
      busyTicks: [user, nice, system, irq, softirq, steal].reduce<number>(
        (a, b) => a + (b ?? 0),
        0,
      ),
      ownTicks,
    };
  } catch {
    return null;
  }
}

/**
 * How many cores other work kept busy between two snapshots: the machine's busy time minus this
 * process's and its reaped children's (every target is reaped by the end of a run; processes a
 * target left behind, such as a workerd that outlived its wrangler, count as other work).
 */
export function othersCores(start: CpuSnapshot | null, end: CpuSnapshot | null): number | null {
  if (!start || !end || end.at <= start.at) return null;
  const others = end.busyTicks - start.busyTicks - (end.ownTicks - start.ownTicks);
  return Math.max(0, others / TICKS_PER_SECOND / ((end.at - start.at) / 1000));
}
