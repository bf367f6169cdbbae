import type { INestApplication } from '@nestjs/common';
import { createPrismaClient, type PrismaClient, registerCluster } from '@zw/db';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { waitFor } from '../../../test/support/wait.js';
import { createApiApp } from '../../api/src/http-app.js';
import { type AgentProcess, startAgentProcess } from './support/agent-process.js';
import { realisticCluster, SERVICE_CIDR_OBJECT } from './support/cluster.js';
import { FakeApiServer } from './support/fake-apiserver.js';
import { buildAgentAndCli, freePort } from './support/pipeline.js';

/**
 * The compiled agent as a real child process: how it refuses bad configuration, and what it does with
 * a change not yet pushed when it receives SIGTERM, with the API up and with the API down.
 */

let db: TestDatabase;
let prisma: PrismaClient;
let prefix: string;
let api: INestApplication | null = null;
let apiPort: number;
let dir: string;
let server: FakeApiServer;
let kubeconfig: string;
const processes: AgentProcess[] = [];

async function startApi(): Promise<void> {
  api = await createApiApp({ logger: ['error'] });
  await api.listen(apiPort, '127.0.0.1');
}

function agent(args: string[], env: Record<string, string> = {}): AgentProcess {
  const started = startAgentProcess(args, env);
  processes.push(started);
  return started;
}

function agentArgs(spoolDir: string, extra: string[] = []): string[] {
  return [
    '--api-url',
    `http://127.0.0.1:${apiPort}`,
    '--kubeconfig',
    kubeconfig,
    '--spool-dir',
    spoolDir,
    '--settle',
    '50ms',
    // A change after the first snapshot stays pending: only shutdown can send it.
    '--push-min-interval',
    '1h',
    '--push-max-interval',
    '1h',
    '--retry-initial',
    '100ms',
    '--retry-max',
    '300ms',
    '--shutdown-timeout',
    '5s',
    '--health-host',
    '127.0.0.1',
    '--health-port',
    '0',
    ...extra,
  ];
}

async function payloads(clusterId: string): Promise<{ capturedAt: Date; json: string }[]> {
  const rows = await prisma.snapshot.findMany({
    where: { clusterId },
    orderBy: { capturedAt: 'asc' },
    include: { payload: true },
  });
  return rows.map((row) => ({ capturedAt: row.capturedAt, json: gunzipSync(row.payload!.gzip).toString() }));
}

function spoolFiles(spoolDir: string): string[] {
  try {
    return readdirSync(spoolDir).sort();
  } catch {
    return []; // not created yet
  }
}

function changeNodeCpu(cpu: string): void {
  const node = server.list().find((item) => item.kind === 'Node')!;
  server.apply({ ...node, status: { ...(node.status as object), allocatable: { cpu, memory: '16Gi' } } });
}

beforeAll(async () => {
  buildAgentAndCli();
  dir = mkdtempSync(join(tmpdir(), 'zw-agent-proc-'));
  db = await createTestDatabase('agentproc');
  prefix = uniquePrefix('agentproc');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  Object.assign(process.env, { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix });
  apiPort = await freePort();
  server = new FakeApiServer();
  await server.start();
  for (const item of [...realisticCluster({ services: 10, seed: 5 }), SERVICE_CIDR_OBJECT]) server.apply(item);
  kubeconfig = server.writeKubeconfig(join(dir, 'kubeconfig'));
}, 120_000);

