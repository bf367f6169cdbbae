import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { type DynamicModule, Logger, Module, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { MAINTENANCE_QUEUE, queueRegistration, SNAPSHOTS_QUEUE, TRAFFIC_QUEUE } from '@zw/queue';
import type { Queue } from 'bullmq';
import type { ApiConfig } from './config.js';

/** Registers queues the API adds jobs to, each with its prefix (a hash tag of its own on a Redis Cluster). */
export function registerQueues(...names: string[]): DynamicModule {
  const registered = BullModule.registerQueueAsync(
    ...names.map((name) => ({
      name,
      inject: [ConfigService],
      useFactory: (config: ConfigService<ApiConfig, true>) =>
        queueRegistration(config.get('REDIS_URL', { infer: true }), config.get('QUEUE_PREFIX', { infer: true }), name),
    })),
  );
  const errorReports: Provider = {
    provide: Symbol(`queue error reports: ${names.join(', ')}`),
    inject: names.map((name) => getQueueToken(name)),
    useFactory: (...queues: Queue[]) => queues.map((queue) => reportQueueErrors(queue)),
  };
  return { ...registered, providers: [...(registered.providers ?? []), errorReports] };
}

const logger = new Logger('Queues');
/** One log line per queue per this long while Redis keeps failing. */
const QUEUE_ERROR_LOG_EVERY_MS = 30_000;

/**
 * Decision: a queue without an 'error' listener has BullMQ print every connection error's stack with
 * console.error (queue-base.js `emit`), several a second while Redis (or a Redis Cluster's slot refresh)
 * is away. Requests already answer an outage for themselves (503 naming the queue, or ingest's sweeper
 * fallback), so the log gets one warning per queue every 30 s instead.
 */
function reportQueueErrors(queue: Queue): Queue {
  let loggedAt = -Infinity;
  queue.on('error', (error: Error) => {
    const now = performance.now();
    if (now - loggedAt < QUEUE_ERROR_LOG_EVERY_MS) return;
    loggedAt = now;
    logger.warn(`queue ${queue.name}: Redis error: ${error.message}`);
  });
  return queue;
}

const QUERY_QUEUES = registerQueues(SNAPSHOTS_QUEUE, MAINTENANCE_QUEUE, TRAFFIC_QUEUE);

/** The queues the query API's features add jobs to (or count), registered once for all of them. */
@Module({ imports: [QUERY_QUEUES], exports: [QUERY_QUEUES] })
export class QueryQueuesModule {}
