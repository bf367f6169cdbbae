import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardDirectory } from '../../api/src/http/dashboard.js';
import { HAS_CHROMIUM, launchChromium, NO_CHROMIUM_REASON } from '../../../test/support/browser.js';
import {
  freePort,
  prometheusMissing,
  type RunningPrometheus,
  startPrometheus,
} from '../../../test/support/prometheus.js';
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
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { number } from '../src/format.js';
import { hintStateWord, priceSourceWord } from '../src/vocabulary.js';
import { seedFleet } from './support/fleet.js';
import {
  controlsOutsideViewport,
  DESKTOP,
  eventually,
  openSession,
  PHONE,
  seriousViolations,
  type Session,
  signIn,
} from './support/session.js';

/**
 * The pages that make the dashboard complete without curl, in real Chromium against the real stack:
 * traffic sources (the status the worker's test gets), report recipients (a real webhook receiver),
 * the audit log (admins only); every page at desktop and phone width with axe-core; a fleet of 1,001
 * clusters grouped by cloud, region and label; an empty organization and a cloud priced at zero.
 */

const DASHBOARD = dashboardDirectory();
const SCREENSHOTS = join(__dirname, '..', '..', '..', 'docs', 'screenshots');
const HOUR = 3_600_000;
const FLEET_SIZE = 1001;
const NO_PROMETHEUS = prometheusMissing();
const skipReason = !HAS_CHROMIUM
  ? NO_CHROMIUM_REASON
  : !DASHBOARD
    ? 'SKIPPED, the dashboard is not built (npm run build)'
    : '';

/** A webhook receiver: every POST it gets, answered 200. */
interface Receiver {
  url: string;
  posts: { headers: Record<string, string | string[] | undefined>; body: string }[];
  server: Server;
}

