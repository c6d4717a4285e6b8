/**
 * CPU accounting for the benches, from /proc: which process spent the machine's two cores while a
 * phase ran. The benches share one machine between Postgres, the Temporal dev server, the API, the
 * worker and the load generator, so a ratio to a floor only means something next to where the CPU
 * went. One core fully busy = 100 %.
 */
import fs from 'node:fs';
import os from 'node:os';

const TICKS = 100; // USER_HZ on Linux

function statFields(pid: string | number): { comm: string; fields: string[] } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return null; // exited while we looked
  }
}

const pids = () => fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));

/** The process and its descendants (tsx may run a script in a child). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const pid of pids()) {
    const s = statFields(pid);
    if (s) parents.set(Number(pid), Number(s.fields[1]));
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid);
  return out;
}

function processSeconds(pid: number): number {
  const s = statFields(pid);
  return s ? (Number(s.fields[11]) + Number(s.fields[12])) / TICKS : 0;
}

/**
 * CPU seconds of the whole Postgres server: every live postgres process, plus what its exited
 * processes used (the postmaster's reaped-children time). So backends that come and go, and the
 * WAL writer, checkpointer and autovacuum our writes cause, count too.
 */
function postgresSeconds(): number {
  const procs = new Map<string, string[]>();
  for (const pid of pids()) {
    const s = statFields(pid);
    if (s?.comm === 'postgres') procs.set(pid, s.fields);
  }
  let ticks = 0;
  for (const fields of procs.values()) {
    ticks += Number(fields[11]) + Number(fields[12]);
    if (!procs.has(fields[1])) ticks += Number(fields[13]) + Number(fields[14]); // the postmaster
  }
  return ticks / TICKS;
}

/** Busy and total CPU seconds of the machine, all cores (from /proc/stat). */
function machineSeconds(): { busy: number; total: number } {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const v = values.map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - v[3] - v[4]) / TICKS, total: total / TICKS };
}

export interface CpuReport {
  seconds: number;
  /** CPU seconds per named part (`this process`, `Postgres`, and the roots given). */
  parts: Record<string, number>;
  /** Share of all cores busy, 0–1. */
  machine: number;
}

/**
 * Starts a meter over named process roots (each counted with its descendants as they are at the
 * start and at the end), this process and the Postgres server.
 */
export function cpuMeter(roots: Record<string, number | undefined>) {
  const trees = Object.entries(roots).flatMap(([name, pid]) => (pid ? [[name, processTree(pid)] as const] : []));
  const sample = () => ({
    parts: {
      ...Object.fromEntries(trees.map(([name, tree]) => [name, tree.reduce((s, pid) => s + processSeconds(pid), 0)])),
      'this process': process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
      Postgres: postgresSeconds(),
    } as Record<string, number>,
    machine: machineSeconds(),
    at: performance.now(),
  });
  const start = sample();
  return {
    stop(): CpuReport {
      const end = sample();
      const parts = Object.fromEntries(Object.keys(start.parts).map((k) => [k, end.parts[k] - start.parts[k]]));
      return { seconds: (end.at - start.at) / 1000, parts, machine: (end.machine.busy - start.machine.busy) / (end.machine.total - start.machine.total) };
    },
  };
}

/** "worker 4.3 s (68 %), Postgres …; machine 88 % of 2 cores"; with `per`, CPU ms per unit too. */
export function formatCpu(r: CpuReport, per?: { count: number; unit: string }): string {
  const pct = (s: number) => `${((s / r.seconds) * 100).toFixed(0)} %`;
  const each = (s: number) => (per && per.count > 0 ? `, ${((s * 1000) / per.count).toFixed(2)} ms/${per.unit}` : '');
  const parts = Object.entries(r.parts).map(([k, s]) => `${k} ${s.toFixed(1)} s (${pct(s)}${each(s)})`);
  return `${parts.join(', ')}; machine ${(r.machine * 100).toFixed(0)} % of ${os.cpus().length} cores busy`;
}
