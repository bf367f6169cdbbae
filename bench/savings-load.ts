import { Agent, get } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { generateFleetSnapshot } from '@zw/core';
import { withCapturedAt } from './local-stack.js';

/**
 * The savings bench's saturating organization (savings clients back to back, pushers of snapshots), in a
 * thread of its own: its event loop then never delays the measuring client's samples, as another
 * organization's load never shares a process with a real client. It still shares the machine's cores.
 */

/** The saturating organization's cluster. */
export const HEAVY = { nodes: 30, zones: 3, services: 1000, endpointsPerService: 3 };

export interface LoadSettings {
  apiUrl: string;
  apiKey: string;
  agentToken: string;
  savingsPath: string;
  savingsClients: number;
  pushers: number;
  preparedPushes: number;
}

export interface LoadCounts {
  savingsOk: number;
  savingsRefused: number;
  pushes: number;
  pushesRefused: number;
  seconds: number;
}

/** Starts the load thread; resolves once its pushes are prepared and the load runs. */
export async function startLoadThread(settings: LoadSettings): Promise<{ stop(): Promise<LoadCounts> }> {
  const thread = new Worker(__filename, { workerData: { role: 'savings-load', settings } });
  const failed = new Promise<never>((_, reject) => thread.once('error', reject));
  const next = () => Promise.race([new Promise((resolve) => thread.once('message', resolve)), failed]);
  await next();
  return {
    async stop() {
      thread.postMessage('stop');
      const counts = (await next()) as LoadCounts;
      await thread.terminate();
      return counts;
    },
  };
}

/**
 * The pushers' bodies, made before the measurement as an agent makes them on its own cluster's machine:
 * gzip JSON, five changing states, each body its own captured-at (one second apart, an hour ago). The
 * API inflates, parses, hashes and stores each; the worker analyses each. Enough for the ingest rate limit
 * (120 per minute per cluster) over the whole loaded run; past them a pusher makes its bodies as it goes.
 */
function preparedPushes(count: number): { body(n: number): Buffer } {
  const placeholder = '1970-01-01T00:00:00.000Z';
  const start = Date.now() - 3600_000;
  const documents = Array.from({ length: 5 }, (_, n) =>
    JSON.stringify(
      withCapturedAt(generateFleetSnapshot({ ...HEAVY, autoShare: 0.5, seed: 10 + n }), new Date(placeholder)),
    ),
  );
  const bodyOf = (n: number) =>
    gzipSync(documents[n % 5].replace(placeholder, new Date(start + n * 1000).toISOString()));
  const bodies = Array.from({ length: count }, (_, n) => bodyOf(n));
  return { body: (n) => bodies[n] ?? bodyOf(n) };
}

/**
 * The saturating organization: savings clients back to back, and pushers of new snapshots, each waiting
 * as long as a 429's Retry-After says (the per-cluster ingest rate limit), as the agent does.
 */
function startLoad(settings: LoadSettings, pushes: { body(n: number): Buffer }) {
  const { apiUrl, savingsPath, pushers } = settings;
  const client = new Client(apiUrl);
  let running = true;
  let taken = 0;
  const started = performance.now();
  const counts: LoadCounts = { savingsOk: 0, savingsRefused: 0, pushes: 0, pushesRefused: 0, seconds: 0 };
  const loops = [
    ...Array.from({ length: settings.savingsClients }, async () => {
      while (running) {
        const status = await client.status(settings.apiKey, savingsPath);
        if (status === 200) counts.savingsOk++;
        else if (status === 429) {
          counts.savingsRefused++;
          await new Promise((resolve) => setTimeout(resolve, 50));
        } else throw new Error(`savings bench: savings answered ${status}`);
      }
    }),
    ...Array.from({ length: pushers }, async () => {
      while (running) {
        const retryAfter = await pushGzip(apiUrl, settings.agentToken, pushes.body(taken++));
        if (retryAfter === null) counts.pushes++;
        else {
          counts.pushesRefused++;
          await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        }
      }
    }),
  ];
  return {
    async stop(): Promise<LoadCounts> {
      running = false;
      counts.seconds = (performance.now() - started) / 1000;
      await Promise.all(loops);
      return counts;
    },
  };
}

/** Pushes a gzip body as the agent does: null when accepted, the seconds to wait when refused 429. */
async function pushGzip(apiUrl: string, token: string, body: Buffer): Promise<number | null> {
  const response = await fetch(`${apiUrl}/v1/ingest/snapshots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body,
  });
  const text = await response.text();
  if (response.status === 202) return null;
  if (response.status === 429) return Number(response.headers.get('retry-after') ?? 1);
  throw new Error(`savings bench: push answered ${response.status}: ${text}`);
}

export /** One keep-alive HTTP client (Node's own, native parser). */
class Client {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(private readonly base: string) {}

  /**
   * A GET's status. A kept-alive socket the server closed just as it was reused is retried once on a new
   * one, as Node's documentation recommends (the request never reached the server).
   */
  status(apiKey: string, path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = get(
        this.base + path,
        { agent: this.agent, headers: { authorization: `Bearer ${apiKey}` } },
        (response) => {
          response.on('data', () => undefined).on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (request.reusedSocket && error.code === 'ECONNRESET') this.status(apiKey, path).then(resolve, reject);
        else reject(error);
      });
    });
  }

  /** Median latency (ms) of `count` requests one after another, each answered 200. */
  async median(apiKey: string, path: string, count: number): Promise<number> {
    return medianOf(await this.latencies(apiKey, path, count));
  }

  /**
   * Median latencies (ms) of two requests measured in `blocks` alternating blocks of `count / blocks`
   * each, every block after two unmeasured requests: a burst of the machine's other load then falls on
   * both requests' samples, not on one request's alone.
   */
  async alternatingMedians(
    apiKey: string,
    paths: [string, string],
    count: number,
    blocks: number,
  ): Promise<[number, number]> {
    const samples: [number[], number[]] = [[], []];
    for (let block = 0; block < blocks; block++) {
      for (const [which, path] of paths.entries()) {
        await this.latencies(apiKey, path, 2);
        samples[which].push(...(await this.latencies(apiKey, path, Math.ceil(count / blocks))));
      }
    }
    return [medianOf(samples[0]), medianOf(samples[1])];
  }

  private async latencies(apiKey: string, path: string, count: number): Promise<number[]> {
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const status = await this.status(apiKey, path);
      if (status !== 200) throw new Error(`savings bench: ${path} answered ${status}`);
      samples.push(performance.now() - started);
    }
    return samples;
  }
}

function medianOf(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'savings-load') {
  const { settings } = workerData as { settings: LoadSettings };
  const load = startLoad(settings, preparedPushes(settings.preparedPushes));
  parentPort!.postMessage('ready');
  parentPort!.once('message', () => {
    void load.stop().then((counts) => parentPort!.postMessage(counts));
  });
}
