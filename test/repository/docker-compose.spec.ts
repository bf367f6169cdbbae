import { dbEnvSchema } from '@zw/db';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_SETTING_SCHEMAS } from '../../apps/api/src/config.js';
import { WORKER_SETTING_SCHEMAS } from '../../apps/worker/src/config.js';
import { startQueryStack, type QueryStack } from '../support/query-api.js';

/**
 * docker-compose.yml against the code: every setting .env.example documents reaches each container whose
 * app reads it, every setting an app reads is documented or set by compose, and the API's healthcheck
 * really asks /healthz and /readyz (run here against a real API).
 */
const ROOT = join(__dirname, '..', '..');

interface ComposeService {
  image?: string;
  build?: { context: string; target?: string; dockerfile?: string; dockerfile_inline?: string };
  read_only?: boolean;
  tmpfs?: string[];
  command?: string[];
  env_file?: (string | { path: string; required?: boolean })[];
  environment?: Record<string, string | number | boolean | null>;
  healthcheck?: { test: string[]; retries?: number };
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const composeText = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');

/** `KEY=value` lines are settings with a value; `# KEY=value` lines document optional ones (off by default). */
function envExample(): { set: Map<string, string>; optional: Set<string> } {
  const set = new Map<string, string>();
  const optional = new Set<string>();
  for (const line of readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n')) {
    const active = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (active) set.set(active[1]!, active[2]!);
    const commented = /^# ([A-Z][A-Z0-9_]*)=\S*$/.exec(line);
    if (commented) optional.add(commented[1]!);
  }
  return { set, optional };
}

const keysOf = (...schemas: { shape: object }[]) => new Set(schemas.flatMap((schema) => Object.keys(schema.shape)));

/** What each app container's code reads from the environment, from the zod schemas it validates at boot. */
const READERS: Record<string, Set<string>> = {
  api: keysOf(...API_SETTING_SCHEMAS),
  worker: keysOf(...WORKER_SETTING_SCHEMAS),
  // `npm run db:migrate` (scripts/prisma-migrate.mjs) needs only the database.
  migrate: keysOf(dbEnvSchema),
};

function envFiles(service: ComposeService): { path: string; required: boolean }[] {
  return (service.env_file ?? []).map((entry) =>
    typeof entry === 'string'
      ? { path: entry, required: true }
      : { path: entry.path, required: entry.required ?? true },
  );
}

/** The environment a container starts with: its env files (those that exist here), then `environment`. */
function containerEnvironment(service: ComposeService): Map<string, string> {
  const env = new Map<string, string>();
  if (envFiles(service).some((entry) => entry.path === '.env.example')) {
    for (const [key, value] of envExample().set) env.set(key, value);
  }
  for (const [key, value] of Object.entries(service.environment ?? {})) env.set(key, String(value));
  return env;
}

describe('docker-compose.yml passes every setting to the containers that read it', () => {
  const example = envExample();

  it('.env.example documents settings (the parse found them)', () => {
    expect(example.set.size).toBeGreaterThan(40);
    expect(example.optional).toContain('WORKER_ANALYSIS_THREADS');
  });

  it.each(Object.keys(READERS))('%s reads .env.example, then an optional .env', (name) => {
    const service = compose.services[name]!;
    expect(envFiles(service)).toEqual([
      { path: '.env.example', required: true },
      { path: '.env', required: false },
    ]);
  });

  it.each(Object.keys(READERS))('every setting %s reads reaches it, or is set by compose', (name) => {
    const env = containerEnvironment(compose.services[name]!);
    const reads = READERS[name]!;
    const missing = [...reads].filter((key) => example.set.has(key) && !env.has(key));
    expect(missing).toEqual([]);
    const undocumented = [...reads].filter(
      (key) => !example.set.has(key) && !example.optional.has(key) && !env.has(key),
    );
    expect(undocumented).toEqual([]);
  });

  it('every .env.example setting is read by an app or used by compose itself', () => {
    const read = new Set(Object.values(READERS).flatMap((keys) => [...keys]));
    const orphans = [...example.set.keys(), ...example.optional].filter(
      (key) => !read.has(key) && !composeText.includes(`\${${key}:-`),
    );
    expect(orphans).toEqual([]);
  });

  it('compose overrides only what must differ inside it (addresses, listen address and ports, heartbeat file)', () => {
    const overrides = (name: string) => Object.keys(compose.services[name]!.environment ?? {}).sort();
    const shared = ['DATABASE_URL', 'NODE_ENV', 'REDIS_URL'];
    expect(overrides('migrate')).toEqual(shared);
    expect(overrides('api')).toEqual([...shared, 'HOST', 'METRICS_PORT', 'PORT'].sort());
    expect(overrides('worker')).toEqual([...shared, 'WORKER_HEARTBEAT_FILE'].sort());
    for (const name of Object.keys(READERS)) {
      const env = containerEnvironment(compose.services[name]!);
      expect(env.get('DATABASE_URL')).toMatch(/@postgres:5432\//);
      expect(env.get('REDIS_URL')).toBe('redis://redis:6379');
    }
    expect(containerEnvironment(compose.services.api!).get('HOST')).toBe('0.0.0.0');
  });
});

describe('docker-compose.yml runs the production image', () => {
  it("every app container is the Dockerfile's runtime stage, run read-only with a tmpfs /tmp", () => {
    for (const name of Object.keys(READERS)) {
      const service = compose.services[name]!;
      expect(service.build, name).toEqual({ context: '.', target: 'runtime' });
      expect(service.read_only, name).toBe(true);
      expect(service.tmpfs, name).toEqual(['/tmp']);
    }
  });

  it('each names its role, one the image entrypoint (deploy/image/zonewise) knows', () => {
    const entrypoint = readFileSync(join(ROOT, 'deploy', 'image', 'zonewise'), 'utf8');
    const roles = Object.fromEntries(Object.keys(READERS).map((name) => [name, compose.services[name]!.command]));
    expect(roles).toEqual({ api: ['api'], worker: ['worker'], migrate: ['migrate'] });
    for (const command of Object.values(roles)) expect(entrypoint).toMatch(new RegExp(`^  ${command![0]}\\)`, 'm'));
  });
});

describe("the API container's healthcheck", () => {
  const script = compose.services.api!.healthcheck!.test;
  const runCheck = (baseUrl: string) => {
    expect(script.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    const code = script[3]!;
    expect(code.split('http://127.0.0.1:3000').length).toBe(2);
    return promisify(execFile)(process.execPath, ['-e', code.replace('http://127.0.0.1:3000', baseUrl)], {
      timeout: 10_000,
    }).then(
      () => 0,
      (error: { code?: number }) => error.code ?? -1,
    );
  };

  let stack: QueryStack;
  let halfReady: Server;
  beforeAll(async () => {
    stack = await startQueryStack('compose_health');
    // Alive but not ready, as an API whose Redis is down answers.
    halfReady = createServer((request, response) => {
      response.statusCode = request.url === '/healthz' ? 200 : 503;
      response.end();
    });
    await new Promise<void>((resolve) => halfReady.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => halfReady?.close(resolve));
  });

  it('passes against a real, ready API', async () => {
    // As Docker judges it: unhealthy only after `retries` failures in a row. On a loaded machine one check
    // can outlast its 2.5 s fetch timeout (a node process started, two requests) or meet a saturated /readyz.
    const retries = compose.services.api!.healthcheck!.retries!;
    const codes: number[] = [];
    while (codes.length < retries && codes.at(-1) !== 0) codes.push(await runCheck(stack.url));
    expect(codes.at(-1)).toBe(0);
  });

  it('fails when /readyz answers 503 though /healthz answers', async () => {
    expect(await runCheck(`http://127.0.0.1:${(halfReady.address() as AddressInfo).port}`)).toBe(1);
  });

  it('fails when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await runCheck(`http://127.0.0.1:${port}`)).toBe(1);
  });
});
