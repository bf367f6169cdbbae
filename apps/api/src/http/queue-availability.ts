import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { API_REDIS } from '../redis.provider.js';
import { DependencyUnavailable } from './dependency-outage.js';

/** Longest a queue-writing route waits to learn whether Redis answers. */
const PING_DEADLINE_MS = 1000;

/**
 * Whether Redis takes work right now, asked before a route changes anything it must also tell the
 * worker about (a traffic source's scheduler, a report schedule's). BullMQ's own connections queue
 * commands while Redis is away and would hold the request for as long as the outage lasts; the API's
 * own connection fails at once, so such a route answers 503 "queue unavailable" before writing.
 */
@Injectable()
export class QueueAvailability {
  constructor(@Inject(API_REDIS) private readonly redis: Redis) {}

  async assertAvailable(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${PING_DEADLINE_MS} ms`)), PING_DEADLINE_MS);
        }),
      ]);
    } catch (error) {
      throw new DependencyUnavailable('queue', `Redis does not answer: ${String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
