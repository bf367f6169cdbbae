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
} from '../../../test/support/query-api.js';
import { fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';

/**
 * The most Services one report covers (REPORT_MAX_SERVICES), through the API and a real worker: a schedule
 * whose scope holds more fails at its first attempt, saying how many and what the limit is; a schedule of
 * the same organization within it is made as usual.
 */

const MAX_SERVICES = 12;

let stack: QueryStack;
let tenant: Tenant;
let clusters: { small: string; large: string };
/** Services the pushed snapshots hold, both clusters together. */
let servicesInBoth: number;

const servicesIn = (list: ReturnType<typeof fleet>) => list.items.filter((item) => item.kind === 'Service').length;

beforeAll(async () => {
  stack = await startQueryStack('rlimits', {
    REPORT_MAX_SERVICES: String(MAX_SERVICES),
    REPORT_JOB_ATTEMPTS: '5',
    REPORT_JOB_BACKOFF_MS: '100',
  });
  tenant = await createTenant(stack.prisma, 'report-limits');
  const small = await createCluster(stack.prisma, tenant, 'small', { cloud: 'aws', region: 'us-east-1' });
  const large = await createCluster(stack.prisma, tenant, 'large', { cloud: 'aws', region: 'us-east-1' });
  const lists = { small: fleet(MAX_SERVICES - 4, 2), large: fleet(MAX_SERVICES + 3, 2) };
  expect(servicesIn(lists.small)).toBeLessThanOrEqual(MAX_SERVICES);
  servicesInBoth = servicesIn(lists.small) + servicesIn(lists.large);
  const pushed = [
    await pushSnapshot(stack.url, small.token, lists.small),
    await pushSnapshot(stack.url, large.token, lists.large),
  ];
  await waitProcessed(stack.prisma, pushed);
  clusters = { small: small.id, large: large.id };
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Runs a schedule scoped to `clusterIds` now, and waits until its report is made or has failed. */
async function runReport(name: string, clusterIds: string[]) {
  const admin = apiClient(stack.url, tenant.adminKey);
  const created = await admin.post('/v1/report-schedules', {
    name,
    cadence: 'daily',
    formats: ['json'],
    scope: { kind: 'clusters', clusterIds },
  });
  expect(created.status).toBe(201);
  const run = await admin.post(`/v1/report-schedules/${created.body.schedule.id}/run`, {});
  expect(run.status).toBe(202);
  const id: string = run.body.report.id;
  return waitFor(`report ${name}`, async () => {
    const row = await stack.prisma.report.findUniqueOrThrow({ where: { id } });
    return row.status === 'pending' ? null : row;
  });
}

describe('REPORT_MAX_SERVICES', () => {
  it('fails a report whose scope holds more Services at its first attempt, saying why', async () => {
    const report = await runReport('everything', [clusters.small, clusters.large]);
    expect(report.status).toBe('failed');
    expect(report.attempts).toBe(1);
    expect(report.error).toBe(
      `the scope holds ${servicesInBoth} Services and one report covers at most ${MAX_SERVICES} (REPORT_MAX_SERVICES): ` +
        'scope the schedule to fewer clusters, or split it into several schedules',
    );
    const view = await apiClient(stack.url, tenant.readKey).get(`/v1/reports/${report.id}`);
    expect(view.body).toMatchObject({ status: 'failed', error: report.error });
  });

  it('makes a report of the same organization within the limit', async () => {
    const report = await runReport('small', [clusters.small]);
    expect(report).toMatchObject({ status: 'ready', attempts: 1, error: null });
  });
});
