import { MONTHLY_TRAFFIC_ANNOTATION, type KubernetesList } from '@zw/core';
import type { Browser } from 'playwright-core';
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
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { money } from '../src/format.js';
import {
  controlsOutsideViewport,
  eventually,
  openSession,
  PHONE,
  seriousViolations,
  type Session,
  signIn,
} from './support/session.js';

/**
 * The dashboard as an operator relies on it day to day, in real Chromium against the real stack: figures
 * that follow each recorded snapshot (the top fixes too), an honest screen while the API or its event
 * stream is lost, a confirmation naming the consequence before anything is destroyed, and a header whose
 * every control a phone reaches.
 */

const DASHBOARD = dashboardDirectory();
const HOUR = 3_600_000;
const skipReason = !HAS_CHROMIUM
  ? NO_CHROMIUM_REASON
  : !DASHBOARD
    ? 'SKIPPED, the dashboard is not built (npm run build)'
    : '';

interface RankedService {
  namespace: string;
  name: string;
  bestSavings: { cost: number };
}

/** The same cluster with one Service declaring a monthly volume far above every other's. */
function withHeavyTraffic(list: KubernetesList, service: { namespace: string; name: string }): KubernetesList {
  return {
    ...list,
    items: list.items.map((item) =>
      item.kind === 'Service' && item.metadata.namespace === service.namespace && item.metadata.name === service.name
        ? {
            ...item,
            metadata: {
              ...item.metadata,
              annotations: { ...item.metadata.annotations, [MONTHLY_TRAFFIC_ANNOTATION]: '500000' },
            },
          }
        : item,
    ),
  };
}

