import { generateFleetSnapshot } from '@zw/core';
import { createApiKey } from '@zw/db';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardDirectory } from '../../api/src/http/dashboard.js';
import { HAS_CHROMIUM, launchChromium, NO_CHROMIUM_REASON } from '../../../test/support/browser.js';
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
import {
  prometheusMissing,
  type RunningExporter,
  type RunningPrometheus,
  scrapesHeld,
  startExporter,
  startPrometheus,
} from '../../../test/support/prometheus.js';
import { withoutZoneOnFirstNode } from '../../../test/support/reports.js';
import { capturedAt, evolve, fleet } from '../../../test/support/snapshots.js';
import { presetCounters, type TrafficPlan, withWorkloads } from '../../../test/support/traffic.js';
import { waitFor } from '../../../test/support/wait.js';
import { gb, money, number, percent, when } from '../src/format.js';
import { hintStateWord } from '../src/vocabulary.js';

/**
 * The dashboard in real Chromium against the real stack (API serving the built dashboard, worker,
 * PostgreSQL, Redis), fed through the ingest route. Every figure checked on a page is compared with what
 * the API answers for the same question. Screenshots of each page go to docs/screenshots.
 */

const DASHBOARD = dashboardDirectory();
const SCREENSHOTS = join(__dirname, '..', '..', '..', 'docs', 'screenshots');
const HOUR = 3_600_000;
const BIG_SERVICES = 10_000;
/** The measured-traffic checks need a real Prometheus; without it they are skipped, saying why. */
const NO_PROMETHEUS = prometheusMissing();

/** Waits for a condition on the page (a shared machine may be slow; the wait ends as soon as it holds). */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 });

/**
 * What a chart's SVG shows of each series. ECharts draws the legend at the chart's bottom, each item's
 * icon a stroke in its series' colour, and a series' line, area and points as paths in that colour: for
 * each series colour, the paths of that colour above the legend that have a size (a point not yet grown
 * from nothing, or the line of a lone point, has none).
 */
function seriesMarks(chart: Locator): Promise<Record<string, number>> {
  return chart.evaluate((element) => {
    const LEGEND_ROW_PX = 30;
    const paths = [...element.querySelectorAll('svg path')].map((path) => ({
      box: path.getBoundingClientRect(),
      stroke: Number(path.getAttribute('stroke-width') ?? 1) > 0 ? path.getAttribute('stroke') : null,
      colours: [path.getAttribute('fill'), path.getAttribute('stroke')],
    }));
    const lowest = Math.max(...paths.map((path) => path.box.bottom));
    const legend = paths.filter((path) => path.box.top > lowest - LEGEND_ROW_PX);
    const legendTop = Math.min(...legend.map((path) => path.box.top));
    const marks: Record<string, number> = Object.fromEntries(
      legend.flatMap((path) => (path.stroke?.startsWith('#') ? [[path.stroke, 0]] : [])),
    );
    for (const path of paths) {
      if (path.box.width === 0 || path.box.height === 0 || path.box.bottom > legendTop) continue;
      for (const colour of path.colours) if (colour && colour in marks) marks[colour] += 1;
    }
    return marks;
  });
}

const skipReason = !HAS_CHROMIUM
  ? NO_CHROMIUM_REASON
  : !DASHBOARD
    ? 'SKIPPED, the dashboard is not built (npm run build)'
    : '';

