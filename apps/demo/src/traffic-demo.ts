import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, PROMETHEUS_BINARY, startLocalPrometheus } from './local-prometheus.js';

/**
 * The demo's measured cluster. With Prometheus installed (`/usr/bin/prometheus`, which
 * scripts/ensure-services.sh installs), the demo serves an exporter of Istio ambient's ztunnel TCP
 * metrics whose bytes follow the cluster's own Services and zones, starts a Prometheus scraping it, and
 * configures the first demo cluster's traffic source (preset `istio-ambient`) on it. Without Prometheus
 * the cluster's source points at a port nothing listens on, so it shows the `unreachable` status instead.
 *
 * Decision: ztunnel's metrics name the destination Service (and the zones of both ends), which is all
 * the demo process knows of the simulated clusters: it does not hold their Pods.
 */

const SCRAPE_SECONDS = 2;
const WINDOW = '2m';
const INTERVAL = '1m';

interface DemoService {
  namespace: string;
  name: string;
  readyEndpoints: number;
  crossZone: { withHints: number };
}

export interface TrafficDemo {
  cluster: string;
  status: string;
  stop(): Promise<void>;
}

export async function startTrafficDemo(apiUrl: string, apiKey: string): Promise<TrafficDemo> {
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${apiUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...init.headers },
    });
  const clusters = (await (await api('/v1/clusters?limit=1')).json()) as { clusters: { id: string; name: string }[] };
  const [cluster] = clusters.clusters;
  if (!cluster) throw new Error('no demo cluster to measure');
  const configure = async (url: string) => {
    const answer = await api(`/v1/clusters/${cluster.id}/traffic-source`, {
      method: 'PUT',
      body: JSON.stringify({ preset: 'istio-ambient', url, window: WINDOW, interval: INTERVAL }),
    });
    if (!answer.ok) throw new Error(`configuring the demo traffic source: ${answer.status} ${await answer.text()}`);
  };
  if (!existsSync(PROMETHEUS_BINARY)) {
    await configure(`http://127.0.0.1:${await freePort()}`);
    return {
      cluster: cluster.name,
      status: `no ${PROMETHEUS_BINARY}: its source is unreachable`,
      stop: async () => {},
    };
  }
  const services = (
    (await (await api(`/v1/clusters/${cluster.id}/services?limit=500`)).json()) as { services: DemoService[] }
  ).services;
  const zones = (
    (await (await api(`/v1/clusters/${cluster.id}/zones`)).json()) as { zones: { name: string }[] }
  ).zones.map((zone) => zone.name);
  const exporter = await startExporter(exposition(services, zones));
  const prometheus = await startLocalPrometheus(
    [`127.0.0.1:${(exporter.address() as AddressInfo).port}`],
    SCRAPE_SECONDS,
  );
  await untilScraped(prometheus.url, 3);
  await configure(prometheus.url);
  return {
    cluster: cluster.name,
    status: `measured by a local Prometheus (${prometheus.url}) every ${INTERVAL} over ${WINDOW}`,
    async stop() {
      await prometheus.stop();
      await new Promise((resolve) => exporter.close(resolve));
    },
  };
}

/**
 * Bytes per scrape for each Service and zone pair: volume from the Service's ready endpoints, the
 * cross-zone share a little off the model's (real traffic is never exactly the model), so the demo shows
 * the model against the measurement with an error.
 */
function exposition(services: readonly DemoService[], zones: readonly string[]) {
  const series: { metric: string; labels: string; bytesPerScrape: number }[] = [];
  const secondsPerMonth = 730 * 3600;
  services.forEach((service, index) => {
    const gbPerMonth = 30 * Math.max(1, service.readyEndpoints) * (1 + (index % 7) / 3);
    const bytesPerScrape = ((gbPerMonth * 1e9) / secondsPerMonth) * SCRAPE_SECONDS;
    const crossZone = Math.min(1, Math.max(0, service.crossZone.withHints * (0.7 + (index % 5) / 10)));
    const home = zones[index % Math.max(1, zones.length)] ?? 'zone-a';
    const away = zones.find((zone) => zone !== home) ?? home;
    const base = `reporter="destination",destination_service_namespace="${service.namespace}",destination_service_name="${service.name}"`;
    // A quarter of the bytes are requests (received by the destination), the rest answers (sent).
    for (const [metric, share] of [
      ['istio_tcp_received_bytes_total', 0.25],
      ['istio_tcp_sent_bytes_total', 0.75],
    ] as const) {
      series.push({
        metric,
        labels: `${base},source_zone="${home}",destination_zone="${home}"`,
        bytesPerScrape: bytesPerScrape * share * (1 - crossZone),
      });
      series.push({
        metric,
        labels: `${base},source_zone="${away}",destination_zone="${home}"`,
        bytesPerScrape: bytesPerScrape * share * crossZone,
      });
    }
  });
  return series;
}

/** Waits until Prometheus holds `scrapes` samples, so the first measurement has a rate to read. */
async function untilScraped(url: string, scrapes: number, timeoutMs = 60_000): Promise<void> {
  const query = 'max(count_over_time(istio_tcp_sent_bytes_total[5m]))';
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query })}`).catch(() => null);
    const body = answer?.ok ? ((await answer.json()) as { data: { result: { value: [number, string] }[] } }) : null;
    if (Number(body?.data.result[0]?.value[1] ?? 0) >= scrapes) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the demo Prometheus scraped nothing');
}

function startExporter(series: readonly { metric: string; labels: string; bytesPerScrape: number }[]): Promise<Server> {
  let scrapes = 0;
  const server = createServer((_req, res) => {
    scrapes++;
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(
      `${series.map((entry) => `${entry.metric}{${entry.labels}} ${entry.bytesPerScrape * scrapes}`).join('\n')}\n`,
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