describe.skipIf(skipReason !== '')(
  `the dashboard in operation${skipReason ? `: ${skipReason}` : ''}`,
  { timeout: 120_000 },
  () => {
    let stack: QueryStack;
    let tenant: Tenant;
    let browser: Browser;
    let cluster: { id: string; token: string };
    let session: Session;
    const base = fleet(24, 3, 31);

    beforeAll(async () => {
      stack = await startQueryStack('dash_ops', { RATE_LIMIT_REQUESTS: '100000', STALE_AFTER_SECONDS: '86400' });
      tenant = await createTenant(stack.prisma, 'ops');
      cluster = await createCluster(stack.prisma, tenant, 'ops-eu', { cloud: 'aws', region: 'eu-west-1' });
      const pushed = await pushSnapshot(stack.url, cluster.token, capturedAt(base, new Date(Date.now() - 2 * HOUR)));
      await waitProcessed(stack.prisma, [pushed], 120_000);
      browser = await launchChromium();
    }, 180_000);

    afterAll(async () => {
      await session?.context.close();
      await browser?.close();
      await stack?.stop();
    });

    const api = () => apiClient(stack.url, tenant.adminKey);
    const ranking = async (): Promise<RankedService[]> =>
      (await api().get(`/v1/clusters/${cluster.id}/recommendations?limit=50`)).body.services;
    const key = (service: { namespace: string; name: string }) => `${service.namespace}/${service.name}`;

    it('loads with a favicon and no console error', async () => {
      session = await openSession(browser);
      await signIn(session.page, stack.url, tenant.adminKey);
      const icon = await session.page.locator('link[rel=icon]').getAttribute('href');
      expect(icon).toMatch(/^\/assets\/favicon-.*\.svg$/);
      const answer = await fetch(`${stack.url}${icon}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('image/svg+xml');
      await session.page.getByTestId('tile-cost').waitFor();
      expect(session.errors).toEqual([]);
    });

    it("refreshes the cluster page's top fixes when a recorded snapshot changes the ranking", async () => {
      const before = await ranking();
      expect(before.length).toBeGreaterThan(2);
      const { page } = session;
      await page.goto(`${stack.url}/clusters/${cluster.id}`);
      const firstFix = page.locator('[data-testid=top-fixes] tbody tr').first();
      await eventually(() => firstFix.getAttribute('data-service')).toBe(key(before[0]));

      // The last-ranked Service now declares far more traffic than any other: its fix saves the most.
      const riser = before[before.length - 1];
      const pushed = await pushSnapshot(
        stack.url,
        cluster.token,
        capturedAt(withHeavyTraffic(base, riser), new Date(Date.now() - HOUR)),
      );
      await waitProcessed(stack.prisma, [pushed], 120_000);
      const after = await waitFor(
        'the API to rank the riser first',
        async () => {
          const ranked = await ranking();
          return key(ranked[0]) === key(riser) ? ranked : null;
        },
        60_000,
      );
      // No reload: the event stream tells the page, which asks for the ranking again.
      await eventually(() => firstFix.getAttribute('data-service')).toBe(key(riser));
      expect(await firstFix.getByTestId('top-fix-savings').textContent()).toContain(money(after[0].bestSavings.cost));
      expect(session.errors).toEqual([]);
    });

    it('says when the API is lost, keeps the figures marked stale, offers a retry, and recovers', async () => {
      const { page, context } = session;
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Fleet' }).click();
      const cost = page.getByTestId('tile-cost');
      const fleet = (await api().get('/v1/fleet')).body;
      await eventually(() => cost.locator('.tile-value').textContent()).toBe(
        money(fleet.totals.monthly.withHints.cost),
      );
      expect(await page.getByTestId('connection-banner').count()).toBe(0);

      // The API goes down: every connection to it is refused.
      const everyApiPath = `${stack.url}/v1/**`;
      await context.route(everyApiPath, (route) => route.abort('connectionrefused'));
      // Another page, never loaded: its request finds no answer. The banner says the API is lost, and the
      // page's error says what failed and offers a retry.
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Savings' }).click();
      const banner = page.getByTestId('connection-banner');
      await banner.waitFor();
      expect(await banner.textContent()).toContain('reconnecting');
      const failure = page.getByRole('alert').filter({ hasText: 'Savings could not be computed' });
      await failure.waitFor();
      expect(await failure.getByRole('button', { name: 'Retry' }).count()).toBe(1);

      // Back to the fleet: the figures that were on screen stay, marked stale with their age.
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Fleet' }).click();
      await eventually(() => cost.locator('.tile-value').textContent()).toBe(
        money(fleet.totals.monthly.withHints.cost),
      );
      await eventually(() => page.getByTestId('freshness').getAttribute('data-stale')).toBe('true');
      expect(await page.getByTestId('freshness').textContent()).toMatch(
        /^stale: as of \d\d:\d\d:\d\d UTC \(\d+ s ago\)/,
      );
      expect(await page.getByText('The fleet could not be loaded').count()).toBe(0);

      // The API is back: Retry now asks again, the banner goes and the figures are current again.
      await context.unroute(everyApiPath);
      await banner.getByRole('button', { name: 'Retry now' }).click();
      await eventually(() => banner.count()).toBe(0);
      await eventually(() => page.getByTestId('freshness').getAttribute('data-stale')).toBe('false');

      // The browser loses its network: said as such, and gone when the network is back.
      await context.setOffline(true);
      await banner.waitFor();
      expect(await banner.textContent()).toContain('This browser is offline');
      await context.setOffline(false);
      await eventually(() => banner.count()).toBe(0);
      // The browser logged each refused request, and nothing else.
      const logged = session.errors.splice(0);
      expect(logged.filter((error) => !error.includes('net::ERR_CONNECTION_REFUSED'))).toEqual([]);
    });

    it('asks before rotating a token, deleting a cluster or revoking a key, naming the consequence', async () => {
      const { page } = session;
      const spare = await createCluster(stack.prisma, tenant, 'spare', { cloud: 'gcp' });
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Admin' }).click();
      const row = page.locator('tr[data-cluster="ops-eu"]');
      await row.waitFor();
      const prefix = (await api().get(`/v1/clusters/${cluster.id}`)).body.agentToken.prefix;

      // Rotate: the dialog says the agent stops; Cancel changes nothing.
      await row.getByRole('button', { name: 'Rotate token' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the agent token of ops-eu?' });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('stops working at once');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await eventually(() => dialog.isVisible()).toBe(false);
      expect((await api().get(`/v1/clusters/${cluster.id}`)).body.agentToken.prefix).toBe(prefix);
      // Escape does nothing either.
      await row.getByRole('button', { name: 'Rotate token' }).click();
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await eventually(() => dialog.isVisible()).toBe(false);
      expect((await api().get(`/v1/clusters/${cluster.id}`)).body.agentToken.prefix).toBe(prefix);
      // Confirmed: a new token, shown once, and the old one is refused.
      await row.getByRole('button', { name: 'Rotate token' }).click();
      await dialog.getByRole('button', { name: 'Rotate token' }).click();
      const token = (await page.getByTestId('secret-value').textContent())!.trim();
      expect(token).toMatch(/^zwa_/);
      const refused = await pushSnapshot(stack.url, cluster.token, capturedAt(base, new Date())).catch(
        (error: Error) => error,
      );
      expect(String(refused)).toMatch(/401/);
      cluster.token = token;

      // Delete: named, with what goes.
      const spareRow = page.locator('tr[data-cluster="spare"]');
      await spareRow.getByRole('button', { name: 'Delete' }).click();
      const deletion = page.getByRole('dialog', { name: 'Delete spare?' });
      expect(await deletion.textContent()).toContain('cannot be undone');
      await deletion.getByRole('button', { name: 'Delete cluster' }).click();
      await eventually(() => spareRow.count()).toBe(0);
      expect((await api().get(`/v1/clusters/${spare.id}`)).status).toBe(404);

      // Revoke: named, with who stops working.
      const created = await api().post('/v1/api-keys', { name: 'ci-bot', scopes: ['read'] });
      expect(created.status).toBe(201);
      await page.reload();
      const keyRow = page.locator('tr[data-key="ci-bot"]');
      await keyRow.getByRole('button', { name: 'Revoke' }).click();
      const revocation = page.getByRole('dialog', { name: 'Revoke the key “ci-bot”?' });
      expect(await revocation.textContent()).toContain('stops working at once');
      await revocation.getByRole('button', { name: 'Revoke key' }).click();
      await eventually(() => keyRow.textContent()).toContain('revoked');
      expect((await apiClient(stack.url, created.body.key).get('/v1/me')).status).toBe(401);
      expect(session.errors).toEqual([]);
    });

    it('wraps the header on a phone: every control on screen, no serious or critical axe-core violation', async () => {
      const phone = await openSession(browser, PHONE);
      try {
        await signIn(phone.page, stack.url, tenant.adminKey);
        await phone.page.getByTestId('tile-cost').waitFor();
        expect(await controlsOutsideViewport(phone.page)).toEqual([]);
        for (const name of ['Fleet', 'Savings', 'Reports', 'Admin']) {
          await expect(phone.page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name })).toBeTruthy();
        }
        await phone.page.getByRole('button', { name: 'Sign out' }).isVisible();
        expect(await seriousViolations(phone.page)).toEqual([]);
      } finally {
        await phone.context.close();
      }
    });
  },
);
