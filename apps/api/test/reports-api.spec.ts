import { roundCents } from '@zw/core';
import { CSV_COLUMNS, parseCsv, type ReportDocument } from '@zw/reports';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
import { CHROMIUM, HAS_CHROMIUM, launchChromium } from '../../../test/support/browser.js';
import { dayOfHistory } from '../../../test/support/reports.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { ProblemSchema } from '../src/http/schemas.js';
import {
  ReportListSchema,
  ReportSchema,
  ScheduleAnswerSchema,
  ScheduleListSchema,
  ScheduleSchema,
} from '../src/reports/reports.schemas.js';

/**
 * Report schedules and reports through the API, on the real stack (API and worker in this process, real
 * Postgres and Redis, history pushed through ingest): CRUD and validation with problem+json, scopes,
 * tenancy (another tenant's ids answer 404, whatever the route), manual runs, downloads in every format,
 * and the same operations over GraphQL.
 */

const DAY = 24 * 3_600_000;
const SCREENSHOT = join(__dirname, '__screenshots__', 'report.png');

/*
 * Code run inside the browser, as text: the tests type-check without the DOM library.
 */
interface RenderedPage {
  title: string;
  heading: string;
  injected: boolean;
  charts: { width: number; height: number; shapes: number }[];
  height: number;
}
const RENDERED_PAGE = `({
  title: document.title,
  heading: document.querySelector('h1')?.textContent ?? '',
  injected: document.querySelector('h1 b') !== null,
  charts: [...document.querySelectorAll('svg')].map((svg) => {
    const box = svg.getBoundingClientRect();
    return { width: box.width, height: box.height, shapes: svg.querySelectorAll('polyline, rect, circle').length };
  }),
  height: document.documentElement.scrollHeight,
})`;

interface PixelStatistics {
  width: number;
  height: number;
  /** Distinct colours (5 bits per channel). */
  colors: number;
  nonWhiteShare: number;
}
/** Decodes a PNG (base64) in the browser and counts its colours and non-white pixels. */
const PIXEL_STATISTICS = `async (base64) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + base64;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, image.width, image.height).data;
  const colors = new Set();
  let nonWhite = 0;
  for (let i = 0; i < data.length; i += 4) {
    colors.add(((data[i] >> 3) << 10) | ((data[i + 1] >> 3) << 5) | (data[i + 2] >> 3));
    if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) nonWhite++;
  }
  return { width: image.width, height: image.height, colors: colors.size, nonWhiteShare: nonWhite / (data.length / 4) };
}`;
let stack: QueryStack;
let acme: Tenant;
let other: Tenant;
const clusters: Record<'us' | 'eu' | 'foreign', string> = { us: '', eu: '', foreign: '' };
const periodEnd = new Date(Math.floor(Date.now() / DAY) * DAY);
const periodStart = new Date(periodEnd.getTime() - DAY);

function expectProblem(answer: { status: number; headers: Headers; body: unknown }, status: number, detail: RegExp) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = ProblemSchema.parse(answer.body);
  expect(problem.detail).toMatch(detail);
  return problem;
}

async function readyReport(key: string, id: string) {
  return waitFor(`report ${id} ready`, async () => {
    const answer = await apiClient(stack.url, key).get(`/v1/reports/${id}`);
    if (answer.body.status === 'failed') throw new Error(`report failed: ${answer.body.error}`);
    return answer.body.status === 'ready' ? ReportSchema.parse(answer.body) : null;
  });
}

interface GraphQLAnswer {
  // GraphQL answers are whatever the query selected; the tests read them field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: Record<string, any> | null;
  errors?: { message: string; extensions: Record<string, unknown> }[];
}

