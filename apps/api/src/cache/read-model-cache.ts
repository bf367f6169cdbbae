import { moneyReplacer } from '@zw/core';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ConfigService } from '@nestjs/config';
import { LIVE_EVENTS_KEPT, liveEventsStreamKey, type RedisClient } from '@zw/queue';
import { LRUCache } from 'lru-cache';
import { Counter } from 'prom-client';
import type { ApiConfig } from '../config.js';
import { type LiveEvent, LiveEventStream } from '../events/live-event-stream.js';
import { MetricsService } from '../ops/metrics.service.js';
import { API_REDIS } from '../redis.provider.js';
import { invalidatesReadModel, type ReadModelChange } from './read-model-events.js';

/** Answers about one cluster's data (its Services, zones, CIDRs): dropped when that cluster changes. */
export function clusterTag(clusterId: string): string {
  return `cluster:${clusterId}`;
}

/** Answers about an organization as a whole (the fleet): dropped when its clusters are changed through the API. */
export function organizationTag(organizationId: string): string {
  return `org:${organizationId}`;
}

interface Entry {
  answer: Promise<CachedAnswer>;
  tags: string[];
  /** The answer's size once computed; a computation still running counts as one byte. */
  bytes: number;
}

const gzipAsync = promisify(gzip);
const MAX_ENTRIES = 2000;
const MAX_BYTES = 128 * 1024 * 1024;

/**
 * Serialized answers of the hottest read routes (fleet, Services pages, zones, CIDRs), kept until the data
 * under them changes. A cluster's answers change only when a snapshot of it is recorded, its history is
 * pruned, or someone changes it or one of its Services; each of those appends an event to the live-event
 * stream in Redis, which every API process reads (LiveEventStream) and which drops that cluster's answers
 * in each. A process that loses Redis for a while reads on from where it was once it is back, so it misses
 * no change the stream still holds; when it may have (the stream no longer holds where it was), it forgets
 * everything. A TTL bounds how long an answer may outlive a lost event.
 *
 * Decision: the fleet summary is not dropped on every snapshot (a fleet of 1,000 clusters records
 * several a second, which would make its cache useless); it is recomputed at most every
 * FLEET_CACHE_TTL_MS, and at once when a cluster of the organization is changed through the API. Its
 * `generatedAt` says how fresh it is.
 *
 * Decision: cache answers, not rows. Under 50 concurrent clients the API's latency is bound by CPU: a
 * 50-Service page costs ~1 ms of SQL and as much again of JSON; a 1,000-cluster fleet ~8 ms of SQL and
 * ~3 ms of JSON. Served from here, a request costs what routing and authentication cost. Concurrent
 * misses share one computation. QUERY_CACHE_TTL_MS=0 turns the cache off.
 */
