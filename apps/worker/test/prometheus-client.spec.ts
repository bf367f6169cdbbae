import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { PrometheusQueryError, queryPrometheus } from '../src/traffic/prometheus-client.js';

const options = { authHeader: null, timeoutMs: 2000, allowPrivate: false, maxResponseBytes: 1024 * 1024 };

async function failureOf(url: string): Promise<PrometheusQueryError> {
  try {
    await queryPrometheus(url, 'up', options);
  } catch (error) {
    if (error instanceof PrometheusQueryError) return error;
    throw error;
  }
  throw new Error('expected the query to be refused');
}

describe('queryPrometheus: the address rules at request time', () => {
  it('refuses a private address before connecting', async () => {
    const failure = await failureOf('https://127.0.0.1:9');
    expect(failure.status).toBe('refused-address');
  });

  it('refuses a name that resolves to a private address (the address dialled is the address checked)', async (context) => {
    // The machine's own name passes the URL rules (it is not literally localhost) but usually resolves
    // to loopback through /etc/hosts.
    const name = hostname();
    const resolved = await lookup(name).catch(() => null);
    if (!resolved || !/^(127\.|::1$)/.test(resolved.address)) {
      console.warn(`${name} does not resolve to loopback here: request-time address check not exercised`);
      return context.skip();
    }
    const failure = await failureOf(`https://${name}:9`);
    expect(failure.status).toBe('refused-address');
    expect(failure.message).toMatch(/not a public address/);
  });
});
