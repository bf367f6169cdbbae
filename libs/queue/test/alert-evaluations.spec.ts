import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { ALERTS_QUEUE, enqueueAlertEvaluation, EVALUATE_ALERTS_JOB } from '../src/index.js';

/** Against a real Redis: how many evaluations the snapshots of a backlog ask for, and which run last. */
let connection: Redis;
let queue: Queue;
let worker: Worker;

beforeAll(async () => {
  connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = uniquePrefix('alert-evaluations');
  queue = new Queue(ALERTS_QUEUE, { connection, prefix });
  // A worker that only hands out jobs when asked (getNextJob), to hold one active.
  worker = new Worker(ALERTS_QUEUE, null, { connection, prefix, autorun: false });
});

afterAll(async () => {
  await worker?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  connection?.disconnect();
});

async function waitingClusters(): Promise<string[]> {
  const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed']);
  return jobs
    .filter((job) => job.name === EVALUATE_ALERTS_JOB)
    .map((job) => (job.data as { clusterId: string }).clusterId);
}

describe('enqueueAlertEvaluation: one evaluation per cluster at a time', () => {
  it('snapshots recorded while their cluster’s evaluation waits ask for no other', async () => {
    for (let i = 0; i < 5; i++) await enqueueAlertEvaluation(queue, 'cluster-a', `a-${i}`);
    await enqueueAlertEvaluation(queue, 'cluster-b', 'b-0');
    expect((await waitingClusters()).sort()).toEqual(['cluster-a', 'cluster-b']);
  });

  it('one recorded while its cluster’s evaluation runs is evaluated after it, once', async () => {
    const token = 'holder';
    const running: { clusterId: string }[] = [];
    for (;;) {
      const job = await worker.getNextJob(token);
      if (!job) break;
      running.push(job.data as { clusterId: string });
      if (
        running.filter((one) => one.clusterId === 'cluster-a').length === 1 &&
        running.at(-1)?.clusterId === 'cluster-a'
      ) {
        // The state after these snapshots has not been read by the running evaluation.
        for (let i = 5; i < 8; i++) await enqueueAlertEvaluation(queue, 'cluster-a', `a-${i}`);
        expect(await waitingClusters()).not.toContain('cluster-a');
      }
      await job.moveToCompleted('done', token, false);
    }
    expect(running.map((job) => job.clusterId).sort()).toEqual(['cluster-a', 'cluster-a', 'cluster-b']);
    expect(await waitingClusters()).toEqual([]);
  });
});
