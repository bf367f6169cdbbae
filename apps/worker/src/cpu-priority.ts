import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the CPU priority of every thread of this process to nice value `nice` (never raises it: a
 * process started under a higher nice value keeps it, and an unprivileged one could not undo that).
 *
 * Decision: on Linux a nice value belongs to a thread, not to the process: setpriority() on the process
 * id changes the main thread alone, and a thread takes its creator's value when it starts. So every thread
 * running now (V8's and libuv's, started before this runs) is set one by one through /proc/self/task, and
 * the threads started later (the analysis threads, from the main thread) inherit the value. Where there is
 * no /proc, the call applies to the whole process.
 */
export function lowerCpuPriority(nice: number): void {
  const threads = linuxThreadIds();
  if (!threads) {
    if (getPriority() < nice) setPriority(nice);
    return;
  }
  for (const tid of threads) {
    try {
      if (getPriority(tid) < nice) setPriority(tid, nice);
    } catch (error) {
      if ((error as { info?: { code?: string } }).info?.code !== 'ESRCH') throw error; // a thread that just ended
    }
  }
}

function linuxThreadIds(): number[] | null {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return null;
  }
}
