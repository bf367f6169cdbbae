import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import { loadWorkerConfig, type WorkerConfig } from './config.js';
import type { CommitHooks } from './commit-hooks.js';
import { lowerCpuPriority } from './cpu-priority.js';
import { WorkerModule } from './worker.module.js';

/** Longest a SIGTERM may wait for in-flight jobs before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 30_000;

/**
 * The worker process: what `main` runs with the environment's settings, and what test support runs with
 * commit hooks of its own (test/support/faulty-worker.mjs).
 */
export async function runWorker(options: { config?: WorkerConfig; commitHooks?: CommitHooks } = {}): Promise<void> {
  const config = options.config ?? loadWorkerConfig();
  // Before any analysis thread starts, so that each inherits it.
  lowerCpuPriority(config.WORKER_CPU_NICE);
  const module = WorkerModule.forRoot(config, { jsonLogs: true, commitHooks: options.commitHooks });
  const app = await NestFactory.createApplicationContext(module, { bufferLogs: true });
  app.useLogger(app.get(PinoLogger));
  app.enableShutdownHooks();
  new Logger('Worker').log(`worker started (CPU nice ${config.WORKER_CPU_NICE})`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref());
  }
}

/** Runs the worker, or prints why it cannot start (a bad setting: one line each, no stack) and exits 1. */
export function runWorkerOrExit(options: Parameters<typeof runWorker>[0] = {}): void {
  runWorker(options).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
