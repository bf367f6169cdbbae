import { type BeforeApplicationShutdown, Controller, Get, Headers, Inject, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PUBLIC_LIVE_EVENT_TYPES } from '@zw/queue';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { DependencyUnavailable } from '../http/dependency-outage.js';
import { validationProblem } from '../problem.js';
import { compareEventIds, type LiveEvent, LiveEventStream } from './live-event-stream.js';
import { StreamCaps } from './stream-caps.js';

/** How often an idle connection gets a keep-alive comment (proxies close silent ones). */
const KEEP_ALIVE_MS = 15_000;
const EVENT_ID = /^\d{1,20}-\d{1,20}$/;

/**
 * Server-Sent Events of the caller's organization: `snapshot.recorded` (a cluster's snapshot was recorded:
 * its figures changed), `cluster.stale` / `cluster.fresh` (its agent stopped pushing past
 * STALE_AFTER_SECONDS / pushed again; announced once per crossing by the workers' sweeper) and
 * `report.ready`. They come from the workers through a Redis stream (`<QUEUE_PREFIX>:{events}:stream`),
 * read once per API process and fanned out to its clients; each event's `id` is its stream id, so a client
 * reconnecting with `Last-Event-ID` (EventSource does it by itself) gets every event it missed that the
 * stream still holds (about the newest 10,000). Open streams are capped per key and per organization
 * (StreamCaps).
 */
@ApiTags('events')
@ApiKeyAuth()
@Controller('v1/events')
export class EventsController implements BeforeApplicationShutdown {
  /** This process's open streams, ended when it shuts down (their clients reconnect elsewhere). */
  private readonly closers = new Set<() => void>();

  constructor(
    @Inject(LiveEventStream) private readonly stream: LiveEventStream,
    @Inject(StreamCaps) private readonly caps: StreamCaps,
  ) {}

  beforeApplicationShutdown(): void {
    for (const close of [...this.closers]) close();
  }

  @Get()
  @ApiOperation({
    summary:
      'Live events of the organization (Server-Sent Events): snapshot recorded, cluster stale or fresh again, report ready',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'resume after this event id' })
  @ApiResponse({
    status: 200,
    description:
      '`event: snapshot.recorded` (`data: {"clusterId"}`); `event: cluster.stale` and `event: cluster.fresh` ' +
      '(`data: {"clusterId", "lastSnapshotCapturedAt", "staleAfterSeconds"}`); `event: report.ready` (`data: {"reportId", "scheduleId"}`)',
  })
  async events(
    @CurrentCaller() caller: Caller,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    if (lastEventId !== undefined && !EVENT_ID.test(lastEventId)) {
      throw validationProblem([
        { location: 'header', field: 'Last-Event-ID', message: 'expected an event id such as 1764065400000-0' },
      ]);
    }
    // Where "from now on" starts, fixed before the answer's headers leave: a client that has its 200 gets
    // every event recorded after it. Read on the shared connection, so that Redis being away answers 503.
    const after =
      lastEventId ??
      (await this.stream.newestId().catch((error: unknown) => {
        throw new DependencyUnavailable('queue', `the live-event stream cannot be read: ${String(error)}`);
      }));
    const place = await this.caps.acquire(caller);
    let closed = false;
    const relay = new Relay(caller.organizationId, after, (event) => {
      response.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${visibleData(event)}\n\n`);
    });
    const unsubscribe = this.stream.subscribe((event) => relay.live(event));
    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    const close = () => {
      if (closed) return;
      closed = true;
      this.closers.delete(close);
      clearInterval(keepAlive);
      unsubscribe();
      void place.release();
      response.end();
    };
    this.closers.add(close);
    request.on('close', close);
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.write('retry: 3000\n\n');
    try {
      await relay.catchUp((from) => this.stream.eventsAfter(from));
    } catch {
      close(); // Redis went away while catching up: the client reconnects with its Last-Event-ID
    }
  }
}

/** What a client sees of an event: its fields, less the organization (which it knows). */
function visibleData(event: LiveEvent): string {
  const { organizationId: _owner, ...visible } = event.data;
  return JSON.stringify(visible);
}

/**
 * One client's events: first those after its starting point that the stream holds (its catch-up), then
 * the live ones, each once and in order, only its organization's public ones. Live events arriving while
 * it catches up wait in `pending`.
 */
class Relay {
  private cursor: string;
  private pending: LiveEvent[] | null = [];

  constructor(
    private readonly organizationId: string,
    after: string,
    private readonly write: (event: LiveEvent) => void,
  ) {
    this.cursor = after;
  }

  live(event: LiveEvent): void {
    if (this.pending) this.pending.push(event);
    else this.deliver(event);
  }

  async catchUp(page: (after: string) => Promise<LiveEvent[]>): Promise<void> {
    for (;;) {
      const events = await page(this.cursor);
      for (const event of events) this.deliver(event);
      // Caught up once a page holds nothing the live reader has not also handed over.
      const newestPending = this.pending?.at(-1);
      if (events.length === 0 || (newestPending && compareEventIds(this.cursor, newestPending.id) >= 0)) break;
    }
    const pending = this.pending ?? [];
    this.pending = null;
    for (const event of pending) this.deliver(event);
  }

  private deliver(event: LiveEvent): void {
    if (compareEventIds(event.id, this.cursor) <= 0) return;
    this.cursor = event.id;
    if (event.organizationId !== this.organizationId || !PUBLIC_LIVE_EVENT_TYPES.has(event.type)) return;
    this.write(event);
  }
}