// A shared machine may be slow: each step gets two minutes (the waits inside are for conditions, not time).
describe.skipIf(skipReason !== '')(
  `the dashboard in Chromium${skipReason ? `: ${skipReason}` : ''}`,
  { timeout: 120_000 },
  () => {
    let stack: QueryStack;
    let tenant: Tenant;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const pageErrors: string[] = [];
    const clusters: Record<string, { id: string; token: string }> = {};
    let exporter: RunningExporter | undefined;
    let prometheus: RunningPrometheus | undefined;
    /** What the measured cluster's Services really move, as its Prometheus sees it. */
    let plans: TrafficPlan[] = [];

    beforeAll(async () => {
      stack = await startQueryStack('dash_e2e', {
        RATE_LIMIT_REQUESTS: '100000',
        STALE_AFTER_SECONDS: '86400',
        TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: 'true',
        TRAFFIC_SOURCE_MIN_WINDOW_SECONDS: '1',
      });
      tenant = await createTenant(stack.prisma, 'dash');
      clusters.prod = await createCluster(stack.prisma, tenant, 'prod-eu', { cloud: 'aws', region: 'eu-west-1' });
      clusters.broken = await createCluster(stack.prisma, tenant, 'staging-broken', {
        cloud: 'gcp',
        region: 'europe-west1',
      });
      clusters.big = await createCluster(stack.prisma, tenant, 'big-10k', { cloud: 'aws', region: 'us-east-1' });
      clusters.fresh = await createCluster(stack.prisma, tenant, 'fresh-no-agent');
      clusters.measured = await createCluster(stack.prisma, tenant, 'measured-us', {
        cloud: 'aws',
        region: 'us-east-1',
      });
      const now = Date.now();
      const measured = withWorkloads(fleet(12, 3, 21));
      const first = fleet(40, 9, 11);
      const second = evolve(first, 12);
      const big = generateFleetSnapshot({
        nodes: 30,
        zones: 3,
        services: BIG_SERVICES,
        endpointsPerService: 2,
        autoShare: 0.5,
        seed: 5,
      });
      const pushed = [
        await pushSnapshot(stack.url, clusters.prod.token, capturedAt(first, new Date(now - 3 * HOUR))),
        await pushSnapshot(stack.url, clusters.prod.token, capturedAt(second, new Date(now - HOUR))),
        await pushSnapshot(
          stack.url,
          clusters.broken.token,
          capturedAt(withoutZoneOnFirstNode(fleet(10, 3, 2)), new Date(now - HOUR)),
        ),
        await pushSnapshot(stack.url, clusters.big.token, capturedAt(big, new Date(now - HOUR))),
        await pushSnapshot(stack.url, clusters.measured.token, capturedAt(measured, new Date(now - 3 * HOUR))),
      ];
      await waitProcessed(stack.prisma, pushed, 240_000);
      if (!NO_PROMETHEUS) await measureTraffic(measured);
      browser = await launchChromium();
      mkdirSync(SCREENSHOTS, { recursive: true });
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
      await prometheus?.stop();
      await exporter?.stop();
      await stack?.stop();
    });

    /**
     * Two Services of the measured cluster move known volumes (a real Prometheus scrapes the exporter each
     * second); the cluster's `beyla` source points at it, and the worker measures once.
     */
    async function measureTraffic(list: Parameters<typeof presetCounters>[0]): Promise<void> {
      const listed = (await api().get(`/v1/clusters/${clusters.measured.id}/services?limit=500`)).body.services as {
        namespace: string;
        name: string;
        hints: { state: string };
        crossZone: { withHints: number };
      }[];
      const generated = listed.filter((service) => service.name.startsWith('svc-'));
      // The first: populated hints, yet 30 points more of its bytes cross than the model says (flagged).
      const populated = generated.find((s) => s.hints.state === 'populated' && s.crossZone.withHints < 0.6)!;
      const other = generated.find((service) => service !== populated)!;
      plans = [
        {
          namespace: populated.namespace,
          name: populated.name,
          gbPerMonth: 400,
          crossZone: 0.3 + populated.crossZone.withHints,
        },
        { namespace: other.namespace, name: other.name, gbPerMonth: 800, crossZone: 0.05 },
      ];
      exporter = await startExporter(presetCounters(list, plans));
      prometheus = await startPrometheus([exporter.target]);
      await scrapesHeld(prometheus, 'beyla_network_flow_bytes_total', 8);
      const configured = await api().put(`/v1/clusters/${clusters.measured.id}/traffic-source`, {
        preset: 'beyla',
        url: prometheus.url,
        window: '5s',
        interval: '1h',
      });
      expect([200, 201], JSON.stringify(configured.body)).toContain(configured.status);
      const source = await waitFor(
        'the traffic source to be measured',
        async () => {
          const answer = (await api().get(`/v1/clusters/${clusters.measured.id}/traffic-source`)).body;
          return answer.status === 'pending' ? null : answer;
        },
        30_000,
      );
      expect(source.status, source.lastError ?? '').toBe('ok');
    }

    async function newSession(): Promise<Page> {
      await context?.close();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      return page;
    }

    async function signIn(key: string): Promise<void> {
      await page.goto(`${stack.url}/`);
      await page.waitForURL('**/sign-in');
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    }

    const api = (key = tenant.adminKey) => apiClient(stack.url, key);
    const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

    it('signs in with an API key kept in sessionStorage only, and shows the fleet as the API answers it', async () => {
      await newSession();
      await signIn(tenant.adminKey);
      expect(page.url()).not.toContain(tenant.adminKey);
      expect(await page.evaluate('JSON.stringify(localStorage)')).toBe('{}');
      expect(await page.evaluate("sessionStorage.getItem('zonewise.apiKey')")).toBe(tenant.adminKey);

      const fleetAnswer = (await api().get('/v1/fleet')).body;
      const totals = fleetAnswer.totals.monthly;
      await eventually(() => page.getByTestId('tile-cost').textContent()).toContain(money(totals.withHints.cost));
      expect(await page.getByTestId('tile-saved').textContent()).toContain(money(totals.realizedSavings.cost));
      expect(await page.getByTestId('tile-missed').textContent()).toContain(money(totals.missedSavings.cost));
      // At stake: dollars as the API answers them, the count beside them, and the estimate badge with its inputs.
      expect(totals.atStake.cost).toBeGreaterThan(0);
      const atStake = page.getByTestId('tile-at-stake');
      expect(await atStake.locator('.tile-value').textContent()).toBe(money(totals.atStake.cost));
      expect(await page.getByTestId('at-stake-services').textContent()).toBe(number(totals.atStake.services));
      expect(totals.atStake.estimate).toBe(true); // the fixture's Services have the per-endpoint default volume
      expect(await atStake.locator('.badge').getAttribute('title')).toContain(
        `${totals.atStake.services} Services ask for topology routing`,
      );
      const rows = page.locator('[data-testid=clusters-table] tbody tr');
      expect(await rows.count()).toBe(5);
      for (const cluster of fleetAnswer.clusters) {
        const row = page.locator(`tr[data-cluster="${cluster.name}"]`);
        const text = await row.textContent();
        expect(text).toContain(
          `${cluster.services.populated} / ${cluster.services.removed} / ${cluster.services.none}`,
        );
        if (cluster.monthly) expect(text).toContain(money(cluster.monthly.withHints.cost));
      }
      expect(await page.locator('tr[data-cluster="fresh-no-agent"]').textContent()).toContain('no snapshot yet');
      expect(await page.locator('tr[data-cluster="staging-broken"]').textContent()).toContain('insufficient');
      // The trends draw every series as the chart appears: the fleet's snapshots, all of the last hours,
      // make one daily bucket, whose figures are points (no line joins a lone point).
      const trendCharts = page.locator('[data-testid=trends] .chart');
      await eventually(() => trendCharts.locator('svg').count()).toBe(2);
      for (const chart of await trendCharts.all()) {
        const marks = await seriesMarks(chart);
        expect(Object.keys(marks), (await chart.getAttribute('aria-label')) ?? '').toHaveLength(3);
        for (const [colour, count] of Object.entries(marks)) expect(count, colour).toBeGreaterThan(0);
      }
      await shot('fleet');

      // Sorting and filtering live in the URL: back returns to the previous view.
      await page.getByRole('button', { name: /^Cost \/ month/ }).click();
      await page.waitForURL(/sort=cost/);
      const byCost = [...fleetAnswer.clusters]
        .sort((a, b) => (b.monthly?.withHints.cost ?? -1) - (a.monthly?.withHints.cost ?? -1))
        .map((cluster) => cluster.name);
      expect(
        await rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-cluster'))),
      ).toEqual(byCost);
      await page.getByLabel('Filter by name, cloud, region or label').fill('big');
      await eventually(() => rows.count()).toBe(1);
      await page.getByLabel('Filter by name, cloud, region or label').fill('big-1');
      await page.waitForURL(/q=big-1/);
      await page.goBack();
      await page.waitForURL((url) => !url.search.includes('q='));
      expect(page.url()).toMatch(/sort=cost/);
      await eventually(() => rows.count()).toBe(5);
    });

    it('shows a cluster: its Services as the API lists them, zones, Service CIDRs, and the node-info blocker', async () => {
      // Row links are plain anchors the table follows in the app: no page load (the marker survives).
      await page.evaluate(() => Object.assign(globalThis, { stillThisDocument: true }));
      await page.locator('tr[data-cluster="prod-eu"] a').click();
      await page.waitForURL(`**/clusters/${clusters.prod.id}`);
      expect(await page.evaluate(() => 'stillThisDocument' in globalThis)).toBe(true);
      const list = (await api().get(`/v1/clusters/${clusters.prod.id}/services?limit=50`)).body;
      const rows = page.locator('[data-testid=services-table] tbody tr');
      await eventually(() => rows.count()).toBe(list.services.length);
      expect(
        await rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-service'))),
      ).toEqual(
        list.services.map((service: { namespace: string; name: string }) => `${service.namespace}/${service.name}`),
      );
      const zones = (await api().get(`/v1/clusters/${clusters.prod.id}/zones`)).body;
      await eventually(() => page.locator('[data-testid=zones-table] tbody tr').count()).toBe(zones.zones.length);
      await page.getByTestId('cidr').first().waitFor();
      await page.locator('.chart svg').first().waitFor();

      // The version and data plane the newest analysis used, and where each came from.
      const settings = (await api().get(`/v1/clusters/${clusters.prod.id}`)).body.analysisSettings;
      expect(settings).not.toBeNull();
      const words = {
        override: 'override set through the API',
        snapshot: "the agent's report",
        default: "the analysis' default",
      };
      const version = await page.getByTestId('analysis-version').textContent();
      expect(version).toContain(settings.kubernetesVersion ?? 'default');
      expect(version).toContain(`from ${words[settings.kubernetesVersionSource as keyof typeof words]}`);
      const dataPlane = await page.getByTestId('analysis-data-plane').textContent();
      expect(dataPlane).toContain(settings.dataPlane ?? 'default');
      expect(dataPlane).toContain(`from ${words[settings.dataPlaneSource as keyof typeof words]}`);
      // Hints written but ignored: the fleet's count for this cluster.
      const ignored = (await api().get('/v1/fleet')).body.clusters.find(
        (cluster: { id: string }) => cluster.id === clusters.prod.id,
      ).servicesWithIgnoredHints;
      expect(typeof ignored).toBe('number');
      await eventually(() => page.getByTestId('ignored-hints').textContent()).toContain(
        `${number(ignored)} Service${ignored === 1 ? '' : 's'} whose hints are written but ignored`,
      );
      // The best fixes, ranked as the API ranks them, each with what it saves a month.
      const ranked = (await api().get(`/v1/clusters/${clusters.prod.id}/recommendations?limit=5`)).body.services;
      expect(ranked.length).toBeGreaterThan(0);
      const topFixes = page.locator('[data-testid=top-fixes] tbody tr');
      await eventually(() => topFixes.count()).toBe(ranked.length);
      for (const [index, service] of ranked.entries()) {
        const row = topFixes.nth(index);
        expect(await row.getAttribute('data-service')).toBe(`${service.namespace}/${service.name}`);
        expect(await row.textContent()).toContain(service.recommendations[0].summary);
        expect(await row.getByTestId('top-fix-savings').textContent()).toContain(
          `${money(service.bestSavings.cost)} (${gb(service.bestSavings.crossZoneGb)})`,
        );
      }
      await shot('cluster');

      await page.goto(`${stack.url}/clusters/${clusters.broken.id}`);
      const banner = page.getByTestId('blocker');
      await banner.waitFor();
      const brokenZones = (await api().get(`/v1/clusters/${clusters.broken.id}/zones`)).body;
      expect(await banner.textContent()).toContain(brokenZones.nodeInfo.reason);
      // The banner names the nodes to fix, what depends on them, and the commands that fix them.
      const blockers = (await api().get(`/v1/clusters/${clusters.broken.id}/recommendations`)).body.nodeBlockers;
      expect(blockers.nodes.length).toBeGreaterThan(0);
      expect(blockers.nodes.some((node: { missingZone: boolean }) => node.missingZone)).toBe(true);
      const named = page.getByTestId('blocking-nodes');
      await named.waitFor();
      for (const node of blockers.nodes) {
        expect(await named.locator(`li[data-node="${node.name}"]`).textContent()).toContain(node.problem);
      }
      const blockerText = await named.textContent();
      expect(blockerText).toContain(`${number(blockers.services)} Service${blockers.services === 1 ? '' : 's'} depend`);
      expect(blockerText).toContain(`${money(blockers.savings.cost)} a month (${gb(blockers.savings.crossZoneGb)}`);
      expect(await named.locator('code').textContent()).toBe(blockers.patch);
    });

    it(`filters and pages the ${BIG_SERVICES.toLocaleString('en-US')} Services of a cluster on the server, the URL holding the view`, async () => {
      const base = `/v1/clusters/${clusters.big.id}/services`;
      await page.goto(`${stack.url}/clusters/${clusters.big.id}`);
      const rows = page.locator('[data-testid=services-table] tbody tr');
      const names = () =>
        rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-service')));
      const key = (services: { namespace: string; name: string }[]) => services.map((s) => `${s.namespace}/${s.name}`);
      await eventually(() => rows.count()).toBe(50);

      await page.locator('select[name=hintState]').selectOption('removed');
      await page.waitForURL(/hintState=removed/);
      const first = (await api().get(`${base}?hintState=removed&limit=50`)).body;
      await eventually(names).toEqual(key(first.services));

      await page.getByRole('button', { name: 'Next page' }).click();
      await page.waitForURL(/cursor=/);
      const second = (
        await api().get(`${base}?hintState=removed&limit=50&cursor=${encodeURIComponent(first.nextCursor)}`)
      ).body;
      await eventually(names).toEqual(key(second.services));

      await page.goBack();
      await eventually(names).toEqual(key(first.services));

      await page.locator('select[name=sort]').selectOption('cost');
      await page.waitForURL(/sort=cost/);
      expect(page.url()).not.toMatch(/cursor=/);
      const byCost = (await api().get(`${base}?hintState=removed&sort=cost&limit=50`)).body;
      await eventually(names).toEqual(key(byCost.services));

      // A Service's row link: a click with a modifier is the browser's (a new tab), a plain click opens the
      // Service's page in the app (no page load: the marker survives).
      const [service] = byCost.services as { namespace: string; name: string }[];
      const link = rows.first().locator('a');
      const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click({ modifiers: ['Control'] })]);
      await tab.close();
      expect(page.url()).toMatch(/sort=cost/);
      await page.evaluate(() => Object.assign(globalThis, { stillThisDocument: true }));
      await link.click();
      await page.waitForURL(`**/clusters/${clusters.big.id}/services/${service.namespace}/${service.name}`);
      await page.getByTestId('state').waitFor();
      expect(await page.evaluate(() => 'stillThisDocument' in globalThis)).toBe(true);
    });

    it('explains a Service, draws its zones and kube-proxy view, and answers a what-if from the API', async () => {
      // A Service without routing that enabling would help: the page explains why and simulates it.
      const list = (await api().get(`/v1/clusters/${clusters.prod.id}/services?opportunity=true&limit=500`)).body;
      expect(list.services.length).toBeGreaterThan(0);
      const service = list.services[0];
      const detail = (await api().get(`/v1/clusters/${clusters.prod.id}/services/${service.namespace}/${service.name}`))
        .body;
      await page.goto(`${stack.url}/clusters/${clusters.prod.id}/services/${service.namespace}/${service.name}`);
      const state = page.getByTestId('state');
      await state.waitFor();
      expect(await state.textContent()).toContain(`State: ${hintStateWord(detail.current.hints.state)}`);
      expect(await page.getByTestId('state-since').textContent()).toContain(
        `since ${when(detail.current.hintStateSince)}`,
      );
      expect(await page.getByTestId('service-cost').textContent()).toContain(
        money(detail.current.monthly.withHints.cost),
      );
      expect(await page.locator('[data-testid=zones] tbody tr').count()).toBe(detail.current.zones.length);
      expect(await page.locator('[data-testid=kube-proxy] tbody tr').count()).toBe(detail.kubeProxy.zones.length);
      expect(await page.getByTestId('flapping').textContent()).toContain(
        `${detail.timeline.hintStateChanges} of the hint state`,
      );
      // Fitted by default: the strip starts at the hour of the Service's first state, so it fills the strip.
      const states = page.getByRole('list', { name: 'states over the range' });
      const firstState = Date.parse(detail.timeline.entries[0].from);
      expect(Date.parse((await states.getAttribute('data-start'))!)).toBe(Math.floor(firstState / HOUR) * HOUR);
      expect(await page.getByTestId('timeline-ticks').locator('span').count()).toBeGreaterThan(1);
      // Over a chosen range, each state sits where it began in it: a Service recorded today is drawn at the
      // strip's end.
      await page.locator('select[name=days]').selectOption('7');
      await page.waitForURL(/days=7/);
      await eventually(
        async () =>
          Math.abs(Date.parse((await states.getAttribute('data-start'))!) - (Date.now() - 7 * 24 * HOUR)) < 2 * HOUR,
      ).toBe(true);
      const week = (
        await api().get(
          `/v1/clusters/${clusters.prod.id}/services/${service.namespace}/${service.name}?from=${await states.getAttribute('data-start')}`,
        )
      ).body;
      const strip = await states.boundingBox();
      const first = await states.getByRole('listitem').first().boundingBox();
      const range = { from: Date.parse(week.timeline.from), to: Date.parse(week.timeline.to) };
      const began = Math.max(range.from, Date.parse(detail.timeline.entries[0].from));
      const expectedLeft = strip!.x + ((began - range.from) / (range.to - range.from)) * strip!.width;
      expect(Math.abs(first!.x - expectedLeft)).toBeLessThan(3);
      expect(began - range.from).toBeGreaterThan((range.to - range.from) / 2);

      await page.getByLabel('Routing mode').selectOption('Auto');
      await page.getByRole('button', { name: 'Simulate' }).click();
      const result = page.getByTestId('what-if-result');
      await result.waitFor();
      const simulated = (
        await api(tenant.readKey).post(`/v1/clusters/${clusters.prod.id}/simulate`, {
          whatIf: { enableRouting: [{ namespace: service.namespace, name: service.name, mode: 'Auto' }] },
          services: [{ namespace: service.namespace, name: service.name }],
        })
      ).body.analysis.services[0];
      expect(await result.textContent()).toContain(`hints ${hintStateWord(simulated.hints.state)}`);
    });

    /** Opens a Service's page and checks each fix, managedBy and dataPath against the API's detail. */
    async function checkFixes(clusterId: string, service: { namespace: string; name: string }) {
      const detail = (await api().get(`/v1/clusters/${clusterId}/services/${service.namespace}/${service.name}`)).body;
      const fixes = detail.recommendations;
      expect(fixes.length).toBeGreaterThan(0);
      await page.goto(`${stack.url}/clusters/${clusterId}/services/${service.namespace}/${service.name}`);
      const items = page.locator('[data-testid=fixes] > li');
      await eventually(() => items.count()).toBe(fixes.length);
      for (const [index, fix] of fixes.entries()) {
        const item = items.nth(index);
        expect(await item.getAttribute('data-fix')).toBe(fix.kind);
        expect(await item.textContent()).toContain(fix.summary);
        expect(await item.getByTestId('fix-state').textContent()).toContain(
          `hints ${hintStateWord(fix.resultingState)}${fix.reason ? ` (${fix.reason})` : ''}; ${percent(fix.crossZone.withHints)} across zones`,
        );
        expect(await item.getByTestId('fix-savings').textContent()).toBe(
          `${money(fix.savings.cost)} (${gb(fix.savings.crossZoneGb)})`,
        );
        const overload = await item.getByTestId('fix-overload').textContent();
        for (const [zone, value] of Object.entries(fix.expectedOverload as Record<string, number>)) {
          expect(overload).toContain(`${zone} ${percent(value)}`);
        }
        expect(await item.locator('code').textContent()).toBe(fix.patch);
      }
      expect(await page.getByTestId('managed-by').textContent()).toContain(detail.current.managedBy);
      expect(await page.getByTestId('data-path').textContent()).toContain(
        detail.current.dataPath.honoursHints ? 'honours the hints' : detail.current.dataPath.reason,
      );
      return detail;
    }

    it("shows a Service's recommended fixes with the API's figures and patches, who writes its slices and its data path", async () => {
      // A Service whose hints the controller removed (a node without a zone label): its fix names the nodes.
      const blocked = (await api().get(`/v1/clusters/${clusters.broken.id}/recommendations?limit=1`)).body.services[0];
      expect(blocked.hints.state).toBe('removed');
      const blockedDetail = await checkFixes(clusters.broken.id, blocked);
      expect(blockedDetail.recommendations.map((fix: { kind: string }) => fix.kind)).toContain('nodes');

      // The best-ranked fix of a healthy cluster: the page the screenshot shows.
      const best = (await api().get(`/v1/clusters/${clusters.prod.id}/recommendations?limit=1`)).body.services[0];
      await checkFixes(clusters.prod.id, best);
      await page.locator('.chart svg').first().waitFor();
      await shot('service');
    });

    it('shows savings over a range as the API computes them, grouped and exported as CSV', async () => {
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Savings' }).click();
      await page.waitForURL('**/savings');
      const to = new Date(Math.floor(Date.now() / HOUR) * HOUR);
      const from = new Date(to.getTime() - 30 * 24 * HOUR);
      const savings = (
        await api().get(`/v1/savings?from=${from.toISOString()}&to=${to.toISOString()}&groupBy=cluster&limit=500`)
      ).body;
      await expect
        .poll(() => page.getByTestId('savings-cost').textContent())
        .toContain(money(savings.totals.withHints.cost));
      expect(await page.getByTestId('savings-saved').textContent()).toContain(
        money(savings.totals.realizedSavings.cost),
      );
      expect(await page.locator('[data-testid=savings-groups] tbody tr').count()).toBe(savings.groups.length);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      const csv = await download.createReadStream().then(async (stream) => {
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString('utf8');
      });
      expect(csv.split('\r\n').filter(Boolean)).toHaveLength(savings.groups.length + 1);
      await page.getByLabel('Group by').selectOption('namespace');
      await page.waitForURL(/groupBy=namespace/);
      await shot('savings');
    });

    /** The words a traffic basis label says for a measured share (the API's figure). */
    const basisWords = (share: number | null) =>
      (share ?? 0) >= 1
        ? 'measured traffic'
        : (share ?? 0) <= 0
          ? 'estimated traffic'
          : `traffic ${percent(share)} measured`;

    it.skipIf(NO_PROMETHEUS !== null)(
      'shows measured traffic where a Prometheus source measures it, and says estimated everywhere else',
      async () => {
        const [measured] = plans;
        const detail = (
          await api().get(`/v1/clusters/${clusters.measured.id}/services/${measured.namespace}/${measured.name}`)
        ).body;
        expect(detail.current.measured).not.toBeNull();
        await page.goto(
          `${stack.url}/clusters/${clusters.measured.id}/services/${measured.namespace}/${measured.name}`,
        );
        const figures = page.getByTestId('service-measured');
        await eventually(() => figures.textContent()).toBe(
          `${gb(detail.current.measured.trafficGb)} a month, ${percent(detail.current.measured.crossZone)} across zones`,
        );
        // The exporter's plan, through Prometheus, the worker and the API: the same volume and share.
        expect(detail.current.measured.trafficGb).toBeGreaterThan(measured.gbPerMonth * 0.95);
        expect(detail.current.measured.trafficGb).toBeLessThan(measured.gbPerMonth * 1.05);
        expect(detail.current.measured.crossZone).toBeCloseTo(measured.crossZone, 9);
        const cost = page.getByTestId('service-cost');
        expect(await cost.textContent()).toContain(money(detail.current.monthly.withHints.cost));
        expect(await cost.locator('[data-traffic]').textContent()).toBe('measured traffic');
        // The inputs name the source once, then the measurement's note (preset, query, window, time).
        const inputs = await page.getByTestId('service-inputs').textContent();
        expect(inputs).toContain(`(${detail.current.monthly.inputs.trafficNote})`);
        expect(detail.current.monthly.inputs.trafficNote).toMatch(/^measured: /);
        expect(inputs).not.toContain('measured: measured');
        expect(await page.getByTestId('service-measured-cost').textContent()).toContain(
          `${money(detail.current.modelVsMeasured.measured.cost)} a month at the measured cross-zone share`,
        );
        // The cost follows the measured share; the model's share and its cost stay beside it.
        const inputsOf = detail.current.monthly.inputs;
        expect(inputsOf.crossZoneSource).toBe('measured');
        expect(detail.current.monthly.withHints.cost).toBe(detail.current.modelVsMeasured.measured.cost);
        expect(await page.getByTestId('service-cross-zone').textContent()).toContain(
          `${percent(inputsOf.measuredCrossZone)} as routed (measured; the model says ${percent(inputsOf.modelCrossZone)})`,
        );
        expect(await page.getByTestId('service-model-cost').textContent()).toContain(
          `${money(inputsOf.trafficGb * inputsOf.modelCrossZone * inputsOf.pricePerGb)} a month at the modelled ${percent(inputsOf.modelCrossZone)}`,
        );
        // Populated hints, yet the bytes cross: the contradiction is flagged, with the API's words.
        expect(detail.current.contradiction).not.toBeNull();
        expect(await page.getByTestId('service-contradiction').textContent()).toBe(detail.current.contradiction.reason);
        await shot('service-measured');

        // A Service of the same cluster that no source measures: estimated, and said so.
        const list = (await api().get(`/v1/clusters/${clusters.measured.id}/services?limit=500`)).body.services as {
          namespace: string;
          name: string;
          measured: unknown;
          monthly: { inputs: { trafficSource: string } };
        }[];
        const unmeasured = list.find((service) => service.measured === null)!;
        expect(unmeasured.monthly.inputs.trafficSource).not.toBe('measured');
        await page.goto(
          `${stack.url}/clusters/${clusters.measured.id}/services/${unmeasured.namespace}/${unmeasured.name}`,
        );
        await eventually(() => page.getByTestId('service-measured').textContent()).toContain('none');
        expect(await page.getByTestId('service-contradiction').count()).toBe(0);
        expect(await page.getByTestId('service-cross-zone').textContent()).toContain('as routed (modelled)');
        expect(await page.getByTestId('service-cost').locator('[data-traffic]').textContent()).toBe(
          'estimated traffic',
        );
        expect(await page.getByTestId('service-measured-cost').count()).toBe(0);

        // The cluster's Services table: measured beside the measured Services' cost, estimated beside the others.
        await page.goto(`${stack.url}/clusters/${clusters.measured.id}`);
        const basis = (service: { namespace: string; name: string }) =>
          page
            .locator(`tr[data-service="${service.namespace}/${service.name}"] [data-traffic]`)
            .getAttribute('data-traffic');
        await eventually(() => basis(measured)).toBe('measured');
        expect(await basis(unmeasured)).toBe('estimated');

        // The fleet: the measured share of its traffic, and of each cluster's, as the API answers them.
        const fleetAnswer = (await api().get('/v1/fleet')).body;
        expect(fleetAnswer.totals.monthly.measuredShare).toBeGreaterThan(0);
        await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Fleet' }).click();
        await eventually(() => page.getByTestId('fleet-measured-share').textContent()).toContain(
          `${percent(fleetAnswer.totals.monthly.measuredShare)} measured (${gb(fleetAnswer.totals.monthly.measuredTrafficGb)} of ${gb(fleetAnswer.totals.monthly.trafficGb)}`,
        );
        const fleetMeasured = fleetAnswer.totals.monthly.measured;
        expect(fleetMeasured.services).toBe(plans.length);
        expect(await page.getByTestId('fleet-measured-share').textContent()).toContain(
          `Cost as routed: ${money(fleetMeasured.withHints.cost)} of ${money(fleetAnswer.totals.monthly.withHints.cost)} a month measured (${percent(fleetMeasured.withHintsCostShare)}`,
        );
        for (const cluster of fleetAnswer.clusters.filter((entry: { monthly: unknown }) => entry.monthly)) {
          expect(
            await page.locator(`tr[data-cluster="${cluster.name}"] [data-traffic]`).textContent(),
            cluster.name,
          ).toBe(basisWords(cluster.monthly.measuredShare));
        }
        const measuredCluster = fleetAnswer.clusters.find((entry: { id: string }) => entry.id === clusters.measured.id);
        expect(measuredCluster.monthly.measuredShare).toBeGreaterThan(0);

        // Savings over the page's range: the measured share of the totals and of each cluster's group.
        await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Savings' }).click();
        const to = new Date(Math.floor(Date.now() / HOUR) * HOUR);
        const from = new Date(to.getTime() - 30 * 24 * HOUR);
        const savings = (
          await api().get(`/v1/savings?from=${from.toISOString()}&to=${to.toISOString()}&groupBy=cluster&limit=500`)
        ).body;
        expect(savings.totals.inputs.measuredShare).toBeGreaterThan(0);
        await eventually(() => page.getByTestId('savings-measured-share').textContent()).toContain(
          `${percent(savings.totals.inputs.measuredShare)} measured (${gb(savings.totals.inputs.measuredTrafficGb)} of ${gb(savings.totals.trafficGb)})`,
        );
        const savingsMeasured = savings.totals.measured;
        expect(savingsMeasured.services).toBe(plans.length);
        expect(await page.getByTestId('savings-measured-cost').textContent()).toContain(
          `${money(savingsMeasured.withHints.cost)} of the ${money(savings.totals.withHints.cost)} as routed (${percent(savingsMeasured.withHintsCostShare)})`,
        );
        const groups = page.locator('[data-testid=savings-groups] tbody tr');
        expect(await groups.count()).toBe(savings.groups.length);
        for (const [index, group] of savings.groups.entries()) {
          expect(await groups.nth(index).locator('[data-traffic]').textContent(), group.cluster.name).toBe(
            basisWords(group.inputs.measuredShare),
          );
        }
      },
    );

    it('creates a schedule, runs it now and opens its HTML report', async () => {
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Reports' }).click();
      await page.getByLabel('Name').fill('weekly finops');
      await page.getByLabel('Cadence').selectOption('weekly');
      await page.getByRole('button', { name: 'Create schedule' }).click();
      const row = page.locator('tr[data-schedule="weekly finops"]');
      await row.waitFor();
      await row.getByRole('button', { name: 'Run now' }).click();
      const open = page.getByRole('button', { name: 'Open HTML' });
      await open.waitFor({ timeout: 180_000 });
      const [popup] = await Promise.all([page.waitForEvent('popup'), open.click()]);
      await popup.waitForURL(/^blob:/);
      await popup.waitForLoadState();
      expect(await popup.title()).not.toBe('');
      expect(await popup.content()).toContain('weekly finops');
      await popup.close();
      const reports = (await api().get('/v1/reports')).body.reports;
      expect(reports).toHaveLength(1);
      const reportRow = page.locator(`tr[data-report="${reports[0].id}"]`);
      expect(await reportRow.textContent()).toContain('ready');
      // How much of the report's cost as routed is measured, as its summary says.
      const { measured } = reports[0].summary.totals;
      expect(measured.services).toBe(NO_PROMETHEUS ? 0 : plans.length);
      await eventually(() => reportRow.getByTestId('report-measured').textContent()).toBe(
        `${money(measured.withHints.cost)} measured (${percent(measured.withHintsCostShare)}), the rest estimated`,
      );
      await shot('reports');
    });

    it('registers a cluster and shows its agent token once, with the helm line that installs the agent', async () => {
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Admin' }).click();
      await page.getByLabel('Cluster name').fill('new-cluster');
      await page.getByRole('button', { name: 'Register cluster' }).click();
      const token = (await page.getByTestId('secret-value').textContent())!.trim();
      expect(token).toMatch(/^zwa_/);
      const helm = await page.getByTestId('helm-line').textContent();
      expect(helm).toContain(`--set agentToken=${token}`);
      expect(helm).toContain(`--set api.url=${stack.url}`);
      expect(helm).toContain('--set clusterName=new-cluster');
      // The token is the real one: the agent may push with it.
      const registered = (await api().get('/v1/clusters?limit=500')).body.clusters.find(
        (c: { name: string }) => c.name === 'new-cluster',
      );
      expect(registered).toBeDefined();
      await pushSnapshot(stack.url, token, capturedAt(fleet(3, 2, 9), new Date()));
      await shot('admin');
      // Shown once: after a reload it is nowhere on the page.
      await page.reload();
      await page.getByTestId('admin-clusters').waitFor();
      expect(await page.content()).not.toContain(token);

      // A problem answer appears in place, with the API's detail.
      await page.getByLabel('Cluster name').fill('new-cluster');
      await page.getByRole('button', { name: 'Register cluster' }).click();
      const conflict = await api().post('/v1/clusters', { name: 'new-cluster' });
      await eventually(() => page.getByRole('alert').first().textContent()).toContain(conflict.body.detail);
    });

    it('shows a read key no admin action', async () => {
      await newSession();
      await signIn(tenant.readKey);
      expect(await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Admin' }).count()).toBe(
        0,
      );
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Reports' }).click();
      await page.locator('tr[data-schedule="weekly finops"]').waitFor();
      for (const action of ['Run now', 'Delete', 'Disable', 'Create schedule']) {
        expect(await page.getByRole('button', { name: action }).count(), action).toBe(0);
      }
      await page.goto(`${stack.url}/admin`);
      await page.getByText('You have the viewer role').waitFor();
      expect(await page.getByRole('button', { name: /Register|Rotate|Revoke|Create key/ }).count()).toBe(0);
    });

    it('returns to sign-in with the reason when the key expires, and shows an API error in place', async () => {
      const expiring = await createApiKey(stack.prisma, {
        organizationId: tenant.organizationId,
        name: 'short-lived',
        role: 'viewer',
        expiresAt: new Date(Date.now() + 12_000),
      });
      await newSession();
      await signIn(expiring.key);
      await page.goto(`${stack.url}/clusters/not-a-cluster-id`);
      const problem = (await api().get('/v1/clusters/not-a-cluster-id')).body;
      await eventually(() => page.getByRole('alert').first().textContent()).toContain(problem.detail);

      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, expiring.apiKey.expiresAt!.getTime() - Date.now() + 200)),
      );
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Savings' }).click();
      // The sign-in page keeps where the person was going (?returnTo=/savings).
      await page.waitForURL((url) => url.pathname === '/sign-in');
      const reason = await page.getByTestId('signed-out-reason').textContent();
      expect(reason).toContain('expired');
      expect(await page.evaluate("sessionStorage.getItem('zonewise.apiKey')")).toBeNull();
      expect(pageErrors).toEqual([]);
    });

    it('draws a large fleet 50 clusters at a time, sorting and filtering over all of them', async () => {
      const large = await createTenant(stack.prisma, 'dashpages');
      const names = Array.from({ length: 60 }, (_, i) => `fleet-${String(i).padStart(3, '0')}`);
      for (const [i, name] of names.entries()) {
        await createCluster(stack.prisma, large, name, { cloud: i % 2 ? 'gcp' : 'aws' });
      }
      await newSession();
      await signIn(large.readKey);
      const rows = page.locator('[data-testid=clusters-table] tbody tr');
      const shown = () =>
        rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-cluster')));
      await eventually(shown).toEqual(names.slice(0, 50));
      expect(await page.getByTestId('clusters-page').textContent()).toContain('1–50 of 60');

      await page.getByRole('button', { name: 'Next page' }).click();
      await page.waitForURL(/page=2/);
      await eventually(shown).toEqual(names.slice(50));

      // A sort orders the whole fleet and starts again from its first page.
      await page.getByRole('button', { name: /^Cluster/ }).click();
      await page.waitForURL((url) => url.searchParams.get('order') === 'desc' && !url.searchParams.has('page'));
      await eventually(shown).toEqual([...names].reverse().slice(0, 50));

      // So does a filter: the 30 gcp clusters of all 60, on one page.
      await page.getByLabel('Filter by name, cloud, region or label').fill('gcp');
      await eventually(shown).toEqual(names.filter((_, i) => i % 2 === 1).reverse());
      expect(await page.getByTestId('clusters-shown').textContent()).toBe('30 of 60 shown');
      expect(await page.getByTestId('clusters-page').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    });
  },
);
