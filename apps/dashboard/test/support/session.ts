import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

/** Desktop and phone, as the dashboard is checked at both (a phone: 390 × 844 CSS pixels, touch). */
export const DESKTOP = { viewport: { width: 1280, height: 900 } };
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** Waits for a condition on the page (a shared machine may be slow; the wait ends as soon as it holds). */
export const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 });

export interface Session {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors (a missing favicon is one), as the page reported them. */
  errors: string[];
}

/**
 * A fresh browser context (nothing cached, nobody signed in). `bypassCSP` lets axe-core's script into
 * the page, whose Content-Security-Policy allows only its own scripts.
 */
export async function openSession(browser: Browser, device = DESKTOP): Promise<Session> {
  const context = await browser.newContext({ ...device, bypassCSP: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
  });
  return { context, page, errors };
}

/** Signs in on the sign-in page with an API key and waits for the Fleet page. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.waitForURL('**/sign-in');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
}

/** The few DOM globals the functions run in the page use (the tests compile without the DOM library). */
interface Box {
  left: number;
  right: number;
  width: number;
  height: number;
}
interface PageElement {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  closest(selector: string): unknown;
  getBoundingClientRect(): Box;
}
interface PageDocument {
  documentElement: { clientWidth: number; scrollWidth: number };
  querySelectorAll(selector: string): Iterable<PageElement>;
}

const AXE_SOURCE = readFileSync(
  join(__dirname, '..', '..', '..', '..', 'node_modules', 'axe-core', 'axe.min.js'),
  'utf8',
);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now (WCAG 2.x A and AA rules and
 * axe's best practices), each with the elements it found.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<AxeResults> } })
      .axe;
    interface AxeResults {
      violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
    }
    const results = await axe.run((globalThis as unknown as { document: unknown }).document, {
      resultTypes: ['violations'],
    });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/**
 * Every control on the page a person can reach at this width: nothing sticks out of the viewport
 * sideways (the page itself never scrolls sideways; wide tables scroll inside their own box).
 */
export async function controlsOutsideViewport(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const document = (globalThis as unknown as { document: PageDocument }).document;
    const width = document.documentElement.clientWidth;
    const outside: string[] = [];
    if (document.documentElement.scrollWidth > width + 1)
      outside.push(`the page is ${document.documentElement.scrollWidth}px wide`);
    for (const element of document.querySelectorAll(
      'header a, header button, main a, main button, main input, main select',
    )) {
      if (element.closest('.table-scroll') || element.closest('dialog')) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < -1 || box.right > width + 1)
        outside.push(
          `${element.tagName.toLowerCase()} "${element.textContent?.trim() || element.getAttribute('name') || element.getAttribute('aria-label')}"`,
        );
    }
    return outside;
  });
}
