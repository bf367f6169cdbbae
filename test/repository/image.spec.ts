import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@zw/db';
import { type Copy, DockerfileParser, type Instruction } from 'dockerfile-ast';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../support/databases.js';
import {
  assembleRuntimeFiles,
  fileStates,
  imageNodeBinary,
  imageNodeVersion,
  installedPackages,
  productionClosure,
} from '../support/image.js';
import { freePort } from '../support/private-services.js';
import { buildProjects } from '../support/processes.js';
import { createCluster, createTenant, pushSnapshot, waitProcessed } from '../support/query-api.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { fleet } from '../support/snapshots.js';
import { waitFor } from '../support/wait.js';

/**
 * The production image without a Docker engine. The Dockerfile is read as Docker reads it (stages,
 * instructions, flags); its runtime stage's files are assembled by deploy/image/runtime-files.sh, the
 * script its build stage runs, into a temporary directory; from there the migrations, the API and the
 * worker run (through the image's entrypoint, bin/zonewise) on the image's Node release against real
 * PostgreSQL and Redis, with nothing but production dependencies installed.
 */
const ROOT = join(__dirname, '..', '..');
const node = imageNodeBinary();
if (node.missing) console.warn(node.missing);
const nodeDir = node.missing ? dirname(process.execPath) : dirname(node.path);
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  license: string;
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

function dockerfileStages(): { initialArgs: Map<string, string>; stages: Stage[] } {
  const dockerfile = DockerfileParser.parse(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  const initialArgs = new Map(
    dockerfile.getInitialARGs().map((arg) => [arg.getProperty()!.getName(), arg.getProperty()!.getValue() ?? '']),
  );
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const [image, as, name] = instruction.getArguments().map((argument) => argument.getValue());
      expect(as?.toUpperCase()).toBe('AS');
      stages.push({ name: name!, image: image!, instructions: [] });
    } else if (stages.length) {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { initialArgs, stages };
}

const byKeyword = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.getKeyword() === keyword);
const argumentsOf = (instruction: Instruction) => instruction.getArguments().map((argument) => argument.getValue());
/** An exec-form (JSON array) instruction's arguments. */
const execForm = (instruction: Instruction) => JSON.parse(instruction.getArgumentsContent()!) as string[];

