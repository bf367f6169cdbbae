import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The demo's child processes (api, worker, fleet player): the real compiled apps, each logging to its
 * own file so the demo's own output stays a short summary.
 */

export const ROOT = join(__dirname, '..', '..', '..'); // dist/apps/demo → repository root

export interface Child {
  name: string;
  logFile: string;
  process: ChildProcess;
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not gone after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  lastLines(count?: number): string;
}

export function startChild(
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logDir: string,
): Child {
  const logFile = join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    name,
    logFile,
    process: child,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    lastLines(count = 15) {
      try {
        return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
      } catch {
        return '';
      }
    },
  };
}

/** Runs a script to completion; rejects with its last output when it fails. */
export async function runToCompletion(
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logDir: string,
): Promise<void> {
  const child = startChild(name, script, args, env, logDir);
  const code = await child.exited;
  if (code !== 0) throw new Error(`${name} failed (exit ${code}):\n${child.lastLines()}`);
}
