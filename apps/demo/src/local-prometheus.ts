import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A Prometheus of its own (Debian's package, installed by scripts/ensure-services.sh) on a free
 * 127.0.0.1 port, with a temp config and storage, scraping the given targets: the demo's measured
 * cluster, and the traffic-source tests and benchmark, run it the same way.
 */
export const PROMETHEUS_BINARY = process.env.PROMETHEUS_BINARY ?? '/usr/bin/prometheus';

export interface LocalPrometheus {
  url: string;
  stop(): Promise<void>;
}

export async function startLocalPrometheus(
  targets: readonly string[],
  scrapeSeconds: number,
  timeoutMs = 30_000,
): Promise<LocalPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'zonewise-prometheus-'));
  const port = await freePort();
  await writeFile(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      `  scrape_interval: ${scrapeSeconds}s`,
      'scrape_configs:',
      '  - job_name: zonewise',
      '    static_configs:',
      `      - targets: [${targets.map((target) => JSON.stringify(target)).join(', ')}]`,
    ].join('\n'),
  );
  let stderr = '';
  const child: ChildProcess = spawn(
    PROMETHEUS_BINARY,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (!((await fetch(`${url}/-/ready`).catch(() => null))?.ok ?? false)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Prometheus did not start on ${url}: ${stderr.trim() || 'no output'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, stop };
}

export function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    }),
  );
}
