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
 * The most Services one report covers (REPORT_MAX_SERVICES), through the API and a real worker: the API
 * refuses a schedule whose scope holds more, naming both counts; a schedule whose scope grew past it after
 * it was made fails its report at the first attempt, saying the same; a schedule of the same organization
 * within it is made as usual.
 */

const MAX_SERVICES = 12;

let stack: QueryStack;
let tenant: Tenant;
let clusters: { small: string; large: string };
/** Services the pushed snapshots hold: the large cluster's, and both clusters' together. */
let servicesInLarge: number;
let servicesInBoth: number;
/** Made while the large cluster had not pushed yet: its scope grew past the limit after. */
let grownScheduleId: string;

const servicesIn = (list: ReturnType<typeof fleet>) => list.items.filter((item) => item.kind === 'Service').length;
const tooMany = (services: number) =>
  `the scope holds ${services} Services and one report covers at most ${MAX_SERVICES} (REPORT_MAX_SERVICES): ` +
  'scope the schedule to fewer clusters, or split it into several schedules';

beforeAll(async () => {
  stack = await startQueryStack('rlimits', {
    REPORT_MAX_SERVICES: String(MAX_SERVICES),
    REPORT_JOB_ATTEMPTS: '5',
    REPORT_JOB_BACKOFF_MS: '100',
  });
  tenant = await createTenant(stack.prisma, 'report-limits');
  const small = await createCluster(stack.prisma, tenant, 'small', { cloud: 'aws', region: 'us-east-1' });
  const large = await createCluster(stack.prisma, tenant, 'large', { cloud: 'aws', region: 'us-east-1' });
  clusters = { small: small.id, large: large.id };
  const lists = { small: fleet(MAX_SERVICES - 4, 2), large: fleet(MAX_SERVICES + 3, 2) };
  expect(servicesIn(lists.small)).toBeLessThanOrEqual(MAX_SERVICES);
  servicesInLarge = servicesIn(lists.large);
  servicesInBoth = servicesIn(lists.small) + servicesInLarge;
  await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, small.token, lists.small)]);
  grownScheduleId = await createSchedule('grown later', [clusters.small, clusters.large]);
  await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, large.token, lists.large)]);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function createSchedule(name: string, clusterIds: string[]): Promise<string> {
  const created = await apiClient(stack.url, tenant.adminKey).post('/v1/report-schedules', {
    name,
    cadence: 'daily',
    formats: ['json'],
    scope: { kind: 'clusters', clusterIds },
  });
  expect(created.status).toBe(201);
  return created.body.schedule.id;
}

/** Runs the schedule now, and waits until its report is made or has failed. */
async function runReport(scheduleId: string) {
  const run = await apiClient(stack.url, tenant.adminKey).post(`/v1/report-schedules/${scheduleId}/run`, {});
  expect(run.status).toBe(202);
  const id: string = run.body.report.id;
  return waitFor(`report of ${scheduleId}`, async () => {
    const row = await stack.prisma.report.findUniqueOrThrow({ where: { id } });
    return row.status === 'pending' ? null : row;
  });
}

describe('REPORT_MAX_SERVICES', () => {
  it('refuses a schedule whose scope holds more Services, created or changed, naming both counts', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    for (const scope of [{ kind: 'clusters', clusterIds: [clusters.small, clusters.large] }, { kind: 'fleet' }]) {
      const refused = await admin.post('/v1/report-schedules', { name: 'too large', cadence: 'daily', scope });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ location: 'body', field: 'scope', message: tooMany(servicesInBoth) }]);
    }
    const small = await createSchedule('small first', [clusters.small]);
    const widened = await admin.patch(`/v1/report-schedules/${small}`, {
      scope: { kind: 'clusters', clusterIds: [clusters.large] },
    });
    expect(widened.status).toBe(400);
    expect(widened.body.detail).toBe(`body field "scope": ${tooMany(servicesInLarge)}`);
    expect(await stack.prisma.reportSchedule.count({ where: { name: 'too large' } })).toBe(0);
  });

  it('fails the report of a scope that grew past it at its first attempt, saying why', async () => {
    const report = await runReport(grownScheduleId);
    expect(report.status).toBe('failed');
    expect(report.attempts).toBe(1);
    expect(report.error).toBe(tooMany(servicesInBoth));
    const view = await apiClient(stack.url, tenant.readKey).get(`/v1/reports/${report.id}`);
    expect(view.body).toMatchObject({ status: 'failed', error: report.error });
  });

  it('makes a report of the same organization within the limit', async () => {
    const report = await runReport(await createSchedule('small', [clusters.small]));
    expect(report).toMatchObject({ status: 'ready', attempts: 1, error: null });
  });
});