async function graphql(key: string, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${stack.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as GraphQLAnswer;
}

beforeAll(async () => {
  stack = await startQueryStack('rapi');
  acme = await createTenant(stack.prisma, 'acme-reports');
  other = await createTenant(stack.prisma, 'other-reports');
  const us = await createCluster(stack.prisma, acme, 'prod-us', { cloud: 'aws', region: 'us-east-1' });
  const eu = await createCluster(stack.prisma, acme, 'prod-eu', { cloud: 'gcp', region: 'europe-west1' });
  const foreign = await createCluster(stack.prisma, other, 'theirs', { cloud: 'aws' });
  Object.assign(clusters, { us: us.id, eu: eu.id, foreign: foreign.id });
  const ids: string[] = [];
  for (const point of dayOfHistory(periodStart)) ids.push(await pushSnapshot(stack.url, us.token, point.list));
  ids.push(
    await pushSnapshot(stack.url, eu.token, capturedAt(fleet(12, 3, 5), new Date(periodStart.getTime() - 3_600_000))),
  );
  ids.push(await pushSnapshot(stack.url, foreign.token, capturedAt(fleet(5, 3, 9), new Date(periodStart.getTime()))));
  await waitProcessed(stack.prisma, ids);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('report schedules over REST', () => {
  it('documents exactly the report paths in the OpenAPI spec', async () => {
    const spec = await apiClient(stack.url, null).get<{ paths: Record<string, Record<string, unknown>> }>('/docs-json');
    const paths = Object.entries(spec.body.paths).filter(([path]) => path.includes('report'));
    expect(Object.fromEntries(paths.map(([path, methods]) => [path, Object.keys(methods).sort()]))).toEqual({
      '/v1/report-schedules': ['get', 'post'],
      '/v1/report-schedules/{id}': ['delete', 'get', 'patch'],
      '/v1/report-schedules/{id}/run': ['post'],
      '/v1/reports': ['get'],
      '/v1/reports/{id}': ['get'],
      '/v1/reports/{id}/download': ['get'],
    });
  });

  it('creates a schedule (admin): cadence as cron, scope, formats; the webhook secret is shown once', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const created = await admin.post('/v1/report-schedules', {
      name: 'Weekly FinOps',
      cadence: 'weekly',
      timeZone: 'Europe/Paris',
      scope: { kind: 'clusters', clusterIds: [clusters.us, clusters.eu] },
      formats: ['html', 'csv'],
      webhook: { url: 'https://hooks.example.com/zonewise' },
    });
    expect(created.status).toBe(201);
    const answer = ScheduleAnswerSchema.parse(created.body);
    expect(answer.webhookSecret).toMatch(/^zws_[A-Za-z0-9_-]{43}$/);
    expect(answer.schedule).toMatchObject({
      name: 'Weekly FinOps',
      cadence: 'weekly',
      cron: '0 0 * * 1',
      timeZone: 'Europe/Paris',
      scope: { kind: 'clusters', clusterIds: [clusters.us, clusters.eu] },
      formats: ['html', 'csv'],
      webhook: { url: 'https://hooks.example.com/zonewise', secretPrefix: answer.webhookSecret!.slice(0, 10) },
      enabled: true,
      lastReport: null,
    });
    // Next Monday, local midnight in Paris.
    const next = new Date(answer.schedule.nextRunAt!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Paris',
        weekday: 'long',
        hour: '2-digit',
        minute: '2-digit',
      }).format(next),
    ).toBe('Monday 00:00');
    const read = await apiClient(stack.url, acme.readKey).get(`/v1/report-schedules/${answer.schedule.id}`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(answer.webhookSecret);
    // At rest the secret is encrypted under the deployment's current key, never in plain text.
    const row = await stack.prisma.reportSchedule.findUniqueOrThrow({ where: { id: answer.schedule.id } });
    expect(row.webhookSecret).toBeNull();
    expect(row.webhookSecretKeyId).toBe('test-1');
    expect(Buffer.from(row.webhookSecretSealed!).toString('latin1')).not.toContain(answer.webhookSecret);
  });

  it('refuses invalid schedules with problem+json naming the field', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const cases: [unknown, string, RegExp][] = [
      [{ name: 'x', cadence: 'cron' }, 'cron', /required with the `cron` cadence/],
      [{ name: 'x', cadence: 'daily', cron: '0 1 * * *' }, 'cron', /only the `cron` cadence/],
      [{ name: 'x', cadence: 'cron', cron: '0 0 * *' }, 'cron', /5 fields/],
      [{ name: 'x', cadence: 'cron', cron: '99 * * * *' }, 'cron', /invalid cron expression/],
      [{ name: 'x', cadence: 'cron', cron: '*/5 * * * *' }, 'cron', /every 5 minutes.*at most every 1 hour/],
      [{ name: 'x', cadence: 'daily', timeZone: 'Moon/Base' }, 'timeZone', /unknown time zone/],
      [{ name: 'x', cadence: 'hourly' }, 'cadence', /./],
      [{ name: 'x', cadence: 'daily', formats: [] }, 'formats', /./],
      [{ name: 'x', cadence: 'daily', formats: ['csv', 'csv'] }, 'formats', /each format once/],
      [{ name: 'x', cadence: 'daily', scope: { kind: 'clusters', clusterIds: [] } }, 'scope.clusterIds', /./],
      [{ name: 'x', cadence: 'daily', webhook: { url: 'http://hooks.example.com/' } }, 'webhook.url', /https URL/],
      [{ name: 'x', cadence: 'daily', webhook: { url: 'https://127.0.0.1/hook' } }, 'webhook.url', /public address/],
      [
        { name: 'x', cadence: 'daily', webhook: { url: 'https://169.254.169.254/latest' } },
        'webhook.url',
        /public address/,
      ],
      [
        { name: 'x', cadence: 'daily', webhook: { url: 'https://u:p@hooks.example.com/' } },
        'webhook.url',
        /credentials/,
      ],
      [{ name: 'x', cadence: 'daily', colour: 'blue' }, 'colour', /unknown body parameter/],
    ];
    for (const [body, field, message] of cases) {
      const problem = expectProblem(await admin.post('/v1/report-schedules', body), 400, /./);
      expect(problem.errors, JSON.stringify(body)).toEqual(
        expect.arrayContaining([expect.objectContaining({ location: 'body', field })]),
      );
      expect(problem.errors!.find((error) => error.field === field)!.message, JSON.stringify(body)).toMatch(message);
    }
    expectProblem(await admin.get('/v1/report-schedules/not-a-uuid'), 400, /path parameter "id": must be a UUID/);
  });

  it('lets a viewer list and read, an operator also run, but neither create, change nor delete (403 naming the role)', async () => {
    const read = apiClient(stack.url, acme.readKey);
    const { body } = await apiClient(stack.url, acme.adminKey).post('/v1/report-schedules', {
      name: 'Scoped',
      cadence: 'daily',
    });
    const id = body.schedule.id;
    expect((await read.get('/v1/report-schedules')).status).toBe(200);
    expectProblem(await read.post('/v1/report-schedules', { name: 'no', cadence: 'daily' }), 403, /"admin" role/);
    expectProblem(await read.patch(`/v1/report-schedules/${id}`, { name: 'no' }), 403, /"admin" role/);
    expectProblem(await read.delete(`/v1/report-schedules/${id}`), 403, /"admin" role/);
    expectProblem(await read.post(`/v1/report-schedules/${id}/run`, {}), 403, /"operator" role.*has "viewer"/);
    const operator = apiClient(stack.url, acme.operatorKey);
    expectProblem(await operator.patch(`/v1/report-schedules/${id}`, { name: 'no' }), 403, /"admin" role/);
    expect((await operator.post(`/v1/report-schedules/${id}/run`, {})).status).toBe(202);
    expectProblem(await apiClient(stack.url, null).get('/v1/reports'), 401, /missing API key/);
  });

  it('changes a schedule: renaming keeps its rhythm, a new cadence re-anchors it, webhooks come, rotate and go', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const created = ScheduleAnswerSchema.parse(
      (await admin.post('/v1/report-schedules', { name: 'Changing', cadence: 'daily' })).body,
    );
    expect(created.webhookSecret).toBeNull();
    const id = created.schedule.id;
    const anchor = async () => (await stack.prisma.reportSchedule.findUniqueOrThrow({ where: { id } })).anchorAt;
    const firstAnchor = await anchor();

    const renamed = ScheduleAnswerSchema.parse(
      (await admin.patch(`/v1/report-schedules/${id}`, { name: 'Renamed' })).body,
    );
    expect(renamed.schedule.name).toBe('Renamed');
    expect(await anchor()).toEqual(firstAnchor);

    const monthly = ScheduleAnswerSchema.parse(
      (
        await admin.patch(`/v1/report-schedules/${id}`, {
          cadence: 'cron',
          cron: '0 6 1 * *',
          timeZone: 'America/New_York',
        })
      ).body,
    );
    expect(monthly.schedule).toMatchObject({ cadence: 'cron', cron: '0 6 1 * *', timeZone: 'America/New_York' });
    expect((await anchor()).getTime()).toBeGreaterThan(firstAnchor.getTime());

    const withHook = ScheduleAnswerSchema.parse(
      (await admin.patch(`/v1/report-schedules/${id}`, { webhook: { url: 'https://hooks.example.com/a' } })).body,
    );
    expect(withHook.webhookSecret).toMatch(/^zws_/);
    const moved = ScheduleAnswerSchema.parse(
      (await admin.patch(`/v1/report-schedules/${id}`, { webhook: { url: 'https://hooks.example.com/b' } })).body,
    );
    expect(moved.webhookSecret).toBeNull(); // same secret, new URL
    expect(moved.schedule.webhook).toEqual({
      url: 'https://hooks.example.com/b',
      secretPrefix: withHook.schedule.webhook!.secretPrefix,
    });
    const rotated = ScheduleAnswerSchema.parse(
      (await admin.patch(`/v1/report-schedules/${id}`, { rotateWebhookSecret: true })).body,
    );
    expect(rotated.webhookSecret).toMatch(/^zws_/);
    expect(rotated.webhookSecret).not.toBe(withHook.webhookSecret);
    const removed = ScheduleAnswerSchema.parse(
      (await admin.patch(`/v1/report-schedules/${id}`, { webhook: null })).body,
    );
    expect(removed.schedule.webhook).toBeNull();
    expectProblem(
      await admin.patch(`/v1/report-schedules/${id}`, { rotateWebhookSecret: true }),
      400,
      /has no webhook/,
    );
    expectProblem(await admin.patch(`/v1/report-schedules/${id}`, {}), 400, /nothing to change/);

    const disabled = ScheduleAnswerSchema.parse(
      (await admin.patch(`/v1/report-schedules/${id}`, { enabled: false })).body,
    );
    expect(disabled.schedule).toMatchObject({ enabled: false, nextRunAt: null });
  });

  it('pages through schedules oldest first with a stable cursor', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const all = ScheduleListSchema.parse((await admin.get('/v1/report-schedules?limit=500')).body).schedules;
    expect(all.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = ScheduleListSchema.parse(
        (await admin.get(`/v1/report-schedules?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body,
      );
      expect(page.schedules.length).toBeLessThanOrEqual(2);
      seen.push(...page.schedules.map((schedule) => schedule.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((schedule) => schedule.id));
  });
});

describe('tenancy', () => {
  let theirSchedule: string;
  let theirReport: string;

  beforeAll(async () => {
    const theirs = apiClient(stack.url, other.adminKey);
    theirSchedule = (await theirs.post('/v1/report-schedules', { name: 'Theirs', cadence: 'daily' })).body.schedule.id;
    const run = await theirs.post(`/v1/report-schedules/${theirSchedule}/run`, { period: 'previous' });
    theirReport = run.body.report.id;
    await readyReport(other.readKey, theirReport);
  });

  it("answers 404 for another tenant's schedule or report on every route, never its data", async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/report-schedules/${theirSchedule}`],
      ['PATCH', `/v1/report-schedules/${theirSchedule}`, { name: 'mine now' }],
      ['DELETE', `/v1/report-schedules/${theirSchedule}`],
      ['POST', `/v1/report-schedules/${theirSchedule}/run`, {}],
      ['GET', `/v1/reports?scheduleId=${theirSchedule}`],
      ['GET', `/v1/reports/${theirReport}`],
      ['GET', `/v1/reports/${theirReport}/download?format=json`],
    ];
    for (const [method, path, body] of routes) {
      const answer = await admin.call(method, path, body);
      expectProblem(answer, 404, /in your organization/);
      expect(JSON.stringify(answer.body)).not.toContain('Theirs');
    }
    const list = ReportListSchema.parse((await admin.get('/v1/reports?limit=500')).body);
    expect(list.reports.map((report) => report.id)).not.toContain(theirReport);
    const schedules = ScheduleListSchema.parse((await admin.get('/v1/report-schedules?limit=500')).body);
    expect(schedules.schedules.map((schedule) => schedule.id)).not.toContain(theirSchedule);
    // Their schedule is untouched.
    expect((await stack.prisma.reportSchedule.findUniqueOrThrow({ where: { id: theirSchedule } })).name).toBe('Theirs');
  });

  it("refuses a scope naming another tenant's cluster (404 naming the field), as for an unknown one", async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    for (const id of [clusters.foreign, '0190a0a0-0000-7000-8000-000000000000']) {
      const problem = expectProblem(
        await admin.post('/v1/report-schedules', {
          name: 'x',
          cadence: 'daily',
          scope: { kind: 'clusters', clusterIds: [clusters.us, id] },
        }),
        404,
        new RegExp(`no cluster ${id} in your organization`),
      );
      expect(problem.errors).toEqual([
        { location: 'body', field: 'scope.clusterIds.1', message: `no cluster ${id} in your organization` },
      ]);
    }
  });
});

