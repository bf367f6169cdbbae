import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { organizationOfCluster, PrismaService } from '@zw/db';
import { createRedisClient, liveEventsStreamKey, type LiveEventSubject, type RedisClient } from '@zw/queue';
import type { ApiConfig } from '../config.js';
import { API_REDIS } from '../redis.provider.js';

/** How long one blocking read of the stream waits (it is read again at once). */
const BLOCK_MS = 15_000;
/** Entries read at once, by the live read and by a client's catch-up. */
const BATCH = 100;
/** Wait before reading again after Redis failed to answer. */
const RETRY_MS = 1000;

/** One event of the stream, its organization resolved. */
export interface LiveEvent {
  id: string;
  type: string;
  /** The event's fields as appended (`clusterId`, `organizationId`, …). */
  data: LiveEventSubject & Record<string, unknown>;
  /** The organization it belongs to; null when its cluster is gone. */
  organizationId: string | null;
}

export type LiveEventListener = (event: LiveEvent) => void;

type StreamEntries = [string, string[]][];

/** Orders stream ids (`<ms>-<seq>`). */
export function compareEventIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split('-').map(BigInt);
  const [bMs, bSeq] = b.split('-').map(BigInt);
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  return aSeq === bSeq ? 0 : aSeq < bSeq ? -1 : 1;
}

/**
 * The live-event stream (`<QUEUE_PREFIX>:{events}:stream`), read by one blocking reader per API process
 * and fanned out to every listener in the process: each SSE client (by organization) and the read-model
 * cache (every change). An event's organization is resolved once per process, not once per client.
 *
 * Decision: one reader per process, not one per SSE client. A Redis connection per stream (XREAD BLOCK
 * holds its connection) let 1,100 streams of one key hold 1,149 Redis clients, shared with the workers
 * under Redis's 10,000-client default. Now a process holds two connections for all its streams (this
 * reader and the shared command connection, which clients catching up after Last-Event-ID use).
 *
 * While Redis is away the reader retries every second from where it was, so nothing still in the stream
 * is missed; if the stream no longer holds where it was (trimmed past it, or Redis lost its data),
 * `onGap` listeners hear of it (the cache then forgets everything).
 */
@Injectable()
export class LiveEventStream implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('LiveEvents');
  private readonly key: string;
  private reader: RedisClient | undefined;
  private running = false;
  /** The id of the newest event dispatched (events after it are read next). */
  private position: string | undefined;
  private readonly listeners = new Set<LiveEventListener>();
  private readonly gapListeners = new Set<() => void>();
  private readonly organizations = new Map<string, string | null>();

  constructor(
    @Inject(API_REDIS) private readonly redis: RedisClient,
    @Inject(PrismaService) private readonly db: PrismaService,
    @Inject(ConfigService) private readonly config: ConfigService<ApiConfig, true>,
  ) {
    this.key = liveEventsStreamKey(config.get('QUEUE_PREFIX', { infer: true }));
  }

  onModuleInit(): void {
    // Its own connection (a blocking read holds it), queueing commands until connected.
    this.reader = createRedisClient(this.config.get('REDIS_URL', { infer: true }), {
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
    }).on('error', () => undefined);
    this.running = true;
    void this.readForever();
  }

  onApplicationShutdown(): void {
    // Not waiting for the loop: a read queued while Redis never answered is not settled by disconnect().
    this.running = false;
    this.reader?.disconnect();
  }

  /** Hears every event read from now on. Returns the function that stops it. */
  subscribe(listener: LiveEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hears when events may have been missed (the stream no longer holds where the reader was). */
  onGap(listener: () => void): () => void {
    this.gapListeners.add(listener);
    return () => this.gapListeners.delete(listener);
  }

  /** The id of the stream's newest event, on the shared connection ('0-0' while it holds none). Rejects while Redis is away. */
  async newestId(): Promise<string> {
    const [newest] = await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1);
    return newest?.[0] ?? '0-0';
  }

  /**
   * The events after `after`, oldest first, up to `count`, on the shared connection: what a client
   * reconnecting with Last-Event-ID missed, read page by page.
   */
  async eventsAfter(after: string, count = BATCH): Promise<LiveEvent[]> {
    const entries = (await this.redis.xrange(this.key, `(${after}`, '+', 'COUNT', count)) as StreamEntries;
    return Promise.all(entries.map(([id, fields]) => this.eventOf(id, fields)));
  }

  private async readForever(): Promise<void> {
    let lastFailed = false;
    while (this.running) {
      try {
        this.position ??= await this.newestIdOn(this.reader!);
        if (lastFailed) await this.checkForGap(this.position);
        lastFailed = false;
        const batches = (await this.reader!.xread(
          'COUNT',
          BATCH,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          this.key,
          this.position,
        )) as [string, StreamEntries][] | null;
        for (const [id, fields] of batches?.[0]?.[1] ?? []) {
          this.position = id;
          this.dispatch(await this.eventOf(id, fields));
        }
      } catch (error) {
        if (!this.running) return;
        if (!lastFailed) this.logger.warn(`live events: Redis does not answer, retrying: ${String(error)}`);
        lastFailed = true;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  private async newestIdOn(client: RedisClient): Promise<string> {
    const [newest] = await client.xrevrange(this.key, '+', '-', 'COUNT', 1);
    return newest?.[0] ?? '0-0';
  }

  /** After an outage: when the oldest event held is newer than where the reader was, some may be lost. */
  private async checkForGap(position: string): Promise<void> {
    const [oldest] = await this.reader!.xrange(this.key, '-', '+', 'COUNT', 1);
    if (!oldest || compareEventIds(oldest[0], position) > 0) {
      for (const listener of this.gapListeners) listener();
    }
  }

  private dispatch(event: LiveEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn(`a live-event listener failed: ${String(error)}`);
      }
    }
  }

  private async eventOf(id: string, fields: string[]): Promise<LiveEvent> {
    const type = fields[fields.indexOf('type') + 1] ?? '';
    let data: LiveEvent['data'];
    try {
      data = JSON.parse(fields[fields.indexOf('data') + 1] ?? '{}') as LiveEvent['data'];
    } catch {
      data = {};
    }
    const organizationId = data.organizationId ?? (data.clusterId ? await this.organizationOf(data.clusterId) : null);
    return { id, type, data, organizationId };
  }

  private async organizationOf(clusterId: string): Promise<string | null> {
    if (!this.organizations.has(clusterId)) {
      try {
        const organizationId = await organizationOfCluster(this.db, clusterId);
        // A cluster belongs to one organization for its life: remembered (a deleted one is never asked again).
        if (this.organizations.size > 100_000) this.organizations.clear();
        this.organizations.set(clusterId, organizationId);
      } catch {
        return null; // the database is away: the event reaches no client, but the cache still hears of it
      }
    }
    return this.organizations.get(clusterId) ?? null;
  }
}
