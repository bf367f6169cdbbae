import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentMetrics } from './metrics.js';

export interface HealthStatus {
  /** Ready: every resource has been listed once and the agent is not shutting down. */
  ready: boolean;
  details: Record<string, unknown>;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `GET /livez` (liveness: the process answers), `GET /readyz` (readiness, 503 until the first full list
 * and during shutdown), `GET /healthz` (both, with details, always 200) and `GET /metrics` (Prometheus).
 *
 * Decision: liveness does not depend on the cluster or the API. Restarting the agent cures neither an
 * unreachable API server nor an API outage (the watchers and the spool already retry), and a restart
 * would throw away its caches; a wedged event loop fails the probe anyway, since it cannot answer.
 */
export async function startHealthServer(
  host: string,
  port: number,
  metrics: AgentMetrics,
  status: () => HealthStatus,
): Promise<HealthServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (code: number, contentType: string, body: string) => {
      response.writeHead(code, { 'content-type': contentType, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
    if (path === '/livez') return send(200, 'text/plain', 'ok\n');
    if (path === '/readyz') {
      const { ready } = status();
      return send(ready ? 200 : 503, 'text/plain', ready ? 'ok\n' : 'not ready\n');
    }
    if (path === '/healthz') {
      const current = status();
      return send(200, 'application/json', `${JSON.stringify({ live: true, ...current })}\n`);
    }
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => send(200, metrics.registry.contentType, text),
        (error: unknown) => send(500, 'text/plain', `${String(error)}\n`),
      );
      return;
    }
    send(404, 'text/plain', 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
