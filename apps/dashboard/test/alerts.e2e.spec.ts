import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardDirectory } from '../../api/src/http/dashboard.js';
import { type HttpReceiver, startHttpReceiver } from '../../../test/support/alert-receivers.js';
import { HAS_CHROMIUM, launchChromium, NO_CHROMIUM_REASON } from '../../../test/support/browser.js';
import { createTenant, type QueryStack, startQueryStack, type Tenant } from '../../../test/support/query-api.js';
import { eventually, openSession, seriousViolations, type Session, signIn } from './support/session.js';

/**
 * The Alerts page in real Chromium against the real stack (API, worker, Postgres, Redis): an operator
 * adds a Slack channel pointing at a local receiver, sends a test and sees it delivered (the receiver
 * got the Slack message), adds a webhook channel and sees its secret once, and adds a rule; a viewer
 * reads the page without the forms.
 */
const DASHBOARD = dashboardDirectory();
const skipReason = !HAS_CHROMIUM
  ? NO_CHROMIUM_REASON
  : !DASHBOARD
    ? 'SKIPPED, the dashboard is not built (npm run build)'
    : '';

describe.skipIf(skipReason !== '')(
  `the Alerts page${skipReason ? `: ${skipReason}` : ''}`,
  { timeout: 180_000 },
  () => {
    let stack: QueryStack;
    let tenant: Tenant;
    let browser: Browser;
    let session: Session;
    let receiver: HttpReceiver;

    beforeAll(async () => {
      stack = await startQueryStack('dash_alerts', {
        RATE_LIMIT_REQUESTS: '100000',
        SECRET_ENCRYPTION_KEYS: 'test-1:a-test-only-secret-encryption-key',
        ALERT_ALLOW_PRIVATE: 'true',
        PUBLIC_URL: 'https://zonewise.example.com',
      });
      tenant = await createTenant(stack.prisma, 'dash-alerts');
      receiver = await startHttpReceiver();
      browser = await launchChromium();
      session = await openSession(browser);
      await signIn(session.page, stack.url, tenant.operatorKey);
    }, 240_000);

    afterAll(async () => {
      await session?.context.close();
      await browser?.close();
      await receiver?.close();
      await stack?.stop();
    });

    it('adds channels, sends a test that arrives, and adds a rule', async () => {
      const { page } = session;
      await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Alerts' }).click();
      await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
      await page.getByText('No channel yet').waitFor();

      const channelForm = page.getByRole('form', { name: 'add a channel' });
      await channelForm.getByRole('textbox', { name: 'Name' }).fill('ops slack');
      await channelForm.getByRole('combobox', { name: 'Kind' }).selectOption('slack');
      await channelForm.getByRole('textbox', { name: 'URL' }).fill(`${receiver.url}/slack`);
      await channelForm.getByRole('button', { name: 'Add channel' }).click();
      const row = page.getByTestId('channel-row').filter({ hasText: 'ops slack' });
      await row.waitFor();
      await expect(row.textContent()).resolves.toContain('127.0.0.1');

      await row.getByRole('button', { name: 'Send test' }).click();
      await eventually(() => row.getByTestId('test-status').getAttribute('data-status')).toBe('succeeded');
      await expect(row.getByTestId('test-status').textContent()).resolves.toBe('delivered');
      expect(receiver.received).toHaveLength(1);
      const message = JSON.parse(receiver.received[0].body) as { text: string; blocks: unknown[] };
      expect(message.text).toContain('[TEST]');
      expect(JSON.stringify(message.blocks)).toContain('https://zonewise.example.com/alerts');
      await eventually(() => page.getByTestId('delivery-row').count()).toBe(1);

      await channelForm.getByRole('textbox', { name: 'Name' }).fill('siem');
      await channelForm.getByRole('combobox', { name: 'Kind' }).selectOption('webhook');
      await channelForm.getByRole('textbox', { name: 'URL' }).fill(`${receiver.url}/hook`);
      await channelForm.getByRole('button', { name: 'Add channel' }).click();
      await expect(page.getByTestId('secret-value').textContent()).resolves.toMatch(/^whsec_/);

      const ruleForm = page.getByRole('form', { name: 'add a rule' });
      await ruleForm.getByRole('textbox', { name: 'Name' }).fill('Hints lost anywhere');
      await ruleForm.getByRole('combobox', { name: 'When' }).selectOption('savings-missed');
      await ruleForm.getByLabel('Threshold (estimated, per month)').fill('250');
      await ruleForm.getByRole('button', { name: 'Add rule' }).click();
      const rule = page.getByTestId('rule-row').filter({ hasText: 'Hints lost anywhere' });
      await rule.waitFor();
      await expect(rule.textContent()).resolves.toContain('above 250, estimated');
      await expect(rule.textContent()).resolves.toContain('ops slack, siem');

      expect(await seriousViolations(page)).toEqual([]);
      expect(session.errors).toEqual([]);
    });

    it('shows a viewer the channels and rules without the forms', async () => {
      const viewer = await openSession(browser);
      try {
        await signIn(viewer.page, stack.url, tenant.readKey);
        await viewer.page.goto(`${stack.url}/alerts`);
        await viewer.page.getByTestId('channel-row').first().waitFor();
        expect(await viewer.page.getByRole('form', { name: 'add a channel' }).count()).toBe(0);
        expect(await viewer.page.getByRole('button', { name: 'Send test' }).count()).toBe(0);
        await viewer.page.getByText('Read only: an operator or admin manages channels and rules.').waitFor();
      } finally {
        await viewer.context.close();
      }
    });
  },
);