@Injectable()
export class ReadModelCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ReadModelCache');
  /** The least recently used answers go first past MAX_ENTRIES or MAX_BYTES; each expires at its own TTL. */
  private readonly entries = new LRUCache<string, Entry>({
    max: MAX_ENTRIES,
    maxSize: MAX_BYTES,
    sizeCalculation: (entry) => Math.max(1, entry.bytes),
  });
  /** Bumped on every invalidation of a tag, so a computation that raced with a change is not kept. */
  private readonly generations = new Map<string, number>();
  private readonly enabled: boolean;
  private readonly stream: string;
  private readonly stopListening: (() => void)[] = [];
  private readonly lookups: Counter<'result'>;

  constructor(
    @Inject(ConfigService) private readonly config: ConfigService<ApiConfig, true>,
    @Inject(API_REDIS) private readonly publisher: RedisClient,
    @Inject(LiveEventStream) private readonly events: LiveEventStream,
    @Inject(MetricsService) metrics: MetricsService,
  ) {
    this.enabled = config.get('QUERY_CACHE_TTL_MS', { infer: true }) > 0;
    this.stream = liveEventsStreamKey(config.get('QUEUE_PREFIX', { infer: true }));
    this.lookups = new Counter({
      name: 'zonewise_read_cache_lookups_total',
      help: 'Read-model cache lookups by result (hit, miss, bypass when disabled).',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
  }

  onModuleInit(): void {
    if (!this.enabled) return;
    this.stopListening.push(
      this.events.subscribe((event) => this.onEvent(event)),
      this.events.onGap(() => this.clear()),
    );
  }

  onApplicationShutdown(): void {
    for (const stop of this.stopListening) stop();
  }

  /**
   * The JSON answer cached under `key`, or `compute`'s (then kept for `ttlMs`). Keys must include the
   * caller's organization and everything the answer depends on.
   */
  async answer(
    key: string,
    tags: readonly string[],
    ttlMs: number,
    compute: () => Promise<unknown>,
  ): Promise<CachedAnswer> {
    if (!this.enabled) {
      this.lookups.inc({ result: 'bypass' });
      return new CachedAnswer(JSON.stringify(await compute(), moneyReplacer));
    }
    const cached = this.entries.get(key);
    if (cached) {
      this.lookups.inc({ result: 'hit' });
      return cached.answer;
    }
    this.lookups.inc({ result: 'miss' });
    const tagList = [...tags];
    const started = tagList.map((tag) => this.generations.get(tag) ?? 0);
    const answer = compute().then((value) => new CachedAnswer(JSON.stringify(value, moneyReplacer)));
    const ttl = Math.min(ttlMs, this.maxTtl());
    // lru-cache reads a TTL of 0 as "forever": an answer not to be kept is computed, not cached.
    if (ttl <= 0) return answer;
    const entry: Entry = { answer, tags: tagList, bytes: 0 };
    this.entries.set(key, entry, { ttl });
    const stillHeld = () => this.entries.peek(key) === entry;
    try {
      const computed = await answer;
      const raced = tagList.some((tag, i) => (this.generations.get(tag) ?? 0) !== started[i]);
      if (raced) {
        if (stillHeld()) this.entries.delete(key);
      } else if (stillHeld()) {
        // Set again with its size (and the TTL it has left), so the byte bound counts the answer itself.
        entry.bytes = computed.body.length;
        this.entries.set(key, entry, { ttl: Math.max(1, this.entries.getRemainingTTL(key)) });
      }
      return computed;
    } catch (error) {
      if (stillHeld()) this.entries.delete(key);
      throw error;
    }
  }

  /**
   * One cluster's answer for a route and its parameters: kept per organization, dropped when the
   * cluster's data changes, for at most QUERY_CACHE_TTL_MS.
   */
  clusterAnswer(
    route: string,
    organizationId: string,
    clusterId: string,
    params: unknown,
    compute: () => Promise<unknown>,
  ): Promise<CachedAnswer> {
    const key = `${route}:${organizationId}:${clusterId}:${JSON.stringify(params)}`;
    return this.answer(key, [clusterTag(clusterId)], this.maxTtl(), compute);
  }

  /** Drops what is cached about these clusters and organizations here, and tells the other API processes. */
  async changed(change: ReadModelChange): Promise<void> {
    this.invalidate(change);
    if (!this.enabled) return;
    try {
      await this.publisher.xadd(
        this.stream,
        'MAXLEN',
        '~',
        String(LIVE_EVENTS_KEPT),
        '*',
        'type',
        'read-model.changed',
        'data',
        JSON.stringify(change),
      );
    } catch (error) {
      this.logger.warn(
        `could not publish a read-model change (other API processes keep it for their TTL): ${String(error)}`,
      );
    }
  }

  private onEvent(event: LiveEvent): void {
    if (!invalidatesReadModel(event.type)) return;
    const { clusterId, organizationId } = event.data;
    // An event naming nothing would clear everything: only a change of a cluster or organization counts.
    if (typeof clusterId === 'string' || typeof organizationId === 'string') {
      this.invalidate({
        ...(typeof clusterId === 'string' ? { clusterId } : {}),
        ...(typeof organizationId === 'string' ? { organizationId } : {}),
      });
    }
  }

  private invalidate(change: ReadModelChange): void {
    const tags = [
      ...(change.clusterId ? [clusterTag(change.clusterId)] : []),
      ...(change.organizationId ? [organizationTag(change.organizationId)] : []),
    ];
    if (tags.length === 0) return this.clear();
    for (const tag of tags) this.generations.set(tag, (this.generations.get(tag) ?? 0) + 1);
    const dropped = [...this.entries.entries()].filter(([, entry]) => entry.tags.some((tag) => tags.includes(tag)));
    for (const [key] of dropped) this.entries.delete(key);
  }

  private clear(): void {
    for (const tag of this.generations.keys()) this.generations.set(tag, (this.generations.get(tag) ?? 0) + 1);
    this.entries.clear();
  }

  private maxTtl(): number {
    return this.config.get('QUERY_CACHE_TTL_MS', { infer: true });
  }
}

/**
 * One serialized answer: its bytes, a strong ETag, and its gzip form made once, the first time a client
 * accepts it (dashboards and browsers always do; a 1,000-cluster fleet is 1 MB of JSON and 60 KB gzipped).
 */
export class CachedAnswer {
  readonly body: Buffer;
  readonly etag: string;
  private gzipped: Promise<Buffer> | undefined;

  constructor(json: string) {
    this.body = Buffer.from(json, 'utf8');
    this.etag = `"${createHash('sha1').update(this.body).digest('base64url')}"`;
  }

  /** Compressed on libuv's thread pool: a 1 MB answer does not stall the requests being served meanwhile. */
  gzip(): Promise<Buffer> {
    this.gzipped ??= gzipAsync(this.body, { level: 6 });
    return this.gzipped;
  }

  /** Writes the answer: 304 when the client has it, gzip when it accepts gzip (and it is worth it). */
  async send(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('ETag', this.etag);
    response.setHeader('Vary', 'Accept-Encoding');
    response.setHeader('Cache-Control', 'private, no-cache');
    if (request.headers['if-none-match'] === this.etag) {
      response.statusCode = 304;
      response.end();
      return;
    }
    const gzip = this.body.length > 1024 && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
    const bytes = gzip ? await this.gzip() : this.body;
    if (gzip) response.setHeader('Content-Encoding', 'gzip');
    response.setHeader('Content-Length', bytes.length);
    response.statusCode = 200;
    response.end(bytes);
  }
}
