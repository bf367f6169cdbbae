import type { KubernetesList } from '@zw/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURED_AT, capturedAt, fleet } from '../../../test/support/snapshots.js';
import {
  apiClient,
  createCluster,
  createTenant,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';

/**
 * What ingest and simulate refuse at the door (400 naming the JSON path), what they accept and the real
 * worker then processes, future captured-at times, and the per-token push limit.
 */

const RATE_LIMIT = 25;

let stack: QueryStack;
let tenant: Tenant;
let cluster: { id: string; token: string };
const T0 = Date.now() - 3600_000;
let minute = 0;

function nextSnapshot(): KubernetesList {
  minute++;
  return capturedAt(fleet(4, 3), new Date(T0 + minute * 60_000));
}

async function push(token: string, body: string) {
  const response = await fetch(`${stack.url}/v1/ingest/snapshots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> };
}

/** A snapshot with one Service changed by `change`, as JSON text (escapes written as the attack wrote them). */
function withServiceChange(change: (service: Record<string, unknown>) => void): { text: string; index: number } {
  const list = nextSnapshot() as unknown as { items: Record<string, unknown>[] };
  const index = list.items.findIndex((item) => item.kind === 'Service');
  change(list.items[index]);
  return { text: JSON.stringify(list), index };
}

beforeAll(async () => {
  stack = await startQueryStack('ingestvalid', {
    INGEST_RATE_LIMIT_REQUESTS: String(RATE_LIMIT),
    INGEST_RATE_LIMIT_BURST: String(RATE_LIMIT),
    FLEET_CACHE_TTL_MS: '0',
    QUERY_CACHE_TTL_MS: '0',
  });
  tenant = await createTenant(stack.prisma, 'valid');
  cluster = await createCluster(stack.prisma, tenant, 'checked');
});

afterAll(async () => {
  await stack?.stop();
});

describe('refused at the door with a 400 naming the JSON path, by ingest and simulate alike', () => {
  const cases: [string, () => { text: string; path: string; detail: RegExp }][] = [
    [
      'spec.ipFamilies: false',
      () => {
        const { text, index } = withServiceChange((service) => {
          (service.spec as Record<string, unknown>).ipFamilies = false;
        });
        return { text, path: `items[${index}].spec.ipFamilies`, detail: /expected an array, got boolean false/ };
      },
    ],
    [
      'a NUL character in a name',
      () => {
        const { text, index } = withServiceChange((service) => {
          (service.metadata as Record<string, unknown>).name = 'web\u0000';
        });
        return { text, path: `items[${index}].metadata.name`, detail: /NUL character/ };
      },
    ],
    [
      'a NUL character in a key',
      () => {
        const { text, index } = withServiceChange((service) => {
          service['x\u0000'] = 1;
        });
        return { text, path: `items[${index}]["x\\u0000"]`, detail: /key contains a NUL character/ };
      },
    ],
    [
      'a lone surrogate in a label',
      () => {
        const { text, index } = withServiceChange((service) => {
          (service.metadata as Record<string, unknown>).labels = { app: 'web\ud800' };
        });
        return { text, path: `items[${index}].metadata.labels.app`, detail: /lone UTF-16 surrogate/ };
      },
    ],
    [
      'a List concatenated from two kubectl outputs (every object twice)',
      () => {
        const list = nextSnapshot();
        const count = list.items.length;
        const text = JSON.stringify({ ...list, items: [...list.items, ...list.items] });
        const first = list.items[0] as { kind: string; metadata: { name: string } };
        return {
          text,
          path: `items[${count}]`,
          detail: new RegExp(
            `the same object as items\\[0\\] \\(${first.kind} ${first.metadata.name}\\): each object may appear once`,
          ),
        };
      },
    ],
    [
      'a captured-at on a day February does not have',
      () => {
        const list = nextSnapshot();
        list.metadata.annotations[CAPTURED_AT] = '2026-02-30T00:00:00Z';
        return {
          text: JSON.stringify(list),
          path: `metadata.annotations["${CAPTURED_AT}"]`,
          detail:
            /expected an RFC 3339 timestamp of a real date and time, such as 2026-01-31T12:00:00Z, got the string "2026-02-30T00:00:00Z"/,
        };
      },
    ],
    [
      'a captured-at before the history retention window (90 days)',
      () => {
        const list = capturedAt(fleet(4, 3), new Date(Date.now() - 91 * 86_400_000));
        return {
          text: JSON.stringify(list),
          path: `metadata.annotations["${CAPTURED_AT}"]`,
          detail:
            /captured at \S+, before the 90-day history retention window \(history is kept from \S+\): a snapshot that old can no longer be placed in it/,
        };
      },
    ],
    [
      '4,150 levels of nesting',
      () => {
        const list = nextSnapshot();
        const text = JSON.stringify({ ...list, extra: '@' }).replace('"@"', `${'['.repeat(4150)}${']'.repeat(4150)}`);
        return { text, path: `extra${'[0]'.repeat(99)}`, detail: /nested deeper than 100 levels/ };
      },
    ],
  ];

  it.each(cases)('%s', async (_name, build) => {
    const { text, path, detail } = build();
    const ingest = await push(cluster.token, text);
    expect(ingest.status).toBe(400);
    expect(ingest.headers.get('content-type')).toContain('application/problem+json');
    expect(ingest.body.path).toBe(path);
    expect(ingest.body.detail).toMatch(detail);

    const simulate = await apiClient(stack.url, tenant.readKey).post('/v1/simulate', text);
    expect(simulate.status).toBe(400);
    expect((simulate.body as { path: string }).path).toBe(path);
    expect((simulate.body as { detail: string }).detail).toMatch(detail);
  });

  it("refuses a captured-at before the organization's own history retention, by ingest and simulate", async () => {
    const short = await createTenant(stack.prisma, 'short-history');
    await stack.prisma.organization.update({ where: { id: short.organizationId }, data: { historyRetentionDays: 1 } });
    const own = await createCluster(stack.prisma, short, 'short');
    const twoDaysAgo = capturedAt(fleet(3, 3), new Date(Date.now() - 2 * 86_400_000));
    const refused = await push(own.token, JSON.stringify(twoDaysAgo));
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/before the 1-day history retention window/);
    const simulate = await apiClient(stack.url, short.readKey).post('/v1/simulate', { snapshot: twoDaysAgo });
    expect(simulate.status).toBe(400);
    expect(simulate.body).toMatchObject({ path: `snapshot.metadata.annotations["${CAPTURED_AT}"]` });
    expect((simulate.body as { detail: string }).detail).toMatch(/before the 1-day history retention window/);
    // The same snapshot is within the deployment's 90 days for every other organization.
    expect((await apiClient(stack.url, tenant.readKey).post('/v1/simulate', twoDaysAgo)).status).toBe(200);
    const accepted = await push(cluster.token, JSON.stringify(twoDaysAgo));
    expect(accepted.status).toBe(202);
    await waitProcessed(stack.prisma, [accepted.body.snapshotId as string]);
  });
});

describe('accepted by ingest, processed by the worker', () => {
  it('metadata.annotations: null on every object', async () => {
    const list = nextSnapshot() as unknown as { items: { metadata: Record<string, unknown> }[] };
    for (const item of list.items) item.metadata.annotations = null;
    const pushed = await push(cluster.token, JSON.stringify(list));
    expect(pushed.status).toBe(202);
    await waitProcessed(stack.prisma, [pushed.body.snapshotId as string]);
    const simulate = await apiClient(stack.url, tenant.readKey).post('/v1/simulate', list);
    expect(simulate.status).toBe(200);
  });
});

describe('a captured-at in the future', () => {
  it('is clamped to the receive time beyond the clock-skew allowance, said so in the answer, and ages', async () => {
    const own = await createCluster(stack.prisma, tenant, 'fast-clock');
    const list = fleet(3, 3);
    list.metadata.annotations[CAPTURED_AT] = '2099-01-01T00:00:00Z';
    const before = Date.now();
    const pushed = await push(own.token, JSON.stringify(list));
    expect(pushed.status).toBe(202);
    expect(pushed.body.capturedAtClamped).toBe(true);
    const recorded = Date.parse(pushed.body.capturedAt as string);
    expect(recorded).toBeGreaterThanOrEqual(before - 1000);
    expect(recorded).toBeLessThanOrEqual(Date.now());
    await waitProcessed(stack.prisma, [pushed.body.snapshotId as string]);

    // A later, correct snapshot is newer than the clamped one, and is what the fleet shows.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const correct = capturedAt(fleet(3, 3), new Date());
    const next = await push(own.token, JSON.stringify(correct));
    expect(next.status).toBe(202);
    expect(next.body.capturedAtClamped).toBe(false);
    await waitProcessed(stack.prisma, [next.body.snapshotId as string]);
    const answer = await apiClient(stack.url, tenant.readKey).get('/v1/fleet', { 'cache-control': 'no-cache' });
    const shown = (answer.body.clusters as { id: string; lastSnapshot: { capturedAt: string } }[]).find(
      (entry) => entry.id === own.id,
    );
    expect(shown?.lastSnapshot.capturedAt).toBe(correct.metadata.annotations[CAPTURED_AT]);
  });

  it('within the allowance is kept as stated', async () => {
    const own = await createCluster(stack.prisma, tenant, 'slight-skew');
    const ahead = new Date(Date.now() + 60_000);
    const pushed = await push(own.token, JSON.stringify(capturedAt(fleet(3, 3), ahead)));
    expect(pushed.status).toBe(202);
    expect(pushed.body).toMatchObject({ capturedAt: ahead.toISOString(), capturedAtClamped: false });
  });

  it('never shows a clamped cluster as fresh once time passes', async () => {
    const own = await createCluster(stack.prisma, tenant, 'future-only');
    const list = fleet(3, 3);
    list.metadata.annotations[CAPTURED_AT] = '2099-01-01T00:00:00Z';
    const pushed = await push(own.token, JSON.stringify(list));
    await waitProcessed(stack.prisma, [pushed.body.snapshotId as string]);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const answer = await apiClient(stack.url, tenant.readKey).get('/v1/fleet', { 'cache-control': 'no-cache' });
    const shown = (answer.body.clusters as { id: string; lastSnapshot: { ageSeconds: number } }[]).find(
      (entry) => entry.id === own.id,
    );
    expect(shown?.lastSnapshot.ageSeconds).toBeGreaterThanOrEqual(1);
  });
});

describe('per agent token push limit', () => {
  it('answers 429 with Retry-After past the burst, for that token only, with X-RateLimit-* headers', async () => {
    const busy = await createCluster(stack.prisma, tenant, 'busy');
    const calm = await createCluster(stack.prisma, tenant, 'calm');
    // Pushes back to back until one is refused: the burst, plus a push for each 2.4 s the loop took (one
    // comes back every 60 s / 25), however slowly this machine pushes.
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof push>> | undefined;
    const started = Date.now();
    while (!refused && statuses.length < 2 * RATE_LIMIT) {
      const answer = await push(busy.token, '{');
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
      else expect(answer.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT));
    }
    const dripped = Math.floor((Date.now() - started) / 2400);
    expect(statuses.slice(0, -1).every((status) => status === 400)).toBe(true);
    expect(statuses.length - 1).toBeGreaterThanOrEqual(RATE_LIMIT);
    expect(statuses.length - 1).toBeLessThanOrEqual(RATE_LIMIT + dripped);
    expect(refused!.status).toBe(429);
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused!.headers.get('x-ratelimit-remaining')).toBe('0');
    // The IETF fields beside the legacy ones (draft-ietf-httpapi-ratelimit-headers).
    expect(refused!.headers.get('ratelimit-policy')).toBe(`"agent-token";q=${RATE_LIMIT};w=60;zw-burst=${RATE_LIMIT}`);
    expect(refused!.headers.get('ratelimit')).toMatch(/^"agent-token";r=0;t=\d+$/);
    expect(refused!.headers.get('content-type')).toContain('application/problem+json');
    expect(refused!.body.detail).toMatch(/this agent token may push 25 snapshots per 60 s, at most 25 at once/);

    const other = await push(calm.token, JSON.stringify(capturedAt(fleet(3, 3), new Date(T0))));
    expect(other.status).toBe(202);

    // One push comes back every 60 s / 25 = 2.4 s: the token may push again once Retry-After has passed.
    const waitSeconds = Number(refused!.headers.get('retry-after'));
    expect(waitSeconds).toBeGreaterThanOrEqual(1);
    expect(waitSeconds).toBeLessThanOrEqual(3);
    await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000));
    expect((await push(busy.token, '{')).status).toBe(400);
    expect((await push(busy.token, '{')).status).toBe(429);
  });
});
