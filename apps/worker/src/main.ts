import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import { loadWorkerConfig } from './config.js';
import { lowerCpuPriority } from './cpu-priority.js';
import { WorkerModule } from './worker.module.js';

/** Longest a SIGTERM may wait for in-flight jobs before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 30_000;

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  // Before any analysis thread starts, so that each inherits it.
  lowerCpuPriority(config.WORKER_CPU_NICE);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config, { jsonLogs: true }), {
    bufferLogs: true,
  });
  app.useLogger(app.get(PinoLogger));
  app.enableShutdownHooks();
  new Logger('Worker').log(`worker started (CPU nice ${config.WORKER_CPU_NICE})`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref());
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
