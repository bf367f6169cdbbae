import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const BUILD_LOCK = join(tmpdir(), 'zonewise-test-build.lock');
const STALE_LOCK_MS = 180_000;

/**
 * Compiles projects (incremental `tsc -b`) so child-process tests run the code under test. Test files run
 * in parallel and `tsc -b` rewrites shared outputs (libs/*\/dist) when a source changed, so builds take
 * a lock file: two at once could let a child process load a half-written file.
 */
export function buildProjects(projects: string[]): void {
  const deadline = Date.now() + STALE_LOCK_MS;
  let lock: number | undefined;
  while (lock === undefined) {
    try {
      lock = openSync(BUILD_LOCK, 'wx');
    } catch {
      if (Date.now() - lockCreatedAt() > STALE_LOCK_MS) rmSync(BUILD_LOCK, { force: true }); // its holder died
      if (Date.now() > deadline) throw new Error(`another test build held ${BUILD_LOCK} for too long`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', ...projects], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  } finally {
    closeSync(lock);
    rmSync(BUILD_LOCK, { force: true });
  }
}

function lockCreatedAt(): number {
  try {
    return statSync(BUILD_LOCK).mtimeMs;
  } catch {
    return Date.now();
  }
}

/** The api and worker, as `node dist/apps/<app>/main.js` runs them. */
export function buildApps(): void {
  buildProjects(['apps/worker', 'apps/api']);
}

export interface RunningProcess {
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
  exited(): Promise<number | null>;
}

/**
 * Starts a compiled app (`dist/apps/<app>/main.js`) as a real child process. A worker whose environment
 * names a WORKER_FAULT starts through test/support/faulty-worker.mjs instead, which installs that fault.
 */
export function startApp(app: 'worker' | 'api', env: Record<string, string>): RunningProcess {
  const script =
    app === 'worker' && env.WORKER_FAULT
      ? join(ROOT, 'test', 'support', 'faulty-worker.mjs')
      : join(ROOT, 'dist', 'apps', app, 'main.js');
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    // The API's metrics port: any free one unless the test names it (engineers' runs share the machine).
    env: { ...process.env, NO_COLOR: '1', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exit;
  };
  return {
    child,
    output: () => output,
    stop: () => signal('SIGTERM'),
    kill: signal,
    exited: () => exit,
  };
}
