import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { waitFor } from '../../../../test/support/wait.js';
import { ROOT } from './pipeline.js';

/** The compiled agent (`node dist/apps/agent/main.js`) as a real child process. */
export interface AgentProcess {
  child: ChildProcess;
  output(): string;
  /** JSON log lines printed so far. */
  logs(): Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The health server's port, once the agent has logged it. */
  healthPort(): Promise<number>;
  metric(name: string, labels?: Record<string, string>): Promise<number>;
}

export function startAgentProcess(args: string[], env: Record<string, string> = {}): AgentProcess {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', 'agent', 'main.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const logs = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const healthPort = () =>
    waitFor(
      'the agent to start',
      async () => logs().find((line) => typeof line.healthPort === 'number')?.healthPort as number | undefined,
    );
  return {
    child,
    output: () => output,
    logs,
    exited,
    healthPort,
    metric: async (name, labels = {}) => {
      const port = await healthPort();
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
      return text
        .split('\n')
        .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
        .filter((line) => wanted.every((label) => line.includes(label)))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    },
  };
}
