import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from './query-api.js';
import { openEvents } from './live-events.js';
import { ReadModelPublisher } from '../../apps/worker/src/read-model-events.js';
import { capturedAt, evolve, fleet } from './snapshots.js';
import { waitFor } from './wait.js';

/**
 * The live-event tests (`GET /v1/events`): run on the shared single Redis (apps/api/test/events.spec.ts)
 * and on a real Redis Cluster (apps/worker/test/redis-cluster.spec.ts). `redis` is read when the suite
 * starts, so a cluster started by the caller's beforeAll is in place by then.
 */
export function describeLiveEvents(name: string, redis: () => Record<string, string> = () => ({})): void {
  describe(name, () => {
    let stack: QueryStack;
    let alice: Tenant;
    let bob: Tenant;
    let aliceCluster: { id: string; token: string };
    let bobCluster: { id: string; token: string };
    const base = fleet(6, 3, 21);
    let minute = 0;
    const next = () => capturedAt(evolve(base, ++minute), new Date(Date.now() - 3_600_000 + minute * 60_000));

    beforeAll(async () => {
      stack = await startQueryStack('events', {
        ...redis(),
        EVENTS_MAX_STREAMS_PER_KEY: '3',
        EVENTS_MAX_STREAMS_PER_ORGANIZATION: '5',
      });
      alice = await createTenant(stack.prisma, 'ev-alice');
      bob = await createTenant(stack.prisma, 'ev-bob');
      aliceCluster = await createCluster(stack.prisma, alice, 'alice-live');
      bobCluster = await createCluster(stack.prisma, bob, 'bob-live');
    });
    afterAll(() => stack?.stop());

    it("streams the organization's snapshots as they are recorded, never another tenant's", async () => {
      const events = await openEvents(stack.url, alice.readKey);
      await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, bobCluster.token, next())]);
      await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, aliceCluster.token, next())]);
      const recorded = await events.waitFor((event) => event.event === 'snapshot.recorded');
      expect(recorded.data).toEqual({ clusterId: aliceCluster.id });
      expect(recorded.id).toMatch(/^\d+-\d+$/);
      expect(events.received.every((event) => event.data.clusterId === aliceCluster.id)).toBe(true);
      await events.close();
    });

    it('delivers an event recorded the moment the connection is answered, before the stream is first read', async () => {
      const events = await openEvents(stack.url, alice.readKey);
      // Over the worker's connection, already open: the append beats the answer's first blocking read.
      stack.worker.get(ReadModelPublisher).liveEvent('snapshot.recorded', { clusterId: aliceCluster.id });
      const recorded = await events.waitFor((event) => event.event === 'snapshot.recorded', 10_000);
      expect(recorded.data).toEqual({ clusterId: aliceCluster.id });
      await events.close();
    });

    it('resumes after Last-Event-ID with what was missed while disconnected', async () => {
      const first = await openEvents(stack.url, alice.readKey);
      await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, aliceCluster.token, next())]);
      const seen = await first.waitFor((event) => event.event === 'snapshot.recorded');
      await first.close();
      // Disconnected: a snapshot is recorded meanwhile.
      await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, aliceCluster.token, next())]);
      const resumed = await openEvents(stack.url, alice.readKey, seen.id);
      const missed = await resumed.waitFor((event) => event.event === 'snapshot.recorded');
      expect(missed.id > seen.id || missed.id.length > seen.id.length).toBe(true);
      expect(missed.data.clusterId).toBe(aliceCluster.id);
      await resumed.close();
    });

    it('tells the organization a report is ready', async () => {
      const events = await openEvents(stack.url, alice.readKey);
      const bobs = await openEvents(stack.url, bob.readKey);
      const admin = apiClient(stack.url, alice.adminKey);
      const schedule = (await admin.post('/v1/report-schedules', { name: 'live', cadence: 'daily' })).body.schedule;
      const run = await admin.post(`/v1/report-schedules/${schedule.id}/run`, {});
      const ready = await events.waitFor((event) => event.event === 'report.ready', 120_000);
      expect(ready.data).toEqual({ reportId: run.body.report.id, scheduleId: schedule.id });
      expect(bobs.received.filter((event) => event.event === 'report.ready')).toEqual([]);
      await events.close();
      await bobs.close();
    });

    it('caps open streams per key and per organization (429 with Retry-After), and frees a place when one closes', async () => {
      const open = (key: string) => fetch(`${stack.url}/v1/events`, { headers: { authorization: `Bearer ${key}` } });
      const keyStreams = await Promise.all([1, 2, 3].map(() => openEvents(stack.url, alice.readKey)));
      const overKey = await open(alice.readKey);
      expect(overKey.status).toBe(429);
      expect(overKey.headers.get('content-type')).toMatch(/problem\+json/);
      expect(Number(overKey.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(overKey.headers.get('ratelimit-policy')).toBe('"event-streams-per-key";q=3;qu="concurrent-requests"');
      expect(overKey.headers.get('ratelimit')).toMatch(/^"event-streams-per-key";r=0;t=\d+$/);
      expect(((await overKey.json()) as { detail: string }).detail).toMatch(/this API key may hold 3 open together/);
      // The organization's other key has places of its own, up to the organization's five.
      const adminStreams = await Promise.all([1, 2].map(() => openEvents(stack.url, alice.adminKey)));
      const overOrganization = await open(alice.adminKey);
      expect(overOrganization.status).toBe(429);
      await overOrganization.body?.cancel();
      expect(overOrganization.headers.get('ratelimit-policy')).toBe(
        '"event-streams-per-organization";q=5;qu="concurrent-requests"',
      );
      // Another organization is not affected.
      const bobs = await openEvents(stack.url, bob.readKey);
      // A closed stream gives its place back (the server sees the client leave).
      await keyStreams[0].close();
      await waitFor('a place to come free', async () => {
        const again = await open(alice.readKey);
        await again.body?.cancel();
        return again.status === 200;
      });
      for (const stream of [...keyStreams.slice(1), ...adminStreams, bobs]) await stream.close();
    });

    it('refuses a request without a key, and a malformed Last-Event-ID', async () => {
      expect((await fetch(`${stack.url}/v1/events`)).status).toBe(401);
      const bad = await fetch(`${stack.url}/v1/events`, {
        headers: { authorization: `Bearer ${alice.readKey}`, 'last-event-id': 'yesterday' },
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { detail: string }).detail).toContain('Last-Event-ID');
    });
  });
}
