import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isForbiddenWebhookAddress, webhookUrlProblem } from '../src/webhook-address.js';
import { signWebhook, verifyWebhook } from '../src/webhook.js';

const secret = 'zws_test-secret';
const body = '{"event":"report.ready","deliveryId":"d1"}';
const now = new Date('2026-11-20T10:00:00Z');
const timestamp = Math.floor(now.getTime() / 1000);

describe('webhook signatures', () => {
  it('signs HMAC-SHA256 over "<timestamp>.<body>" with the schedule’s secret', () => {
    const byHand = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    expect(signWebhook(secret, timestamp, body)).toBe(`v1=${byHand}`);
    expect(signWebhook(secret, timestamp, Buffer.from(body))).toBe(`v1=${byHand}`);
  });

  it('verifies a fresh, untouched delivery and refuses a replayed, tampered or foreign one', () => {
    const signature = signWebhook(secret, timestamp, body);
    const check = (overrides: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({
        secret,
        body,
        timestampHeader: String(timestamp),
        signatureHeader: signature,
        now,
        ...overrides,
      });
    expect(check({})).toEqual({ ok: true });
    expect(check({ signatureHeader: `v0=abc, ${signature}` })).toEqual({ ok: true });
    expect(check({ now: new Date(now.getTime() + 301_000) })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/replay/),
    });
    expect(check({ body: body.replace('d1', 'd2') })).toMatchObject({ ok: false, reason: 'signature does not match' });
    // The timestamp is signed: moving it forward to pass the freshness check breaks the signature.
    expect(check({ timestampHeader: String(timestamp + 600), now: new Date(now.getTime() + 600_000) })).toMatchObject({
      ok: false,
    });
    expect(check({ secret: 'zws_other' })).toMatchObject({ ok: false });
    expect(check({ timestampHeader: null })).toMatchObject({ ok: false, reason: expect.stringMatching(/timestamp/) });
    expect(check({ signatureHeader: '' })).toMatchObject({ ok: false, reason: 'missing signature header' });
  });
});

describe('webhook addresses', () => {
  it('refuses non-public addresses unless private networks are allowed', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isForbiddenWebhookAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8']) {
      expect(isForbiddenWebhookAddress(address), address).toBe(false);
    }
  });

  it('accepts https URLs to public hosts; http, credentials and private literals only when allowed', () => {
    expect(webhookUrlProblem('https://hooks.example.com/zonewise', false)).toBeNull();
    expect(webhookUrlProblem('http://hooks.example.com/zonewise', false)).toMatch(/https/);
    expect(webhookUrlProblem('https://localhost/x', false)).toMatch(/localhost/);
    expect(webhookUrlProblem('https://[::1]/x', false)).toMatch(/public address/);
    expect(webhookUrlProblem('https://a:b@hooks.example.com/', false)).toMatch(/credentials/);
    expect(webhookUrlProblem('ftp://hooks.example.com/', true)).toMatch(/http or https/);
    expect(webhookUrlProblem('not a url', true)).toBe('not a URL');
    expect(webhookUrlProblem('http://127.0.0.1:8080/hook', true)).toBeNull();
  });
});