describe('running a schedule and downloading its report', () => {
  let scheduleId: string;
  let report: ReturnType<typeof ReportSchema.parse>;

  beforeAll(async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    scheduleId = (
      await admin.post('/v1/report-schedules', {
        name: 'Daily <b>FinOps</b> & "friends"',
        cadence: 'daily',
        timeZone: 'UTC',
        scope: { kind: 'fleet' },
      })
    ).body.schedule.id;
    const run = await admin.post(`/v1/report-schedules/${scheduleId}/run`, { period: 'previous' });
    expect(run.status).toBe(202);
    expect(run.headers.get('location')).toBe(`/v1/reports/${run.body.report.id}`);
    expect(run.body.report).toMatchObject({ status: 'pending', trigger: 'manual', partial: false, downloads: {} });
    report = await readyReport(acme.readKey, run.body.report.id);
  }, 60_000);

  it('makes the previous period once: running it again answers the same report', async () => {
    expect(report).toMatchObject({
      period: {
        start: periodStart.toISOString(),
        end: periodEnd.toISOString(),
        timeZone: 'UTC',
        label: periodStart.toISOString().slice(0, 10),
      },
      formats: ['json', 'csv', 'html'],
      delivery: null,
    });
    const again = await apiClient(stack.url, acme.adminKey).post(`/v1/report-schedules/${scheduleId}/run`, {
      period: 'previous',
    });
    expect(again.status).toBe(200);
    expect(again.body.report.id).toBe(report.id);
    expect(await stack.prisma.report.count({ where: { scheduleId } })).toBe(1);
    const listed = ReportListSchema.parse(
      (await apiClient(stack.url, acme.readKey).get(`/v1/reports?scheduleId=${scheduleId}`)).body,
    );
    expect(listed.reports.map((r) => r.id)).toEqual([report.id]);
    const schedule = ScheduleSchema.parse(
      (await apiClient(stack.url, acme.readKey).get(`/v1/report-schedules/${scheduleId}`)).body,
    );
    expect(schedule.lastReport).toEqual({
      id: report.id,
      periodStart: periodStart.toISOString(),
      periodEnd: periodEnd.toISOString(),
      status: 'ready',
    });
  });

  it('runs the current period up to now as a partial report, and the full period is still its own', async () => {
    const run = await apiClient(stack.url, acme.adminKey).post(`/v1/report-schedules/${scheduleId}/run`, {});
    expect(run.status).toBe(202);
    const partial = await readyReport(acme.readKey, run.body.report.id);
    expect(partial.partial).toBe(true);
    expect(partial.period.start).toBe(periodEnd.toISOString());
    expect(partial.period.label).toMatch(/\(so far\)$/);
  });

  it('downloads the JSON document, with the summary the report view shows', async () => {
    const answer = await apiClient(stack.url, acme.readKey).get(`/v1/reports/${report.id}/download?format=json`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('content-disposition')).toMatch(
      /^attachment; filename="zonewise-daily-b-finops-b-friends-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    const document = answer.body as ReportDocument;
    expect(document.schema).toBe('zonewise.report/v1');
    expect(document.scope).toMatchObject({
      kind: 'fleet',
      clusters: [
        { id: clusters.eu, name: 'prod-eu' },
        { id: clusters.us, name: 'prod-us' },
      ],
    });
    expect(report.summary!.totals.withHints).toEqual(document.totals.withHints);
    expect(report.summary!.missedByReason.map((entry) => entry.reason)).toEqual([
      'not-enabled',
      'too-few-endpoints',
      'overload-threshold',
      'node-info',
      'other',
    ]);
    // Each cluster priced at its own rate: prod-eu on Google Cloud, prod-us on AWS.
    expect(document.clusters.map((cluster) => [cluster.name, cluster.pricing.pricePerGb])).toEqual([
      ['prod-eu', 0.01],
      ['prod-us', 0.02],
    ]);
    const savings = await apiClient(stack.url, acme.readKey).get(
      `/v1/savings?from=${periodStart.toISOString()}&to=${periodEnd.toISOString()}`,
    );
    for (const figure of ['withHints', 'withoutHints', 'missedSavings'] as const) {
      expect(Math.abs(document.totals[figure].cost - savings.body.totals[figure].cost)).toBeLessThan(
        1e-9 * Math.max(1, savings.body.totals[figure].cost),
      );
    }
  });

  it('serves the JSON as stored, tagged by when it was made, and a report stored as jsonb before with its money in cents', async () => {
    const download = async (id: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${stack.url}/v1/reports/${id}/download?format=json`, {
        headers: { authorization: `Bearer ${acme.readKey}`, ...headers },
      });
      return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
    };
    const stored = await stack.prisma.report.findUniqueOrThrow({ where: { id: report.id } });
    const first = await download(report.id);
    expect(first.body).toBe(stored.documentJson);
    // The report never changes once made: a client holding it is told so instead of sent it again.
    expect(first.etag).toBe(`"${report.id}.json.${stored.generatedAt!.getTime()}"`);
    // (fetch adds `Cache-Control: no-cache` to a conditional request unless it names one, as the Fetch
    // standard says; an HTTP cache revalidating sends max-age=0.)
    const revalidation = { 'if-none-match': first.etag!, 'cache-control': 'max-age=0' };
    expect(await download(report.id, revalidation)).toMatchObject({ status: 304, body: '' });
    // A report made before document_json: its document as jsonb, with exact money.
    const document = JSON.parse(stored.documentJson!) as ReportDocument;
    document.totals.withHints.cost = 12.3456;
    const legacy = await stack.prisma.report.create({
      data: {
        organizationId: acme.organizationId,
        scheduleId: stored.scheduleId,
        periodStart: new Date('2026-01-01T00:00:00Z'),
        periodEnd: new Date('2026-01-02T00:00:00Z'),
        trigger: 'schedule',
        formats: ['json'],
        status: 'ready',
        document: document as object,
      },
    });
    const served = await download(legacy.id);
    expect(served.status).toBe(200);
    const { withHints } = document.totals;
    expect(JSON.parse(served.body)).toEqual({
      ...document,
      totals: { ...document.totals, withHints: { ...withHints, cost: 12.35 } },
    });
    await stack.prisma.report.delete({ where: { id: legacy.id } });
  });

  it('downloads the CSV: one row per Service per cluster, adding up to the totals', async () => {
    const answer = await apiClient(stack.url, acme.readKey).get<string>(`/v1/reports/${report.id}/download?format=csv`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = parseCsv(answer.body);
    expect(header).toEqual([...CSV_COLUMNS]);
    const document = (await apiClient(stack.url, acme.readKey).get(`/v1/reports/${report.id}/download?format=json`))
      .body as ReportDocument;
    expect(rows).toHaveLength(document.services.length);
    const column = (name: (typeof CSV_COLUMNS)[number]) => header.indexOf(name);
    const keys = rows.map(
      (row) => `${row[column('cluster_id')]}/${row[column('namespace')]}/${row[column('service')]}`,
    );
    expect(new Set(keys).size).toBe(rows.length);
    expect(new Set(rows.map((row) => row[column('cluster')]))).toEqual(new Set(['prod-us', 'prod-eu']));
    const sum = (name: (typeof CSV_COLUMNS)[number]) =>
      rows.reduce((total, row) => total + Number(row[column(name)]), 0);
    // Every row's money is in cents, and the cents add up to the total rounded once.
    expect(Math.round(sum('cost_with_hints_usd') * 100)).toBe(
      Math.round(roundCents(document.totals.withHints.cost) * 100),
    );
    expect(sum('cross_zone_gb_without_hints')).toBeCloseTo(document.totals.withoutHints.crossZoneGb, 2);
    const reasons = new Set(rows.map((row) => row[column('missed_reason')]));
    expect(reasons).toEqual(new Set(['', 'not-enabled', 'too-few-endpoints', 'overload-threshold', 'node-info']));
  });

  it.skipIf(!HAS_CHROMIUM)(
    HAS_CHROMIUM
      ? 'renders the HTML in headless Chromium: charts drawn, nothing fetched, a screenshot that is not blank'
      : `renders the HTML in headless Chromium: SKIPPED, no chromium binary at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
    async () => {
      const html = (
        await apiClient(stack.url, acme.readKey).get<string>(`/v1/reports/${report.id}/download?format=html`)
      ).body;
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
        const fetched: string[] = [];
        await page.route('**/*', async (route) => {
          fetched.push(route.request().url());
          await route.abort();
        });
        await page.setContent(html, { waitUntil: 'load' });
        const rendered = (await page.evaluate(RENDERED_PAGE)) as RenderedPage;
        expect(fetched).toEqual([]);
        expect(rendered.heading).toContain('Daily <b>FinOps</b> & "friends"');
        expect(rendered.injected).toBe(false);
        expect(rendered.charts.length).toBeGreaterThanOrEqual(4);
        for (const chart of rendered.charts) {
          expect(chart.width).toBeGreaterThan(300);
          expect(chart.height).toBeGreaterThan(50);
        }
        expect(rendered.charts.filter((chart) => chart.shapes > 0).length).toBeGreaterThanOrEqual(4);
        const png = await page.screenshot({ fullPage: true, type: 'png' });
        mkdirSync(join(__dirname, '__screenshots__'), { recursive: true });
        writeFileSync(SCREENSHOT, png);
        // Not blank: decode the screenshot in the browser and look at its pixels.
        const viewer = await browser.newPage();
        const pixels = (await viewer.evaluate(
          `(${PIXEL_STATISTICS})(${JSON.stringify(png.toString('base64'))})`,
        )) as PixelStatistics;
        expect(pixels.width).toBe(1100);
        expect(pixels.height).toBeGreaterThan(1500);
        expect(pixels.colors).toBeGreaterThan(50);
        expect(pixels.nonWhiteShare).toBeGreaterThan(0.05);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  it('downloads the HTML: self-contained, escaped, with inline SVG charts and a strict CSP', async () => {
    const answer = await apiClient(stack.url, acme.readKey).get<string>(
      `/v1/reports/${report.id}/download?format=html`,
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = answer.body;
    expect(html).toContain('Daily &lt;b&gt;FinOps&lt;/b&gt; &amp; &quot;friends&quot;');
    expect(html).not.toContain('<b>FinOps</b>');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\b(src|href)=|url\(/i);
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(4);
  });

  it('answers 404 for a format the report was not made in, and 409 while it is not ready', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const csvOnly = (await admin.post('/v1/report-schedules', { name: 'CSV only', cadence: 'daily', formats: ['csv'] }))
      .body.schedule.id;
    const run = await admin.post(`/v1/report-schedules/${csvOnly}/run`, { period: 'previous' });
    await readyReport(acme.readKey, run.body.report.id);
    expectProblem(
      await admin.get(`/v1/reports/${run.body.report.id}/download?format=html`),
      404,
      /made as csv, not html/,
    );
    expect((await admin.get(`/v1/reports/${run.body.report.id}/download?format=json`)).status).toBe(404);
    expectProblem(await admin.get(`/v1/reports/${run.body.report.id}/download?format=pdf`), 400, /format/);
    // A report claimed but not made yet (as between the claim and the worker).
    const pending = await stack.prisma.report.create({
      data: {
        organizationId: acme.organizationId,
        scheduleId: csvOnly,
        periodStart: new Date('2026-01-01T00:00:00Z'),
        periodEnd: new Date('2026-01-02T00:00:00Z'),
        trigger: 'schedule',
        formats: ['csv'],
      },
    });
    expectProblem(await admin.get(`/v1/reports/${pending.id}/download?format=csv`), 409, /is pending/);
  });

  it('deletes a schedule with its reports', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const id = (await admin.post('/v1/report-schedules', { name: 'Short-lived', cadence: 'daily' })).body.schedule.id;
    const run = await admin.post(`/v1/report-schedules/${id}/run`, { period: 'previous' });
    await readyReport(acme.readKey, run.body.report.id);
    expect((await admin.delete(`/v1/report-schedules/${id}`)).status).toBe(204);
    expectProblem(await admin.get(`/v1/report-schedules/${id}`), 404, /no report schedule/);
    expectProblem(await admin.get(`/v1/reports/${run.body.report.id}`), 404, /no report/);
  });
});

describe('report schedules over GraphQL', () => {
  it('creates, lists, runs and reads reports, with the REST validation and scopes', async () => {
    const created = await graphql(
      acme.adminKey,
      `
        mutation ($input: ReportScheduleInput!) {
          createReportSchedule(input: $input) {
            webhookSecret
            schedule {
              id
              name
              cadence
              cron
              timeZone
              scope {
                kind
                clusterIds
              }
              formats
              enabled
              nextRunAt
            }
          }
        }
      `,
      {
        input: {
          name: 'GraphQL monthly',
          cadence: 'monthly',
          scope: { kind: 'clusters', clusterIds: [clusters.us] },
          formats: ['json'],
        },
      },
    );
    expect(created.errors).toBeUndefined();
    const schedule = created.data!.createReportSchedule.schedule;
    expect(schedule).toMatchObject({
      cadence: 'monthly',
      cron: '0 0 1 * *',
      timeZone: 'UTC',
      scope: { kind: 'clusters', clusterIds: [clusters.us] },
    });
    const run = await graphql(
      acme.adminKey,
      `
        mutation ($id: ID!) {
          runReportSchedule(id: $id, period: previous) {
            id
            status
            partial
          }
        }
      `,
      {
        id: schedule.id,
      },
    );
    expect(run.errors).toBeUndefined();
    const reportId = run.data!.runReportSchedule.id;
    await readyReport(acme.readKey, reportId);
    const read = await graphql(
      acme.readKey,
      `
        query ($id: ID!, $scheduleId: ID!) {
          report(id: $id) {
            id
            status
            periodLabel
            summary {
              withHints {
                cost
              }
              missedByReason {
                reason
                basis
                cost
              }
            }
            downloads {
              format
              path
            }
          }
          reports(scheduleId: $scheduleId) {
            nodes {
              id
            }
          }
          reportSchedule(id: $scheduleId) {
            lastReport {
              id
              status
            }
          }
        }
      `,
      { id: reportId, scheduleId: schedule.id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data!.report).toMatchObject({
      id: reportId,
      status: 'ready',
      downloads: [{ format: 'json', path: `/v1/reports/${reportId}/download?format=json` }],
    });
    expect(read.data!.report.summary.missedByReason).toHaveLength(5);
    expect(read.data!.reports.nodes).toEqual([{ id: reportId }]);
    expect(read.data!.reportSchedule.lastReport).toEqual({ id: reportId, status: 'ready' });

    const invalid = await graphql(
      acme.adminKey,
      `
        mutation {
          createReportSchedule(input: { name: "x", cadence: cron, cron: "* * * * *" }) {
            schedule {
              id
            }
          }
        }
      `,
    );
    expect(invalid.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(invalid.errors![0].message).toMatch(/every 1 minute/);
    const forbidden = await graphql(
      acme.readKey,
      `
        mutation ($id: ID!) {
          deleteReportSchedule(id: $id)
        }
      `,
      { id: schedule.id },
    );
    expect(forbidden.errors![0].extensions).toMatchObject({ code: 'FORBIDDEN' });
    const foreign = await graphql(
      other.readKey,
      `
        query ($id: ID!) {
          reportSchedule(id: $id) {
            name
          }
          report(id: $id) {
            id
          }
        }
      `,
      { id: schedule.id },
    );
    expect(foreign.data).toBeNull();
    expect(foreign.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND' });
    const deleted = await graphql(
      acme.adminKey,
      `
        mutation ($id: ID!) {
          deleteReportSchedule(id: $id)
        }
      `,
      { id: schedule.id },
    );
    expect(deleted.data).toEqual({ deleteReportSchedule: true });
  });
});