describe('the Dockerfile', () => {
  const { initialArgs, stages } = dockerfileStages();
  const build = stages.find((stage) => stage.name === 'build')!;
  const runtime = stages.at(-1)!;

  it('builds in a build stage and ships a runtime stage (the last one, the default target)', () => {
    expect(stages.map((stage) => stage.name)).toEqual(['build', 'runtime']);
    for (const stage of stages) expect(stage.image).toBe('node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim');
  });

  it('pins a supported Node LTS release, the one the apps are run on below', () => {
    const version = initialArgs.get('NODE_VERSION')!;
    expect(version).toBe(imageNodeVersion());
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    // Even majors are the LTS lines; 20 reached end of life on 2026-04-30, 22 leaves maintenance in 2027-04.
    const major = Number(version.split('.')[0]);
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
  });

  it('installs every workspace library before npm ci, so the dependency layer is complete', () => {
    const copied = byKeyword(build, 'COPY').flatMap((copy) => argumentsOf(copy).slice(0, -1));
    const libs = readdirSync(join(ROOT, 'libs')).filter((name) => existsSync(join(ROOT, 'libs', name, 'package.json')));
    for (const lib of libs) expect(copied).toContain(`libs/${lib}/package.json`);
    const runs = byKeyword(build, 'RUN').map((run) => run.getArgumentsContent()!);
    expect(runs[0]).toContain('npm ci');
  });

  it('assembles the runtime files with deploy/image/runtime-files.sh, which the runtime stage copies whole', () => {
    const runs = byKeyword(build, 'RUN').map((run) => run.getArgumentsContent()!);
    expect(runs.at(-1)).toMatch(/npm run build && sh deploy\/image\/runtime-files\.sh \. \/out$/);
    const copies = byKeyword(runtime, 'COPY');
    expect(copies).toHaveLength(1);
    const copy = copies[0] as Copy;
    expect(copy.getFromFlag()?.getValue()).toBe('build');
    expect(argumentsOf(copy)).toEqual(['/out/', '/app/']);
    expect(argumentsOf(byKeyword(runtime, 'WORKDIR')[0]!)).toEqual(['/app']);
  });

  it('runs as a numeric non-root user, with tini as PID 1 in front of the role entrypoint', () => {
    const [user] = byKeyword(runtime, 'USER');
    const [uid, gid] = argumentsOf(user!)[0]!.split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    const installs = byKeyword(runtime, 'RUN').map((run) => run.getArgumentsContent()!);
    expect(installs.join('\n')).toMatch(/apt-get install -y --no-install-recommends tini/);
    expect(execForm(byKeyword(runtime, 'ENTRYPOINT')[0]!)).toEqual(['/usr/bin/tini', '--', '/app/bin/zonewise']);
    expect(execForm(byKeyword(runtime, 'CMD')[0]!)).toEqual(['api']);
    const env = byKeyword(runtime, 'ENV')
      .map((instruction) => instruction.getArgumentsContent()!)
      .join(' ');
    expect(env).toContain('NODE_ENV=production');
  });

  it('labels the image with the OCI annotation keys', () => {
    const labels = new Map<string, string>();
    for (const label of byKeyword(runtime, 'LABEL')) {
      for (const [, key, value] of label.getArgumentsContent()!.matchAll(/([a-z.]+)="([^"]*)"/g)) {
        labels.set(key!, value!);
      }
    }
    expect([...labels.keys()].sort()).toEqual(
      ['base.name', 'created', 'description', 'licenses', 'revision', 'source', 'title', 'version'].map(
        (key) => `org.opencontainers.image.${key}`,
      ),
    );
    expect(labels.get('org.opencontainers.image.licenses')).toBe(packageJson.license);
    expect(labels.get('org.opencontainers.image.version')).toBe('${VERSION}');
    const versionArg = byKeyword(runtime, 'ARG').find((arg) => argumentsOf(arg)[0]!.startsWith('VERSION='));
    expect(argumentsOf(versionArg!)[0]).toBe(`VERSION=${packageJson.version}`);
  });

  it('.dockerignore keeps what the build makes for itself, and secrets, out of the context', () => {
    const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    for (const pattern of [
      'node_modules',
      '**/node_modules',
      'dist',
      '**/dist',
      'libs/db/src/generated',
      '.git',
      '.env',
    ]) {
      expect(patterns).toContain(pattern);
    }
    expect(patterns).toContain('!.env.example');
    // Nothing the build reads is ignored.
    const read = [
      'package.json',
      'package-lock.json',
      'prisma.config.ts',
      'tsconfig.json',
      'prisma/schema.prisma',
      'prisma/migrations',
      'scripts/no-schema-engine.sh',
      'scripts/prisma-migrate.mjs',
      'deploy/image/runtime-files.sh',
      'deploy/image/zonewise',
      'apps/api/src',
      'apps/dashboard',
      'libs/core/src',
      'bench',
    ];
    for (const path of read) {
      expect(
        patterns.filter((pattern) => path === pattern || path.startsWith(`${pattern}/`)),
        path,
      ).toEqual([]);
    }
  });
});

