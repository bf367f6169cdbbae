import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { lookup } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { isForbiddenWebhookAddress } from '@zw/reports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from '@zw/notify';

/**
 * The address policy where a webhook is dialled: a URL that passed (or predates) the save-time rules is
 * judged again, names by the addresses they resolve to, before any connection opens. A real receiver
 * listens on loopback and counts the connections it gets.
 */
let receiver: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  receiver = createServer((_, response) => response.end('ok'));
  receiver.on('connection', () => connections++);
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  port = (receiver.address() as AddressInfo).port;
});

afterAll(async () => {
  receiver.close();
  await once(receiver, 'close');
});

const strict = { timeoutMs: 2000, allowPrivate: false };

describe('postWebhook: the address rules at delivery', () => {
  it('refuses loopback literals in every form, and localhost names, without connecting', async () => {
    const before = connections;
    for (const host of ['127.0.0.1', '[::1]', '[::7f00:1]', '[::ffff:7f00:1]', 'localhost', 'localhost.']) {
      const result = await postWebhook(`https://${host}:${port}/hook`, '{}', {}, strict);
      expect(result.ok, host).toBe(false);
      expect(result.statusCode, host).toBeNull();
      expect(result.error, host).toMatch(/refused/);
    }
    expect(connections).toBe(before);
  });

  it('refuses a name whose DNS answer is not public, before connecting (the address checked is the address dialled)', async (context) => {
    // The machine's own name passes the URL rules (it is not localhost) but resolves, through the
    // system resolver the worker uses, to this machine.
    const name = hostname();
    const resolved = await lookup(name).catch(() => null);
    if (!resolved || !isForbiddenWebhookAddress(resolved.address)) {
      console.warn(`${name} does not resolve to a non-public address here: delivery-time check not exercised`);
      return context.skip();
    }
    const before = connections;
    const result = await postWebhook(`https://${name}:${port}/hook`, '{}', {}, strict);
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toContain(`${name} resolves to ${resolved.address}, which is not a public address`);
    expect(connections).toBe(before);
    // The same receiver is reached when private networks are allowed: the refusal above was the policy.
    const allowed = await postWebhook(`http://${name}:${port}/hook`, '{}', {}, { ...strict, allowPrivate: true });
    expect(allowed).toMatchObject({ ok: true, statusCode: 200 });
    expect(connections).toBe(before + 1);
  });
});
