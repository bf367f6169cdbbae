import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { databaseUrl } from '../../../test/support/databases.js';
import { buildProjects } from '../../../test/support/processes.js';
import { deletePrefixKeys, uniquePrefix } from '../../../test/support/redis.js';
import { waitFor } from '../../../test/support/wait.js';

/**
 * `npm run demo` as a new user runs it (after the build): the real demo process with its API, worker
 * and fleet player, driven through the fixed API key the way scripts drive it.
 */

const ROOT = join(__dirname, '..', '..', '..');
const database = `zw_demo_test_${process.pid}`;
const queuePrefix = uniquePrefix('demo');
const apiKey = 'demo-key-for-scripts-0123456789';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

function runDemo(env: Record<string, string>) {
  const child = spawn(process.execPath, [join(ROOT, 'dist/apps/demo/main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl(database),
      QUEUE_PREFIX: queuePrefix,
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, exited: once(child, 'exit').then(([code]) => code as number | null) };
}

beforeAll(() => buildProjects(['apps/demo', 'apps/api', 'apps/worker', 'apps/agent']), 180_000);

afterAll(async () => {
  await deletePrefixKeys(queuePrefix);
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).finally(() => admin.end());
});

describe('npm run demo', () => {
  it('starts everything, prints the URLs, the fixed API key and the fleet read back from the API, and stops on Ctrl-C', async () => {
    const port = await freePort();
    const demo = runDemo({ PORT: String(port), ZONEWISE_DEMO_API_KEY: apiKey, ZONEWISE_DEMO_INTERVAL: '5s' });
    try {
      await waitFor(
        'the demo to come up',
        async () => demo.output().includes('zonewise demo is running') || demo.child.exitCode !== null,
        150_000,
        250,
      );
      const output = demo.output();
      expect(output, output).toContain('zonewise demo is running');
      expect(output).toContain(`http://127.0.0.1:${port}/v1`);
      // The dashboard is the first URL printed, and the API serves it there.
      expect(output.match(/https?:\/\/\S+/)?.[0]).toBe(`http://127.0.0.1:${port}/`);
      const dashboard = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/html' } });
      expect(dashboard.status).toBe(200);
      expect(await dashboard.text()).toContain('<div id="root">');
      expect(output).toContain(`http://127.0.0.1:${port}/docs`);
      expect(output).toContain(`http://127.0.0.1:${port}/graphql`);
      expect(output).toContain(`API key    ${apiKey}`);
      // Its own log folder, printed first thing and again in the welcome: concurrent demos never share files.
      const logDir = /zonewise demo: logging to (\S+)…/.exec(output)?.[1];
      expect(logDir?.startsWith(join(tmpdir(), 'zonewise-demo') + '/')).toBe(true);
      expect(output).toContain(`logs       ${logDir}`);
      expect(readdirSync(logDir!)).toEqual(expect.arrayContaining(['migrate.log', 'api.log', 'worker.log']));
      const names = [
        'aws-prod-us-east-1',
        'gcp-analytics-europe-west1',
        'aws-batch-us-west-2',
        'onprem-lab',
        'eks-legacy-eu-central-1',
        'azure-cilium-westeurope',
      ];
      for (const cluster of names) expect(output).toContain(cluster);

      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const fleet = await fetch(`http://127.0.0.1:${port}/v1/fleet`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(fleet.status).toBe(200);
      const body = (await fleet.json()) as { clusters: { name: string; services: Record<string, number> }[] };
      expect(body.clusters).toHaveLength(names.length);
      for (const cluster of body.clusters) {
        expect(cluster.services.populated + cluster.services.removed + cluster.services.none).toBeGreaterThan(0);
      }
      // One cluster is measured by a traffic source: a local Prometheus when installed, else unreachable.
      expect(output).toMatch(/Measured traffic: cluster \S+, /);
      const clusters = (await (
        await fetch(`http://127.0.0.1:${port}/v1/clusters`, { headers: { authorization: `Bearer ${apiKey}` } })
      ).json()) as {
        clusters: {
          id: string;
          name: string;
          trafficSource: { status: string } | null;
          analysisSettings: Record<string, string | null> | null;
        }[];
      };
      // An older Kubernetes version and a data plane that ignores hints, as the clusters' agents report them.
      const settings = (name: string) => clusters.clusters.find((cluster) => cluster.name === name)?.analysisSettings;
      expect(settings('eks-legacy-eu-central-1')).toMatchObject({
        kubernetesVersion: '1.31',
        kubernetesVersionSource: 'snapshot',
      });
      expect(settings('azure-cilium-westeurope')).toMatchObject({
        dataPlane: 'cilium-no-topology',
        dataPlaneSource: 'snapshot',
      });
      const measured = clusters.clusters.filter((cluster) => cluster.trafficSource !== null);
      expect(measured).toHaveLength(1);
      // Measured: `partial` while the demo's young Prometheus holds less than the window, `ok` after.
      const expected = existsSync('/usr/bin/prometheus') ? ['ok', 'partial'] : ['unreachable'];
      const source = await waitFor(
        `the demo traffic source to be ${expected.join(' or ')}`,
        async () => {
          const answer = await fetch(`http://127.0.0.1:${port}/v1/clusters/${measured[0].id}/traffic-source`, {
            headers: { authorization: `Bearer ${apiKey}` },
          });
          const body = (await answer.json()) as { status: string; servicesMeasured: number | null };
          return expected.includes(body.status) ? body : null;
        },
        60_000,
        500,
      );
      if (expected[0] === 'ok') expect(source.servicesMeasured).toBeGreaterThan(0);
      const unauthorized = await fetch(`http://127.0.0.1:${port}/v1/fleet`, {
        headers: { authorization: 'Bearer wrong-key-0123456789' },
      });
      expect(unauthorized.status).toBe(401);

      demo.child.kill('SIGINT');
      expect(await demo.exited).toBe(0);
      // Stopping its own children is not reported as a child dying.
      expect(demo.output()).toContain('zonewise demo: stopping');
      expect(demo.output()).not.toMatch(/exited \(/);
      await expect(fetch(`http://127.0.0.1:${port}/readyz`)).rejects.toThrow();
    } finally {
      demo.child.kill('SIGKILL');
    }
  }, 240_000);

  it('refuses a demo API key shorter than 16 characters with exit code 2', async () => {
    const demo = runDemo({ PORT: String(await freePort()), ZONEWISE_DEMO_API_KEY: 'short' });
    expect(await demo.exited).toBe(2);
    expect(demo.output()).toMatch(/ZONEWISE_DEMO_API_KEY: must be at least 16 characters/);
  });
});
