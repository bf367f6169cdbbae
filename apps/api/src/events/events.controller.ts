import { Controller, Get, Headers, Inject, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ReadDb } from '@zw/db';
import type { Redis } from 'ioredis';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import type { ApiConfig } from '../config.js';
import { validationProblem } from '../problem.js';
import { API_REDIS } from '../redis.provider.js';

/** How long one read of the stream waits before the connection gets a keep-alive comment. */
const BLOCK_MS = 15_000;
const EVENT_ID = /^\d{1,20}-\d{1,20}$/;

/**
 * Server-Sent Events of the caller's organization: `snapshot.recorded` (a cluster's snapshot was recorded:
 * its figures changed), `cluster.stale` / `cluster.fresh` (its agent stopped pushing past
 * STALE_AFTER_SECONDS / pushed again; announced once per crossing by the workers' sweeper) and `report.ready`. They come from the workers through a Redis stream
 * (`<QUEUE_PREFIX>:zw-events`); each event's `id` is its stream id, so a client reconnecting with
 * `Last-Event-ID` (EventSource does it by itself) gets every event it missed that the stream still holds
 * (about the newest 10,000). Each open connection reads the stream on a Redis connection of its own.
 */
@ApiTags('events')
@ApiKeyAuth()
@Controller('v1/events')
export class EventsController {
  private readonly stream: string;
  private readonly organizations = new Map<string, string | null>();

  constructor(
    @Inject(API_REDIS) private readonly redis: Redis,
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.stream = `${config.get('QUEUE_PREFIX', { infer: true })}:zw-events`;
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
    // every event recorded after it, even one recorded before this connection's first blocking read (which,
    // given '$', would start after it). Read on the shared connection, so that Redis being away answers 503.
    const after = lastEventId ?? (await this.newestEventId());
    // Its own connection (a blocking read holds it), queueing commands until connected, unlike the shared one.
    const reader = this.redis
      .duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null })
      .on('error', () => undefined);
    let open = true;
    request.on('close', () => {
      open = false;
      reader.disconnect();
    });
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.write('retry: 3000\n\n');
    await this.relay(reader, after, caller.organizationId, response, () => open);
    reader.disconnect();
    response.end();
  }

  /** The id of the stream's newest event; '0-0' while it holds none (every event is then newer). */
  private async newestEventId(): Promise<string> {
    const [newest] = await this.redis.xrevrange(this.stream, '+', '-', 'COUNT', 1);
    return newest?.[0] ?? '0-0';
  }

  /** Writes the organization's events after `from` to the answer until the client leaves or Redis goes away. */
  private async relay(
    reader: Redis,
    from: string,
    organizationId: string,
    response: ServerResponse,
    open: () => boolean,
  ): Promise<void> {
    let after = from;
    while (open()) {
      let batches: [string, [string, string[]][]][] | null;
      try {
        batches = (await reader.xread(
          'COUNT',
          100,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          this.stream,
          after,
        )) as typeof batches;
      } catch {
        break; // the client left (the connection was closed) or Redis went away: the client reconnects
      }
      if (!batches) {
        response.write(': keep-alive\n\n');
        continue;
      }
      for (const [id, fields] of batches[0][1]) {
        after = id;
        const event = await this.eventFor(fields, organizationId);
        if (event) response.write(`id: ${id}\nevent: ${event.type}\ndata: ${event.data}\n\n`);
      }
    }
  }

  /** The event when it belongs to the organization, else null (another tenant's never leaves this process). */
  private async eventFor(fields: string[], organizationId: string): Promise<{ type: string; data: string } | null> {
    const type = fields[fields.indexOf('type') + 1];
    const data = JSON.parse(fields[fields.indexOf('data') + 1] ?? '{}') as {
      clusterId?: string;
      organizationId?: string;
    };
    const owner = data.organizationId ?? (data.clusterId ? await this.organizationOf(data.clusterId) : null);
    if (owner !== organizationId) return null;
    const { organizationId: _owner, ...visible } = data;
    return { type, data: JSON.stringify(visible) };
  }

  private async organizationOf(clusterId: string): Promise<string | null> {
    if (!this.organizations.has(clusterId)) {
      const [row] = await this.db.query<{ organization_id: string }>(
        'SELECT organization_id::text FROM clusters WHERE id = $1::uuid',
        [clusterId],
      );
      // A cluster belongs to one organization for its life: remembered (a deleted one is never asked again).
      if (this.organizations.size > 100_000) this.organizations.clear();
      this.organizations.set(clusterId, row?.organization_id ?? null);
    }
    return this.organizations.get(clusterId) ?? null;
  }
}
