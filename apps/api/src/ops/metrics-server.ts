import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MetricsService } from './metrics.service.js';

/**
 * The Prometheus endpoint, on a port of its own (METRICS_PORT), never on the API's: `/metrics` holds
 * deployment-wide figures (clusters, Services and cross-zone cost of every organization), which no API
 * key may read, so it is reachable only where the operator lets the scraper in (a ServiceMonitor on the
 * chart's `metrics` port; no Ingress routes to it). The exposition is the one MetricsService renders for
 * the whole pipeline; anything but `GET|HEAD /metrics` is 404.
 *
 * node:http rather than a second Nest application: one route, no auth, no body; a second application
 * would build every module again.
 */
@Injectable()
export class MetricsServer implements OnModuleDestroy {
  private readonly logger = new Logger(MetricsServer.name);
  private server: Server | undefined;

  constructor(@Inject(MetricsService) private readonly metrics: MetricsService) {}

  /** Starts listening; resolves to the base URL (`http://host:port`), the port chosen when `port` is 0. */
  async listen(port: number, host: string): Promise<string> {
    const server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('only GET /metrics here\n');
        return;
      }
      this.metrics.render().then(
        ({ contentType, body }) => {
          response.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
          response.end(request.method === 'HEAD' ? undefined : body);
        },
        (error: unknown) => {
          this.logger.error(`could not render /metrics: ${error instanceof Error ? error.message : String(error)}`);
          response.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
        },
      );
    });
    server.keepAliveTimeout = 65_000; // longer than Prometheus's default scrape interval: one connection reused
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${address.port}`;
  }

  async onModuleDestroy(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
