import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveEvent, openEvents } from '../../../test/support/live-events.js';
import {
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { capturedAt, evolve, fleet } from '../../../test/support/snapshots.js';
import { startInProcessWorker } from '../../../test/support/worker.js';
import { AgentStalenessService } from '../../worker/src/agent-staleness.service.js';

const STALE_AFTER_SECONDS = 3;

/** `cluster.stale` / `cluster.fresh`: announced by the workers' sweeper, once per crossing, per organization. */
describe('GET /v1/events: a cluster whose agent stops pushing', () => {
  let stack: QueryStack;
  let secondWorker: INestApplicationContext | undefined;
  let alice: Tenant;
  let bob: Tenant;
  let aliceCluster: { id: string; token: string };
  let bobCluster: { id: string; token: string };
  const base = fleet(4, 3, 7);
  let step = 0;
  const fresh = () => capturedAt(evolve(base, ++step), new Date());

  beforeAll(async () => {
    stack = await startQueryStack('evstale', { STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) });
    alice = await createTenant(stack.prisma, 'evs-alice');
    bob = await createTenant(stack.prisma, 'evs-bob');
    aliceCluster = await createCluster(stack.prisma, alice, 'alice-quiet');
    bobCluster = await createCluster(stack.prisma, bob, 'bob-quiet');
  });
  afterAll(async () => {
    await secondWorker?.close();
    await stack?.stop();
  });

  const about = (clusterId: string, type: string) => (event: LiveEvent) =>
    event.event === type && event.data.clusterId === clusterId;

  it('announces the crossing once to its organization, with several workers and a restart, and the return', async () => {
    const alices = await openEvents(stack.url, alice.readKey);
    const bobs = await openEvents(stack.url, bob.readKey);
    const aliceList = fresh();
    await waitProcessed(stack.prisma, [
      await pushSnapshot(stack.url, aliceCluster.token, aliceList),
      await pushSnapshot(stack.url, bobCluster.token, fresh()),
    ]);

    const stale = await alices.waitFor(about(aliceCluster.id, 'cluster.stale'), 30_000);
    expect(stale.data).toEqual({
      clusterId: aliceCluster.id,
      lastSnapshotCapturedAt: aliceList.metadata.annotations?.['zonewise.io/captured-at'],
      staleAfterSeconds: STALE_AFTER_SECONDS,
    });
    await bobs.waitFor(about(bobCluster.id, 'cluster.stale'), 30_000);

    // A second worker sweeps the same clusters from now on; the first is still there: several sweeps later,
    // still one announcement per cluster.
    secondWorker = await startInProcessWorker(stack.env);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(alices.received.filter(about(aliceCluster.id, 'cluster.stale'))).toHaveLength(1);
    expect(bobs.received.filter(about(bobCluster.id, 'cluster.stale'))).toHaveLength(1);
    // Tenancy: neither organization hears of the other's cluster.
    expect(alices.received.filter((event) => event.data.clusterId === bobCluster.id)).toEqual([]);
    expect(bobs.received.filter((event) => event.data.clusterId === aliceCluster.id)).toEqual([]);
    await alices.close();

    // Disconnected: the agent pushes again, and the cluster comes back. Resuming after the stale event
    // replays what was missed.
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, aliceCluster.token, fresh())]);
    const resumed = await openEvents(stack.url, alice.readKey, stale.id);
    const back = await resumed.waitFor(about(aliceCluster.id, 'cluster.fresh'), 30_000);
    expect(back.data.staleAfterSeconds).toBe(STALE_AFTER_SECONDS);
    expect(resumed.received.filter(about(aliceCluster.id, 'cluster.stale'))).toHaveLength(0);
    // …and goes stale again: a second crossing is a second announcement.
    await resumed.waitFor(about(aliceCluster.id, 'cluster.stale'), 30_000);
    expect(resumed.received.filter(about(aliceCluster.id, 'cluster.fresh'))).toHaveLength(1);
    await resumed.close();
    // Bob pushed nothing more: his cluster stays stale, announced once.
    expect(bobs.received.filter((event) => event.event.startsWith('cluster.'))).toHaveLength(1);
    await bobs.close();
  });

  it('announces once when workers check the same crossing at the same instant (atomic guard)', async () => {
    const late = await createCluster(stack.prisma, alice, 'alice-late');
    const events = await openEvents(stack.url, alice.readKey);
    // Captured an hour ago: stale from its first sweep on.
    const list = capturedAt(evolve(base, ++step), new Date(Date.now() - 3_600_000));
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, late.token, list)]);
    const checkers = [stack.worker, secondWorker!].map((worker) => worker.get(AgentStalenessService));
    const results = await Promise.all([...checkers, ...checkers].map((checker) => checker.announce()));
    await events.waitFor(about(late.id, 'cluster.stale'), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // and the scheduled sweeps after them
    expect(events.received.filter(about(late.id, 'cluster.stale'))).toHaveLength(1);
    expect(results.reduce((sum, result) => sum + result.wentStale, 0)).toBeLessThanOrEqual(1);
    await events.close();
  });
});