describe("the runtime stage's files", () => {
  let stage: string;

  beforeAll(() => {
    buildProjects(['apps/api', 'apps/worker', 'apps/agent']);
    stage = join(mkdtempSync(join(tmpdir(), 'zw-image-')), 'app');
    const run = assembleRuntimeFiles(stage);
    expect(run.status, run.output).toBe(0);
  }, 600_000);

  afterAll(async () => {
    if (stage) await rm(dirname(stage), { recursive: true, force: true });
  }, 300_000);

  it('hold the compiled apps, the dashboard, the migrations and the entrypoint, and no sources', () => {
    expect(readdirSync(stage).sort()).toEqual(
      ['bin', 'dist', 'libs', 'node_modules', 'package-lock.json', 'package.json', 'prisma', 'scripts'].sort(),
    );
    expect(readdirSync(join(stage, 'dist')).sort()).toEqual(['apps', 'dashboard']);
    expect(readdirSync(join(stage, 'dist', 'apps')).sort()).toEqual(['agent', 'api', 'worker']);
    expect(readdirSync(join(stage, 'bin'))).toEqual(['zonewise']);
    expect(readdirSync(join(stage, 'scripts'))).toEqual(['prisma-migrate.mjs']);
    expect(existsSync(join(stage, 'dist', 'dashboard', 'index.html'))).toBe(true);
    expect(readdirSync(join(stage, 'prisma', 'migrations')).sort()).toEqual(
      readdirSync(join(ROOT, 'prisma', 'migrations')).sort(),
    );
    for (const lib of readdirSync(join(stage, 'libs'))) {
      expect(readdirSync(join(stage, 'libs', lib)).sort(), lib).toEqual(['dist', 'package.json']);
    }
    // The Prisma client generated from the schema is there, compiled.
    expect(existsSync(join(stage, 'libs', 'db', 'dist', 'generated', 'prisma', 'client.js'))).toBe(true);
    const compilerFiles = [...fileStates(stage).keys()].filter(
      (path) => !path.startsWith('node_modules/') && /\.(ts|tsbuildinfo)$/.test(path),
    );
    expect(compilerFiles).toEqual([]);
  });

  it('install production dependencies only, at the versions package-lock.json pins', () => {
    const closure = productionClosure();
    const installed = installedPackages(stage);
    expect([...installed].filter((pkg) => !closure.all.has(pkg))).toEqual([]);
    const required = [...closure.all].filter((pkg) => !closure.optional.has(pkg));
    expect(required.filter((pkg) => !installed.has(pkg))).toEqual([]);
    const names = new Set([...installed].map((pkg) => pkg.slice(0, pkg.lastIndexOf('@'))));
    for (const tool of ['prisma', 'typescript', 'vite', 'vitest', '@nestjs/cli', 'eslint']) {
      expect(names.has(tool), tool).toBe(false);
    }
    // What the migrate role loads is production's now.
    for (const name of ['@prisma/schema-engine-wasm', '@prisma/driver-adapter-utils', 'pg-connection-string']) {
      expect(packageJson.dependencies[name], name).toBeDefined();
      expect(names.has(name), name).toBe(true);
    }
  });

  describe('run from the stage on the image Node release', () => {
    const database = `zw_test_image_${process.pid}`;
    const prefix = uniquePrefix('image');
    const heartbeat = join(tmpdir(), `zw-image-heartbeat-${process.pid}`);
    const env = () => ({
      PATH: `${nodeDir}:${process.env.PATH}`,
      HOME: tmpdir(),
      NODE_ENV: 'production',
      NO_COLOR: '1',
      DATABASE_URL: databaseUrl(database),
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      DB_POOL_MAX: '4',
      READ_POOL_MAX: '4',
    });
    const entrypoint = (args: string[], extraEnv: Record<string, string> = {}) =>
      spawnSync(join(stage, 'bin', 'zonewise'), args, {
        cwd: stage,
        env: { ...env(), ...extraEnv },
        encoding: 'utf8',
        timeout: 120_000,
      });
    let before: Map<string, string>;
    let prisma: PrismaClient;
    const running: ChildProcess[] = [];
    const outputs = new Map<ChildProcess, string>();

    const start = (role: string, extraEnv: Record<string, string>) => {
      const child = spawn(join(stage, 'bin', 'zonewise'), [role], {
        cwd: '/',
        env: { ...env(), ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      outputs.set(child, '');
      const collect = (chunk: Buffer) => outputs.set(child, outputs.get(child)! + chunk.toString());
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      running.push(child);
      return child;
    };

    beforeAll(() => {
      before = fileStates(stage);
    }, 120_000);

    afterAll(async () => {
      for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await prisma?.$disconnect();
      await deletePrefixKeys(prefix);
      rmSync(heartbeat, { force: true });
      const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
    }, 120_000);

    it('migrate creates the database and applies every migration, then finds none to apply; status agrees', () => {
      const migrations = readdirSync(join(stage, 'prisma', 'migrations')).filter((name) => !name.endsWith('.toml'));
      const deploy = entrypoint(['migrate']);
      expect(deploy.status, deploy.stderr).toBe(0);
      expect(deploy.stdout.match(/^Applied migration /gm)).toHaveLength(migrations.length);
      // As every upgrade's hook runs it again: nothing left to apply.
      const again = entrypoint(['migrate']);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain('No pending migrations to apply.');
      const status = entrypoint(['migrate', 'status']);
      expect(status.status, status.stderr).toBe(0);
      expect(status.stdout).toContain(`${migrations.length} migrations; database schema is up to date.`);
    });

    it('the API and the worker start, take a snapshot in, record it and serve the dashboard', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const api = start('api', { PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: '0' });
      const worker = start('worker', { WORKER_HEARTBEAT_FILE: heartbeat, SWEEP_EVERY_MS: '1000' });
      const ready = await waitFor(
        'the API ready',
        async () => {
          if (api.exitCode !== null) throw new Error(`the API exited: ${outputs.get(api)}`);
          return fetch(`${url}/readyz`).then(
            (answer) => answer.ok,
            () => false,
          );
        },
        90_000,
        250,
      );
      expect(ready).toBe(true);
      // The entrypoint exec'd the image's node: the process is that binary, not a shell around it.
      for (const child of [api, worker]) expect(readlinkSync(`/proc/${child.pid}/exe`)).toBe(join(nodeDir, 'node'));

      prisma = createPrismaClient({ databaseUrl: databaseUrl(database), poolMax: 2 });
      const tenant = await createTenant(prisma, 'image');
      const cluster = await createCluster(prisma, tenant, 'prod');
      const snapshot = fleet(3, 2);
      await waitProcessed(prisma, [await pushSnapshot(url, cluster.token, snapshot)], 90_000);
      const services = await fetch(`${url}/v1/clusters/${cluster.id}/services`, {
        headers: { authorization: `Bearer ${tenant.readKey}` },
      });
      expect(services.status).toBe(200);
      const listed = ((await services.json()) as { services: { name: string }[] }).services;
      const pushed = snapshot.items.filter((item) => item.kind === 'Service');
      expect(listed.map((service) => service.name).sort()).toEqual(pushed.map((item) => item.metadata.name).sort());

      const page = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>zonewise</title>');
      await waitFor('the worker heartbeat', async () => existsSync(heartbeat), 30_000);
    }, 180_000);

    it('both shut down on SIGTERM (what tini forwards), without needing a SIGKILL', async () => {
      const exits = await Promise.all(
        running.map(async (child) => {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
          return { code, signal };
        }),
      );
      // Nest closes the app (HTTP server, queues, pools), then re-raises the signal; the worker's own
      // deadline (exit code 1) would mean a job held it past 30 s.
      for (const exit of exits) expect([exit.signal, exit.code]).toEqual(['SIGTERM', null]);
    }, 60_000);

    it('wrote nothing into the image: the root filesystem may be read-only', () => {
      const after = fileStates(stage);
      const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
        (path) => before.get(path) !== after.get(path),
      );
      expect(changed).toEqual([]);
    });

    it('the agent and the admin commands load from the stage too', () => {
      const agent = entrypoint(['agent', '--help']);
      expect(agent.status, agent.stderr).toBe(0);
      expect(agent.stdout).toContain('--api-url');
      const admin = entrypoint(['admin']);
      expect(admin.stdout + admin.stderr).toContain('create-cluster');
    });

    it('the entrypoint refuses an unknown role or migrate command with exit code 2, naming it', () => {
      const unknown = entrypoint(['apii']);
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain("unknown role or program 'apii'");
      const create = entrypoint(['migrate', 'create', 'x']);
      expect(create.status).toBe(2);
      expect(create.stderr).toContain("unknown command 'create'");
      expect(entrypoint([]).status).toBe(2);
      const program = entrypoint(['node', '-p', 'process.version']);
      expect(program.stdout.trim()).toBe(`v${node.missing ? process.versions.node : imageNodeVersion()}`);
    });
  });
});