async function startReceiver(): Promise<Receiver> {
  const posts: Receiver['posts'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST') posts.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, posts, server };
}

/** The page has drawn: its heading is there and nothing is loading any more. */
async function settled(page: Page, heading: string): Promise<void> {
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  await eventually(() => page.locator('.loading').count()).toBe(0);
}

describe.skipIf(skipReason !== '')(
  `the dashboard's settings pages and scale${skipReason ? `: ${skipReason}` : ''}`,
  { timeout: 180_000 },
  () => {
    let stack: QueryStack;
    let tenant: Tenant;
    let browser: Browser;
    let session: Session;
    let receiver: Receiver;
    let prometheus: RunningPrometheus | undefined;
    let cluster: { id: string; token: string };
    let azure: { id: string; token: string };
    const base = fleet(12, 3, 17);

    beforeAll(async () => {
      stack = await startQueryStack('dash_pages', {
        RATE_LIMIT_REQUESTS: '100000',
        STALE_AFTER_SECONDS: '86400',
        TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: 'true',
        TRAFFIC_SOURCE_MIN_WINDOW_SECONDS: '1',
        // The Authorization header is stored encrypted: a test-only key, never a deployment's.
        TRAFFIC_SOURCES_ENCRYPTION_KEY: 'a-test-only-traffic-source-key',
        REPORT_WEBHOOK_ALLOW_PRIVATE: 'true',
        REPORT_WEBHOOK_BACKOFF_MS: '200',
        // Alert channels are sealed with the keyring: a test-only key, never a deployment's.
        SECRET_ENCRYPTION_KEYS: 'test-1:a-test-only-secret-encryption-key',
        ALERT_ALLOW_PRIVATE: 'true',
      });
      tenant = await createTenant(stack.prisma, 'pages');
      cluster = await createCluster(stack.prisma, tenant, 'pages-eu', { cloud: 'aws', region: 'eu-west-1' });
      azure = await createCluster(stack.prisma, tenant, 'azure-we', { cloud: 'azure', region: 'westeurope' });
      const pushed = [
        await pushSnapshot(stack.url, cluster.token, capturedAt(base, new Date(Date.now() - HOUR))),
        await pushSnapshot(stack.url, azure.token, capturedAt(fleet(6, 3, 4), new Date(Date.now() - HOUR))),
      ];
      await waitProcessed(stack.prisma, pushed, 120_000);
      receiver = await startReceiver();
      browser = await launchChromium();
      session = await openSession(browser);
      await signIn(session.page, stack.url, tenant.adminKey);
    }, 240_000);

    afterAll(async () => {
      await session?.context.close();
      await browser?.close();
      await prometheus?.stop();
      await new Promise((resolve) => receiver?.server.close(resolve));
      await stack?.stop();
    });

    const api = (key = tenant.adminKey) => apiClient(stack.url, key);
    const nav = (page: Page, name: string) =>
      page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name, exact: true });

    it("sets a cluster's traffic source and shows the status the worker's test of it gets", async () => {
      const { page } = session;
      const sourcePath = `/v1/clusters/${cluster.id}/traffic-source`;
      await nav(page, 'Traffic sources').click();
      await page.locator('select[name=cluster]').selectOption(cluster.id);
      await page.waitForURL(new RegExp(`cluster=${cluster.id}`));
      await page.getByText('This cluster has no traffic source').waitFor();

      // Nothing listens on this port: the worker's first measurement finds the Prometheus unreachable.
      const closed = await freePort();
      await page.getByLabel('Preset').selectOption('beyla');
      await page.getByLabel('Prometheus URL').fill(`http://127.0.0.1:${closed}`);
      await page.getByLabel('Window').fill('5m');
      await page.getByLabel('Every').fill('1h');
      await page.getByLabel('Authorization header').fill('Bearer a-test-only-token');
      await page.getByRole('button', { name: 'Save and test connection' }).click();
      const status = page.getByTestId('source-status');
      await eventually(() => status.getAttribute('data-status')).not.toBe('pending');
      const failed = (await api().get(sourcePath)).body;
      expect(failed.status).toBe('unreachable');
      expect(failed.hasAuthHeader).toBe(true);
      expect(await status.getAttribute('data-status')).toBe(failed.status);
      expect(await page.getByTestId('source-error').textContent()).toContain(failed.lastError);
      expect(await status.textContent()).toContain('with a stored Authorization header');
      // The header is write-only: never on the page.
      expect(await page.content()).not.toContain('a-test-only-token');

      if (!NO_PROMETHEUS) {
        // A real Prometheus with no series of this cluster: reached, and said to hold nothing for it.
        prometheus = await startPrometheus([]);
        await page.getByLabel('Prometheus URL').fill(prometheus.url);
        await page.getByRole('button', { name: 'Save and test connection' }).click();
        await eventually(async () => (await api().get(sourcePath)).body.status).not.toMatch(/^(pending|unreachable)$/);
        const reached = (await api().get(sourcePath)).body;
        await eventually(() => status.getAttribute('data-status')).toBe(reached.status);
        expect(reached.url).toBe(prometheus.url);
        expect(reached.hasAuthHeader).toBe(true); // empty kept the stored header

        // Test again: the same source, measured again (a newer attempt), with the status it gets.
        await page.getByRole('button', { name: 'Test connection again' }).click();
        await eventually(async () => (await api().get(sourcePath)).body.lastAttemptAt > reached.lastAttemptAt).toBe(
          true,
        );
        const again = (await api().get(sourcePath)).body;
        await eventually(() => status.getAttribute('data-status')).toBe(again.status);
      }
      await page.screenshot({ path: join(SCREENSHOTS, 'traffic-sources.png'), fullPage: true });

      // Removing asks first, naming what goes.
      await page.getByRole('button', { name: 'Remove source' }).click();
      const dialog = page.getByRole('dialog', { name: "Remove this cluster's traffic source?" });
      expect(await dialog.textContent()).toContain('measurements are deleted');
      await dialog.getByRole('button', { name: 'Remove source' }).click();
      await page.getByText('This cluster has no traffic source').waitFor();
      expect((await api().get(sourcePath)).status).toBe(404);

      // A viewer reads, and is offered no change.
      const viewer = await openSession(browser);
      try {
        await signIn(viewer.page, stack.url, tenant.readKey);
        await viewer.page.goto(`${stack.url}/traffic-sources?cluster=${cluster.id}`);
        await viewer.page.getByText('Read only: an operator or admin sets traffic sources').waitFor();
        expect(await viewer.page.getByRole('button', { name: 'Save and test connection' }).count()).toBe(0);
      } finally {
        await viewer.context.close();
      }
      expect(session.errors).toEqual([]);
    });

    it("sends a schedule's reports to its webhook: set, delivered, secret rotated, removed", async () => {
      const { page } = session;
      await nav(page, 'Reports').click();
      await page.getByLabel('Name', { exact: true }).fill('to the hook');
      await page.getByLabel('Cadence').selectOption('weekly');
      await page.getByLabel('Webhook URL (optional)').fill(receiver.url);
      await page.getByRole('button', { name: 'Create schedule' }).click();
      const first = (await page.getByTestId('secret-value').textContent())!.trim();
      const schedule = (await api().get('/v1/report-schedules')).body.schedules.find(
        (entry: { name: string }) => entry.name === 'to the hook',
      );
      expect(schedule.webhook.url).toBe(receiver.url);
      expect(first.startsWith(schedule.webhook.secretPrefix)).toBe(true);

      const row = page.locator('tr[data-schedule="to the hook"]');
      await row.getByRole('button', { name: 'Recipients' }).click();
      const panel = page.getByTestId('webhook');
      expect(await panel.getByTestId('webhook-url').textContent()).toBe(receiver.url);

      // Run now: the report is made, then POSTed to the receiver, and the page says it was delivered.
      await row.getByRole('button', { name: 'Run now' }).click();
      const delivery = page.getByTestId('delivery').first();
      await eventually(() => delivery.getAttribute('data-delivery')).toBe('succeeded');
      const report = (await api().get(`/v1/reports?scheduleId=${schedule.id}`)).body.reports[0];
      expect(report.delivery.status).toBe('succeeded');
      expect(await delivery.textContent()).toContain(`delivered (HTTP ${report.delivery.lastStatusCode})`);
      expect(receiver.posts.length).toBeGreaterThan(0);
      await page.screenshot({ path: join(SCREENSHOTS, 'report-recipients.png'), fullPage: true });

      // Rotating the secret asks first; the new one is shown once.
      await panel.getByRole('button', { name: 'Rotate secret' }).click();
      const rotation = page.getByRole('dialog', { name: 'Rotate the webhook secret of “to the hook”?' });
      expect(await rotation.textContent()).toContain('rejects them');
      await rotation.getByRole('button', { name: 'Rotate secret' }).click();
      const secret = panel.getByTestId('secret-value');
      await secret.waitFor();
      const second = (await secret.textContent())!.trim();
      expect(second).not.toBe(first);
      const rotated = (await api().get(`/v1/report-schedules/${schedule.id}`)).body;
      expect(second.startsWith(rotated.webhook.secretPrefix)).toBe(true);

      // Removing the webhook asks first; the reports are then sent nowhere.
      await panel.getByRole('button', { name: 'Remove webhook' }).click();
      await page
        .getByRole('dialog', { name: 'Stop sending the reports of “to the hook”?' })
        .getByRole('button', { name: 'Remove webhook' })
        .click();
      await panel.getByText('No webhook').waitFor();
      expect((await api().get(`/v1/report-schedules/${schedule.id}`)).body.webhook).toBeNull();
      expect(session.errors).toEqual([]);
    });

    it("sends a schedule's reports to an alert channel picked on its recipients panel", async () => {
      const { page } = session;
      const channel = await api().post<{ id: string }>('/v1/alert-channels', {
        name: 'reports on slack',
        kind: 'slack',
        target: receiver.url,
      });
      expect(channel.status).toBe(201);
      await page.goto(`${stack.url}/reports`);
      await settled(page, 'Reports');
      await page.locator('tr[data-schedule="to the hook"]').getByRole('button', { name: 'Recipients' }).click();
      const panel = page.getByTestId('report-channels');
      await panel.getByText('No alert channel delivers these reports.').waitFor();
      await panel.getByRole('checkbox', { name: 'reports on slack' }).check();
      await panel.getByRole('button', { name: 'Save channels' }).click();
      const listed = panel.getByTestId('report-channel-list').locator(`li[data-channel="${channel.body.id}"]`);
      await listed.waitFor();
      expect(await listed.textContent()).toContain('reports on slack');
      const schedule = (await api().get('/v1/report-schedules')).body.schedules.find(
        (entry: { name: string }) => entry.name === 'to the hook',
      );
      expect(schedule.channelIds).toEqual([channel.body.id]);
      expect(session.errors).toEqual([]);
    });

    it('shows the audit log to admins as the API answers it, filtered by action as you type', async () => {
      const { page } = session;
      await nav(page, 'Audit log').click();
      const rows = page.locator('[data-testid=audit-log] tbody tr');
      const ids = () => rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-entry')));
      const all = (await api().get('/v1/audit-log?limit=50')).body.entries as { id: string; action: string }[];
      expect(all.map((entry) => entry.action)).toContain('cluster.traffic_source_create');
      await eventually(ids).toEqual(all.map((entry) => entry.id));

      await page.getByLabel('Action').fill('report_schedule');
      await page.waitForURL(/action=report_schedule/);
      const filtered = (await api().get('/v1/audit-log?action=report_schedule&limit=50')).body.entries as {
        id: string;
        action: string;
      }[];
      expect(filtered.length).toBeGreaterThan(0);
      await eventually(ids).toEqual(filtered.map((entry) => entry.id));
      await page.screenshot({ path: join(SCREENSHOTS, 'audit-log.png'), fullPage: true });

      // Not for a viewer: no link, and the page says whose it is.
      const viewer = await openSession(browser);
      try {
        await signIn(viewer.page, stack.url, tenant.readKey);
        expect(await nav(viewer.page, 'Audit log').count()).toBe(0);
        await viewer.page.goto(`${stack.url}/audit-log`);
        await viewer.page.getByText('the audit log is for admins').waitFor();
        expect(await viewer.page.locator('[data-testid=audit-log]').count()).toBe(0);
      } finally {
        await viewer.context.close();
      }
    });

    it('says once that Azure charges nothing between zones, on the fleet and on the cluster', async () => {
      const { page } = session;
      await nav(page, 'Fleet').click();
      const note = page.getByTestId('zero-prices');
      await note.waitFor();
      const entry = (await api().get('/v1/fleet')).body.clusters.find((c: { id: string }) => c.id === azure.id);
      expect(entry.monthly.pricing.pricePerGb).toBe(0);
      expect(await note.textContent()).toContain('azure-we');
      expect(await note.textContent()).toContain(entry.monthly.pricing.note);
      await page.goto(`${stack.url}/clusters/${azure.id}`);
      await eventually(() => page.getByTestId('cluster-price').textContent()).toContain(
        'because its price is zero, not because nothing crosses zones',
      );
    });

    it("sets the organization's price and a cluster's own, the page and GET /v1/pricing agreeing", async () => {
      const operator = await openSession(browser);
      try {
        const { page } = operator;
        await signIn(page, stack.url, tenant.operatorKey);
        await nav(page, 'Prices').click();
        await settled(page, 'Prices');
        // The catalogue as the API answers it, Azure and on-prem at 0 and said so.
        const before = (await api().get('/v1/pricing')).body as {
          catalogue: { cloud: string; pricePerGb: number }[];
        };
        const catalogue = page.getByTestId('catalogue');
        for (const entry of before.catalogue) {
          await eventually(() => catalogue.locator(`tr[data-cloud="${entry.cloud}"]`).count()).toBe(1);
        }
        expect(before.catalogue.find((entry) => entry.cloud === 'azure')?.pricePerGb).toBe(0);
        const zero = (await page.getByTestId('zero-catalogue').textContent()) ?? '';
        for (const entry of before.catalogue.filter((free) => free.pricePerGb === 0))
          expect(zero).toContain(entry.cloud);

        // The organization's price: every cluster without its own price takes it.
        await page.locator('input[name=organization-price]').fill('0.015');
        await page.getByTestId('organization-price-form').getByRole('button', { name: 'Set' }).click();
        await eventually(() => page.getByTestId('organization-price').textContent()).toContain('0.015');
        const afterOrg = (await api().get('/v1/pricing')).body;
        expect(afterOrg.organization.crossZonePricePerGb).toBe(0.015);
        const azureRow = page.locator(`tr[data-cluster="${azure.id}"]`);
        await eventually(() => azureRow.getAttribute('data-source')).toBe('organization-override');

        // The cluster's own price wins over the organization's.
        const row = page.locator(`tr[data-cluster="${cluster.id}"]`);
        await row.locator(`input[name="cluster-price-${cluster.id}"]`).fill('0.02');
        await row.getByRole('button', { name: 'Set' }).click();
        await eventually(() => row.getAttribute('data-source')).toBe('cluster-override');
        const priced = (await api().get('/v1/pricing')).body.clusters as {
          id: string;
          pricing: { pricePerGb: number; source: string; overridePerGb: number | null };
        }[];
        const own = priced.find((entry) => entry.id === cluster.id)!;
        expect(own.pricing).toMatchObject({ pricePerGb: 0.02, source: 'cluster-override', overridePerGb: 0.02 });
        for (const entry of priced) {
          const shown = page.locator(`tr[data-cluster="${entry.id}"]`);
          expect(await shown.getAttribute('data-source')).toBe(entry.pricing.source);
          expect(await shown.getByTestId('cluster-price').textContent()).toContain(String(entry.pricing.pricePerGb));
          expect(await shown.getByTestId('cluster-price-source').textContent()).toBe(
            priceSourceWord(entry.pricing.source),
          );
        }
        await page.screenshot({ path: join(SCREENSHOTS, 'prices.png'), fullPage: true });

        // A viewer reads the same figures, with no form.
        const viewer = await openSession(browser);
        try {
          await signIn(viewer.page, stack.url, tenant.readKey);
          await viewer.page.goto(`${stack.url}/prices`);
          await settled(viewer.page, 'Prices');
          await eventually(() => viewer.page.getByTestId('organization-price').textContent()).toContain('0.015');
          expect(await viewer.page.locator('main form').count()).toBe(0);
          expect(await viewer.page.locator('main input').count()).toBe(0);
          await viewer.page.getByText('Read only: an operator or admin sets prices.').waitFor();
        } finally {
          await viewer.context.close();
        }

        // Clearing asks first and names the consequence; then both go back.
        await row.getByRole('button', { name: 'Clear' }).click();
        const dialog = page.getByRole('dialog');
        expect(await dialog.textContent()).toContain("figures go back to the organization's price");
        await dialog.getByRole('button', { name: 'Clear price' }).click();
        await eventually(() => row.getAttribute('data-source')).toBe('organization-override');
        await page.getByTestId('organization-price-form').getByRole('button', { name: 'Clear' }).click();
        const orgDialog = page.getByRole('dialog');
        expect(await orgDialog.textContent()).toContain('Figures go back to the catalogue price');
        await orgDialog.getByRole('button', { name: 'Clear price' }).click();
        await eventually(() => azureRow.getAttribute('data-source')).not.toBe('organization-override');
        const cleared = (await api().get('/v1/pricing')).body;
        expect(cleared.organization.crossZonePricePerGb).toBeNull();
        expect(cleared.clusters.find((entry: { id: string }) => entry.id === azure.id).pricing.pricePerGb).toBe(0);
        expect(operator.errors).toEqual([]);
      } finally {
        await operator.context.close();
      }
    });

    it('names the run-rate and the history apart, and the refused state with one word', async () => {
      const { page } = session;
      await nav(page, 'Fleet').click();
      for (const tile of ['tile-cost', 'tile-saved', 'tile-missed']) {
        await eventually(() => page.getByTestId(tile).locator('.tile-label').textContent()).toContain('run-rate');
      }
      await nav(page, 'Savings').click();
      for (const tile of ['savings-cost', 'savings-saved', 'savings-missed']) {
        const label = await page.getByTestId(tile).locator('.tile-label').textContent();
        expect(label, tile).toContain('so far');
        expect(label, tile).not.toContain('run-rate');
      }
      // The API's `removed` hint state is "refused" wherever a page names it.
      await page.goto(`${stack.url}/clusters/${cluster.id}`);
      await page.locator('[data-testid=services-table] tbody tr').first().waitFor();
      const options = await page.locator('select[name=hintState] option').allTextContents();
      expect(options.join(' ')).toContain(hintStateWord('removed'));
      expect(hintStateWord('removed')).toBe('refused');
      const shown = await page.locator('main').innerText();
      expect(shown).not.toMatch(/\bremoved\b/);
    });

    it('starts an empty organization with "Register your first cluster", not tiles of $0.00', async () => {
      const empty = await createTenant(stack.prisma, 'pages-empty');
      const fresh = await openSession(browser);
      try {
        await signIn(fresh.page, stack.url, empty.adminKey);
        await fresh.page.getByRole('heading', { name: 'Register your first cluster' }).waitFor();
        expect(await fresh.page.getByTestId('tile-cost').count()).toBe(0);
        expect(await fresh.page.getByText('$0.00').count()).toBe(0);
        expect(await seriousViolations(fresh.page)).toEqual([]);
      } finally {
        await fresh.context.close();
      }
    });

    it('passes axe-core on every page at desktop and phone width, every control on screen on the phone', async () => {
      const service = (await api().get(`/v1/clusters/${cluster.id}/services?limit=1`)).body.services[0];
      const pages: [string, string][] = [
        ['/', 'Fleet'],
        [`/clusters/${cluster.id}`, 'pages-eu'],
        [`/clusters/${cluster.id}/services/${service.namespace}/${service.name}`, service.name],
        ['/savings', 'Savings'],
        ['/reports', 'Reports'],
        [`/traffic-sources?cluster=${cluster.id}`, 'Traffic sources'],
        ['/prices', 'Prices'],
        ['/audit-log', 'Audit log'],
        ['/alerts', 'Alerts'],
        ['/admin', 'Admin'],
      ];
      for (const device of [DESKTOP, PHONE]) {
        const width = `${device.viewport.width}px`;
        const visitor = await openSession(browser, device);
        try {
          await signIn(visitor.page, stack.url, tenant.adminKey);
          for (const [path, heading] of pages) {
            await visitor.page.goto(`${stack.url}${path}`);
            await settled(visitor.page, heading);
            expect(await seriousViolations(visitor.page), `${path} at ${width}`).toEqual([]);
            if (device === PHONE)
              expect(await controlsOutsideViewport(visitor.page), `${path} at ${width}`).toEqual([]);
          }
          expect(visitor.errors).toEqual([]);
        } finally {
          await visitor.context.close();
        }
      }
    });

    it(`groups a fleet of ${number(FLEET_SIZE)} clusters by cloud, region and label, each group opening its clusters`, async () => {
      const large = await createTenant(stack.prisma, 'pages-large');
      const seeded = await seedFleet(stack.prisma, large.organizationId, FLEET_SIZE);
      const answer = (await api(large.readKey).get('/v1/fleet')).body;
      expect(answer.clusters).toHaveLength(FLEET_SIZE);
      for (const device of [DESKTOP, PHONE]) {
        const visitor = await openSession(browser, device);
        try {
          const { page } = visitor;
          await signIn(page, stack.url, large.readKey);
          const rows = page.locator('[data-testid=clusters-table] tbody tr');
          await eventually(() => rows.count()).toBe(50);
          expect(await page.getByTestId('clusters-page').textContent()).toContain(
            `1–50 of ${FLEET_SIZE} (page 1 of ${Math.ceil(FLEET_SIZE / 50)})`,
          );
          const groups = page.locator('[data-testid=fleet-groups] tbody tr');
          const counted = (key: (cluster: (typeof seeded)[number]) => string) => {
            const counts = new Map<string, number>();
            for (const cluster of seeded) counts.set(key(cluster), (counts.get(key(cluster)) ?? 0) + 1);
            return counts;
          };
          for (const [groupBy, key] of [
            ['cloud', (c: (typeof seeded)[number]) => c.cloud],
            ['region', (c: (typeof seeded)[number]) => c.region],
            ['label:env', (c: (typeof seeded)[number]) => c.labels.env],
          ] as const) {
            await page.locator('select[name=groupBy]').selectOption(groupBy);
            const expected = counted(key);
            await eventually(() => groups.count()).toBe(expected.size);
            for (const [name, count] of expected) {
              expect(await page.locator(`tr[data-group="${name}"] td.num`).first().textContent(), name).toBe(
                number(count),
              );
            }
            expect(await seriousViolations(page), `grouped by ${groupBy}`).toEqual([]);
          }
          // A group opens its clusters: the prod label's, 50 a page.
          const prod = counted((c) => c.labels.env).get('prod')!;
          await page.locator('tr[data-group="prod"]').getByRole('button', { name: 'prod' }).click();
          await page.waitForURL(/group=prod/);
          await eventually(() => page.getByTestId('clusters-shown').textContent()).toBe(
            `${prod} of ${FLEET_SIZE} shown`,
          );
          expect(await rows.count()).toBe(Math.min(50, prod));
          if (device === PHONE) expect(await controlsOutsideViewport(page)).toEqual([]);
          else await page.screenshot({ path: join(SCREENSHOTS, 'fleet-grouped.png') });
          expect(visitor.errors).toEqual([]);
        } finally {
          await visitor.context.close();
        }
      }
    });
  },
);
