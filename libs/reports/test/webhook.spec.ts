import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isForbiddenWebhookAddress, isLocalhostName, webhookUrlProblem } from '../src/webhook-address.js';
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

  // Every non-public form, as a URL host (what a tenant saves) and as a resolved address (what is dialled).
  const REFUSED: [string, string][] = [
    ['[::7f00:1]', 'IPv4-compatible loopback'],
    ['[::a00:1]', 'IPv4-compatible private'],
    ['[::808:808]', 'IPv4-compatible, even of a public address'],
    ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
    ['[::ffff:7f00:1]', 'IPv4-mapped loopback in hex'],
    ['[::ffff:a9fe:a9fe]', 'IPv4-mapped metadata address'],
    ['[::ffff:0:7f00:1]', 'IPv4-translated (::ffff:0:0:0/96)'],
    ['[::ffff:0:808:808]', 'IPv4-translated, even of a public address'],
    ['[64:ff9b::7f00:1]', 'NAT64 well-known prefix'],
    ['[64:ff9b::808:808]', 'NAT64 well-known prefix, public target'],
    ['[64:ff9b:1::a00:1]', 'NAT64 local-use prefix'],
    ['[2002:7f00:1::1]', '6to4 of loopback'],
    ['[2002:808:808::1]', '6to4 of a public address'],
    ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'Teredo'],
    ['[fec0::1]', 'site-local'],
    ['[fd00::1]', 'unique local'],
    ['[fe80::1]', 'link-local'],
    ['[ff02::1]', 'multicast'],
    ['[::]', 'unspecified'],
    ['[::1]', 'loopback'],
    ['[2001:db8::1]', 'documentation'],
    ['[100::1]', 'discard-only'],
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback /8'],
    ['0.0.0.0', 'unspecified'],
    ['0x7f.1', 'loopback in a short hex form (the URL parser normalizes it)'],
    ['2130706433', 'loopback as one number'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['192.0.0.8', 'IETF assignments'],
    ['192.88.99.1', '6to4 relay'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['localhost', 'localhost'],
    ['localhost.', 'localhost, fully qualified'],
    ['LOCALHOST', 'localhost in capitals'],
    ['api.localhost', 'a name under localhost'],
    ['api.localhost.', 'a name under localhost, fully qualified'],
  ];
  const ACCEPTED = ['hooks.example.com', '93.184.216.34', '8.8.8.8', '[2606:4700:4700::1111]', '[2a00:1450:4001::1]'];

  it.each(REFUSED)('refuses %s (%s) at save', (host) => {
    expect(webhookUrlProblem(`https://${host}/hook`, false)).not.toBeNull();
    expect(webhookUrlProblem(`https://${host}/hook`, true)).toBeNull();
  });

  it('refuses every non-public address form when it is what a name resolved to', () => {
    let checked = 0;
    for (const [host, why] of REFUSED) {
      const address = new URL(`https://${host}/`).hostname.replace(/^\[|\]$/g, '');
      if (isIP(address) === 0) continue; // a name: its addresses are judged where it is dialled
      expect(isForbiddenWebhookAddress(address), `${host} (${why})`).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('accepts public names and addresses', () => {
    for (const host of ACCEPTED) {
      expect(webhookUrlProblem(`https://${host}/hook`, false), host).toBeNull();
      const address = host.replace(/^\[|\]$/g, '');
      if (isIP(address) !== 0) expect(isForbiddenWebhookAddress(address), host).toBe(false);
    }
    expect(isLocalhostName('localhost.example.com')).toBe(false);
  });
});
