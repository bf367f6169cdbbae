import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, PROMETHEUS_BINARY, startLocalPrometheus } from '../../apps/demo/src/local-prometheus.js';
import { waitFor } from './wait.js';

/**
 * A real Prometheus for traffic-source tests (Debian's package, installed by scripts/ensure-services.sh):
 * its own port, config and storage in a temp dir (the demo's launcher), scraping the targets every second.
 */
export { freePort, PROMETHEUS_BINARY };

export function prometheusMissing(): string | null {
  return existsSync(PROMETHEUS_BINARY)
    ? null
    : `${PROMETHEUS_BINARY} is missing (scripts/ensure-services.sh installs it): traffic-source tests skipped`;
}

export interface RunningPrometheus {
  url: string;
  /** Instant query straight to this Prometheus (test checks only). */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

export async function startPrometheus(targets: string[], scrapeSeconds = 1): Promise<RunningPrometheus> {
  const prometheus = await startLocalPrometheus(targets, scrapeSeconds);
  return {
    ...prometheus,
    async query(promql) {
      const answer = await fetch(`${prometheus.url}/api/v1/query?${new URLSearchParams({ query: promql })}`);
      const body = (await answer.json()) as {
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      return body.data.result;
    },
  };
}

/** Waits until Prometheus holds `count` scrapes of `metric` (a rate over a short window needs a few). */
export async function scrapesHeld(prometheus: RunningPrometheus, metric: string, count: number): Promise<void> {
  await waitFor(
    `Prometheus to hold ${count} scrapes of ${metric}`,
    async () => {
      const [sample] = await prometheus.query(`count_over_time(${metric}[1m])`);
      return sample !== undefined && Number(sample.value[1]) >= count;
    },
    30_000,
  );
}

/** One counter of the exposition: a name, labels, and the bytes it grows by per scrape. */
export interface ExportedCounter {
  name: string;
  labels: Record<string, string>;
  bytesPerScrape: number;
}

export interface RunningExporter {
  /** `127.0.0.1:<port>`, a scrape target. */
  target: string;
  scrapes(): number;
  /** Serves these counters from the next scrape on (a series left out goes stale in Prometheus). */
  setCounters(counters: readonly ExportedCounter[]): void;
  stop(): Promise<void>;
}

/**
 * A plain-text exposition whose counters grow by a known amount at every scrape: scraped each second,
 * each counter's rate is its bytesPerScrape per second, which the tests turn into expected volumes.
 */
export async function startExporter(initial: readonly ExportedCounter[]): Promise<RunningExporter> {
  let scrapes = 0;
  let counters = initial;
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.statusCode = 404;
      res.end();
      return;
    }
    scrapes++;
    const lines = counters.map((counter) => {
      const labels = Object.entries(counter.labels)
        .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
        .join(',');
      return `${counter.name}{${labels}} ${counter.bytesPerScrape * scrapes}`;
    });
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(`${lines.join('\n')}\n`);
  });
  await listen(server);
  return {
    target: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    scrapes: () => scrapes,
    setCounters: (next) => (counters = next),
    stop: () => close(server),
  };
}

/**
 * What the proxy does with a request: forward it, drop the connection (unreachable), never answer
 * (timeout), or answer with an HTML page (not JSON).
 */
export type ProxyMode = 'forward' | 'drop' | 'hang' | 'html';

/** A proxy in front of Prometheus that counts the queries a traffic source sends through it. */
export interface CountingProxy {
  url: string;
  /** Query requests (`/api/v1/query`) seen so far, with the PromQL each carried. */
  queries: string[];
  /** The Authorization header of each of those requests (null: none). */
  authorizations: (string | null)[];
  mode: ProxyMode;
  stop(): Promise<void>;
}

export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const proxy: Omit<CountingProxy, 'url' | 'stop'> = { queries: [], authorizations: [], mode: 'forward' };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url?.startsWith('/api/v1/query')) {
        proxy.queries.push(new URLSearchParams(body.toString()).get('query') ?? '');
        proxy.authorizations.push(req.headers.authorization ?? null);
      }
      if (proxy.mode === 'drop') return req.socket.destroy();
      if (proxy.mode === 'hang') return;
      if (proxy.mode === 'html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>Sign in to continue</body></html>');
      }
      const forward = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await listen(server);
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => close(server),
  });
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
