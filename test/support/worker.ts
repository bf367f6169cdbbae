import type { INestApplicationContext, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { join } from 'node:path';
import { loadWorkerConfig } from '../../apps/worker/src/config.js';
import { WorkerModule } from '../../apps/worker/src/worker.module.js';
import { buildProjects } from './processes.js';

const ROOT = join(__dirname, '..', '..');

/**
 * The worker in this process, from its sources. Its analysis threads cannot load TypeScript, so they run
 * the compiled thread script (built here if it is missing or stale).
 */
export async function startInProcessWorker(
  env: Record<string, string>,
  options: { logger: LogLevel[] | LoggerService } = { logger: ['error'] },
): Promise<INestApplicationContext> {
  buildProjects(['apps/worker']);
  const analysisThreadFile = join(ROOT, 'dist', 'apps', 'worker', 'analysis.thread.js');
  return NestFactory.createApplicationContext(
    WorkerModule.forRoot(loadWorkerConfig(env), { analysisThreadFile }),
    options,
  );
}