afterEach(async () => {
  for (const child of processes.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
    await child.exited;
  }
  await api?.close();
  api = null;
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await deletePrefixKeys(prefix);
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('zonewise-agent process', () => {
  it('exits 2 with a message naming each bad setting', async () => {
    const cases: { args: string[]; env?: Record<string, string>; message: RegExp }[] = [
      { args: [], message: /--api-url \(ZONEWISE_API_URL\) is required[\s\S]*--token or --token-file/ },
      { args: ['--api-url', 'not a url', '--token', 'zwa_x'], message: /--api-url: "not a url" is not a URL/ },
      {
        args: ['--api-url', 'http://x', '--token', 'secret'],
        message: /--token: expected an agent token starting with "zwa_"/,
      },
      {
        args: ['--api-url', 'http://x', '--token', 'zwa_x', '--push-min-interval', 'soon'],
        message: /--push-min-interval: "soon" is not a duration/,
      },
      {
        args: ['--api-url', 'http://x', '--token', 'zwa_x'],
        env: { ZONEWISE_SPOOL_MAX_SNAPSHOTS: '0' },
        message: /--spool-max-snapshots: expected a whole number from 1/,
      },
      {
        args: ['--api-url', 'http://x', '--token', 'zwa_x', '--service-cidr', '10.96.0.0/33'],
        message: /--service-cidr: "10.96.0.0\/33"/,
      },
      { args: ['--api-url', 'http://x', '--token', 'zwa_x', '--frobnicate'], message: /unknown option '--frobnicate'/ },
      {
        args: ['--api-url', 'http://x', '--token-file', join(dir, 'missing-token'), '--kubeconfig', kubeconfig],
        message: /--token-file .*missing-token: cannot read it \(ENOENT\)/,
      },
      {
        args: ['--api-url', 'http://x', '--token', 'zwa_x', '--kubeconfig', join(dir, 'missing-kubeconfig')],
        message: /cannot load the Kubernetes configuration/,
      },
    ];
    const results = await Promise.all(
      cases.map(async ({ args, env }) => {
        const child = agent(args, env);
        const { code } = await child.exited;
        return { args, code, output: child.output() };
      }),
    );
    expect(results).toEqual(
      cases.map(({ args, message }) => ({ args, code: 2, output: expect.stringMatching(message) })),
    );
  });

  it('on SIGTERM, pushes the change it was holding back and exits 0', async () => {
    await startApi();
    const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug: 'proc', name: 'sigterm-up' });
    const tokenFile = join(dir, 'token-up');
    writeFileSync(tokenFile, `${agentToken}\n`);
    const spoolDir = join(dir, 'spool-up');
    const child = agent(agentArgs(spoolDir, ['--token-file', tokenFile, '--cluster', 'sigterm-up']));
    await waitFor(
      'the first snapshot',
      async () => (await prisma.snapshot.count({ where: { clusterId: cluster.id } })) === 1,
    );

    changeNodeCpu('5');
    await waitFor(
      'the agent to see the change',
      async () => (await child.metric('zonewise_agent_watch_events_total', { resource: 'nodes', type: 'update' })) >= 1,
    );
    expect(await prisma.snapshot.count({ where: { clusterId: cluster.id } })).toBe(1); // held back by --push-min-interval
    child.child.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });

    const stored = await payloads(cluster.id);
    expect(stored).toHaveLength(2);
    expect(stored[1].json).toContain('"allocatable":{"cpu":"5"}');
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(child.logs().map((line) => line.msg)).toEqual(
      expect.arrayContaining(['signal received', 'snapshot taken', 'snapshot accepted', 'stopped']),
    );
  }, 60_000);

  it('on SIGTERM with the API down, spools the change on disk; the next start delivers it', async () => {
    const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug: 'proc', name: 'sigterm-down' });
    const spoolDir = join(dir, 'spool-down');
    const first = agent(agentArgs(spoolDir), { ZONEWISE_AGENT_TOKEN: agentToken });
    await waitFor('the first snapshot to be spooled', async () => spoolFiles(spoolDir).length === 1);
    changeNodeCpu('6');
    await waitFor(
      'the agent to see the change',
      async () => (await first.metric('zonewise_agent_watch_events_total', { resource: 'nodes', type: 'update' })) >= 1,
    );
    // With the API down, the agent exits on its own (no retry loop holds it) and cleanly.
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    const spooled = readdirSync(spoolDir).sort();
    expect(spooled).toHaveLength(2); // the undelivered first snapshot and the final one
    expect(first.logs().find((line) => line.msg === 'snapshots left in the spool for the next start')).toMatchObject({
      spoolSnapshots: 2,
    });

    await startApi();
    const second = agent(agentArgs(spoolDir), { ZONEWISE_AGENT_TOKEN: agentToken });
    await waitFor(
      'the spool to be delivered',
      async () =>
        readdirSync(spoolDir).length === 0 && (await prisma.snapshot.count({ where: { clusterId: cluster.id } })) === 3,
    );
    const stored = await payloads(cluster.id);
    expect(stored.slice(0, 2).map((row) => row.capturedAt.getTime())).toEqual(
      spooled.map((name) => Number(name.slice(0, 15))),
    );
    expect(stored[1].json).toContain('"allocatable":{"cpu":"6"}');
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 60_000);
});
