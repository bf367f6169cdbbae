import { describe, expect, it } from 'vitest';
import { prometheusQueryEndpoint, prometheusUrlProblem, trafficEnvSchema } from '../src/index.js';

describe('prometheusUrlProblem: the SSRF rules of a tenant-given Prometheus URL', () => {
  it('accepts https on a public host, with or without a path prefix', () => {
    expect(prometheusUrlProblem('https://prometheus.example.com', false)).toBeNull();
    expect(prometheusUrlProblem('https://mimir.example.com/prometheus', false)).toBeNull();
  });

  it.each([
    ['http://prometheus.example.com', /https/],
    ['https://127.0.0.1:9090', /public address/],
    ['https://169.254.169.254', /public address/],
    ['https://10.0.0.5', /public address/],
    ['https://[::1]:9090', /public address/],
    ['https://[fd00::1]', /public address/],
    ['https://localhost:9090', /localhost/],
    ['https://user:secret@prometheus.example.com', /credentials/],
    ['https://prometheus.example.com/?query=up', /\?query/],
    ['not a url', /not a URL/],
  ])('refuses %s unless private addresses are allowed', (url, problem) => {
    expect(prometheusUrlProblem(url, false)).toMatch(problem);
  });

  it('allows http and private addresses when the deployment says so, never credentials', () => {
    expect(prometheusUrlProblem('http://127.0.0.1:9090', true)).toBeNull();
    expect(prometheusUrlProblem('http://u:p@127.0.0.1:9090', true)).toMatch(/credentials/);
  });

  it('appends /api/v1/query to the base, once', () => {
    expect(prometheusQueryEndpoint('https://p.example.com').pathname).toBe('/api/v1/query');
    expect(prometheusQueryEndpoint('https://p.example.com/prometheus/').pathname).toBe('/prometheus/api/v1/query');
    expect(prometheusQueryEndpoint('https://p.example.com/api/v1').pathname).toBe('/api/v1/query');
  });

  it('refuses private addresses by default', () => {
    expect(trafficEnvSchema.parse({}).TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES).toBe(false);
    expect(
      trafficEnvSchema.parse({ TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: 'true' })
        .TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES,
    ).toBe(true);
  });
});
