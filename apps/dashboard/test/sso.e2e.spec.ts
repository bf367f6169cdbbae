import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardDirectory } from '../../api/src/http/dashboard.js';
import { HAS_CHROMIUM, launchChromium, NO_CHROMIUM_REASON } from '../../../test/support/browser.js';
import { startIdentityProvider, type TestIdentityProvider } from '../../../test/support/oidc-provider.js';
import {
  apiClient,
  createCluster,
  createTenant,
  type QueryStack,
  startQueryStack,
  type Tenant,
} from '../../../test/support/query-api.js';
import { eventually, openSession, type Session } from './support/session.js';

/**
 * Signing in to the dashboard through a real OpenID Connect provider (oidc-provider, in this process) in
 * real Chromium: the sign-in page names the organization, the provider's own login page signs the person
 * in, the dashboard opens the page they were going to, with the role their groups give and the session's
 * end in the header; the session cookie is out of the page's reach; signing out ends it.
 */

const DASHBOARD = dashboardDirectory();
const skipReason = !HAS_CHROMIUM ? NO_CHROMIUM_REASON : !DASHBOARD ? 'SKIPPED, the dashboard is not built' : '';
const SLUG = 'sso-dash';

describe.skipIf(skipReason !== '')(
  `single sign-on in Chromium${skipReason ? `: ${skipReason}` : ''}`,
  { timeout: 120_000 },
  () => {
    let stack: QueryStack;
    let tenant: Tenant;
    let idp: TestIdentityProvider;
    let browser: Browser;
    let cluster: { id: string };

    beforeAll(async () => {
      stack = await startQueryStack('sso_dash', { SSO_ALLOW_PRIVATE_ISSUERS: 'true' });
      tenant = await createTenant(stack.prisma, SLUG);
      cluster = await createCluster(stack.prisma, tenant, 'prod-eu');
      idp = await startIdentityProvider([`${stack.url}/v1/auth/sso/callback`], {
        alice: { email: 'alice@acme.test', name: 'Alice Admin', groups: ['zw-admins'] },
        carol: { email: 'carol@acme.test', name: 'Carol', groups: ['everyone'] },
        dave: { email: 'dave@acme.test', name: 'Dave', groups: [] },
      });
      const saved = await apiClient(stack.url, tenant.adminKey).put('/v1/sso', {
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        audience: idp.audience,
        roleMappings: [
          { group: 'zw-admins', role: 'admin' },
          { group: 'everyone', role: 'viewer' },
        ],
      });
      expect(saved.status).toBe(200);
      browser = await launchChromium();
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
      await idp?.stop();
      await stack?.stop();
    });

    /** From a page of the dashboard, through the sign-in page and the provider's login page, back. */
    async function signInThroughProvider(session: Session, path: string, login: string): Promise<void> {
      const { page } = session;
      await page.goto(`${stack.url}${path}`);
      await page.waitForURL(/\/sign-in/);
      await page.getByLabel('Organization').fill(SLUG);
      await page.getByRole('button', { name: 'Continue with SSO' }).click();
      await page.waitForURL(`${idp.issuer}/**`);
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
    }

    it('signs a person in through the provider and opens the page they were going to, with their role and session end', async () => {
      const session = await openSession(browser);
      try {
        await signInThroughProvider(session, `/clusters/${cluster.id}`, 'alice');
        const { page } = session;
        await page.waitForURL(`${stack.url}/clusters/${cluster.id}`);
        await page.getByRole('heading', { name: /prod-eu/, level: 1 }).waitFor();
        const who = await page.getByTestId('who').textContent();
        expect(who).toContain('alice@acme.test (admin)');
        expect(who).toMatch(/session ends/);
        // The session cookie is HttpOnly: the page's scripts never see it.
        expect(
          await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
        ).toBe('');
        const cookies = await session.context.cookies(stack.url);
        expect(cookies.find((cookie) => cookie.name === '__Host-zw_session')).toMatchObject({
          httpOnly: true,
          secure: true,
          sameSite: 'Lax',
          path: '/',
        });

        // A change made by the person (CSRF token and all): an API key created on the Admin page.
        await page.getByRole('link', { name: 'Admin' }).click();
        await page.getByLabel('Key name').fill('made-through-sso');
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByTestId('secret-value').waitFor();
        const log = await apiClient(stack.url, tenant.adminKey).get('/v1/audit-log?action=api_key.create');
        expect(log.body.entries[0].actor).toMatchObject({ type: 'sso', subject: 'alice', email: 'alice@acme.test' });

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(/\/sign-in/);
        await page.goto(`${stack.url}/`);
        await page.waitForURL(/\/sign-in/);
        // The provider's own login page (not ours) asks for web fonts and a favicon it does not have.
        expect(
          session.errors.filter((error) => !error.includes(idp.issuer) && !error.includes('fonts.googleapis')),
        ).toEqual([]);
      } finally {
        await session.context.close();
      }
    });

    it('gives a viewer no admin page, and sends someone whose groups map to no role back with the reason', async () => {
      const viewer = await openSession(browser);
      try {
        await signInThroughProvider(viewer, '/', 'carol');
        await viewer.page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
        expect(await viewer.page.getByTestId('who').textContent()).toContain('(viewer)');
        expect(await viewer.page.getByRole('link', { name: 'Admin' }).count()).toBe(0);
      } finally {
        await viewer.context.close();
      }
      const refused = await openSession(browser);
      try {
        await signInThroughProvider(refused, '/', 'dave');
        await refused.page.waitForURL(new RegExp(`/sign-in/${SLUG}\\?error=`));
        await eventually(() => refused.page.getByTestId('sign-in-refused').textContent()).toMatch(
          /your groups \(none\) give you no role/,
        );
        expect(await refused.page.getByLabel('Organization').inputValue()).toBe(SLUG);
      } finally {
        await refused.context.close();
      }
    });
  },
);
