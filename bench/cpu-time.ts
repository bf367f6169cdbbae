import { readdirSync, readFileSync } from 'node:fs';
import type { PrismaClient } from '@zw/db';

/**
 * CPU time of processes on this machine, from /proc (Linux): what the pipeline bench reports beside
 * wall-clock figures, since CPU time hardly moves with the machine's other load.
 */

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on every Linux build in use). */
const TICKS_PER_SECOND = 100;

/** CPU time so far, in ms, by thread or process id. */
export type CpuReading = Map<number, number>;

export interface CpuTimes {
  /** The process's main thread (its id is the process id). */
  mainThreadMs: number;
  /** Its busiest other thread: the analysis thread, when the worker runs one. */
  busiestThreadMs: number;
  /** Its other threads: V8's compilers and GC helpers, libuv's pool (inflating payloads). */
  otherThreadsMs: number;
  /** The Postgres backends that served it (those connected to its database). */
  postgresMs: number;
}

/** The CPU time of each thread of a process so far, or null without /proc. */
export function threadsCpu(pid: number | undefined): CpuReading | null {
  if (pid === undefined) return null;
  try {
    return new Map(
      readdirSync(`/proc/${pid}/task`).map((task) => [Number(task), cpuMsOf(`/proc/${pid}/task/${task}/stat`)]),
    );
  } catch {
    return null;
  }
}

/**
 * CPU time so far of each backend connected to `database`; null when Postgres runs elsewhere (its
 * backends are not processes of this machine).
 */
export async function postgresBackends(prisma: PrismaClient, database: string): Promise<CpuReading | null> {
  const rows = await prisma.$queryRaw<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE datname = ${database} AND pid <> pg_backend_pid()`;
  try {
    return new Map(rows.map(({ pid }) => [pid, cpuMsOf(`/proc/${pid}/stat`)]));
  } catch {
    return null;
  }
}

/**
 * What the process `pid` (its threads read before and after) and the backends spent between two
 * readings (a thread or backend started meanwhile: all of its time), or null when a reading failed.
 */
export function cpuBetween(
  pid: number,
  threads: [CpuReading | null, CpuReading | null],
  backends: [CpuReading | null, CpuReading | null],
): CpuTimes | null {
  const [threadsBefore, threadsAfter] = threads;
  const [backendsBefore, backendsAfter] = backends;
  if (!threadsBefore || !threadsAfter || !backendsBefore || !backendsAfter) return null;
  const spent = (before: CpuReading, after: CpuReading) =>
    new Map([...after].map(([id, ms]) => [id, ms - (before.get(id) ?? 0)]));
  const byThread = spent(threadsBefore, threadsAfter);
  const mainThreadMs = byThread.get(pid) ?? 0;
  byThread.delete(pid);
  const others = [...byThread.values()];
  const busiestThreadMs = Math.max(0, ...others);
  const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
  return {
    mainThreadMs,
    busiestThreadMs,
    otherThreadsMs: sum(others) - busiestThreadMs,
    postgresMs: sum(spent(backendsBefore, backendsAfter).values()),
  };
}

/** The CPU time of one process of this machine so far (a local Postgres backend, say), in ms, or null without /proc. */
export function processCpu(pid: number): number | null {
  try {
    return cpuMsOf(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
}

/** utime + stime of a /proc stat file, in ms (fields 14 and 15, counted after the parenthesised name). */
function cpuMsOf(statFile: string): number {
  const stat = readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
