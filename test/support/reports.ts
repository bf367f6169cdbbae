import {
  analyzeSnapshot,
  crossZonePrice,
  type CrossZonePrice,
  generateFleetSnapshot,
  type KubernetesList,
  parseSnapshot,
  snapshotSavings,
  STATIC_CLUSTER_IP_ANNOTATION,
  ZONE_LABEL,
} from '@zw/core';
import type { ReportDocument } from '@zw/reports';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withServiceAnnotations } from './query-snapshots.js';
import { capturedAt, evolve } from './snapshots.js';

/**
 * Fixtures for the report tests: a cluster's history over a period (snapshots with captured-at times
 * inside it), the figures the report must show computed independently with the core, and a local webhook
 * receiver that checks signatures the way docs/reports.md tells receivers to.
 */

const HOUR = 3_600_000;
const MONTH_MS = 730 * HOUR;

export interface HistoryPoint {
  at: Date;
  list: KubernetesList;
}

/** The list with its first Node's zone label removed: the controller's node info becomes insufficient. */
export function withoutZoneOnFirstNode(list: KubernetesList): KubernetesList {
  let done = false;
  return {
    ...list,
    items: list.items.map((item) => {
      if (done || item.kind !== 'Node') return item;
      done = true;
      const labels = { ...item.metadata.labels };
      delete labels[ZONE_LABEL];
      return { ...item, metadata: { ...item.metadata, labels } };
    }),
  };
}

/**
 * A day of a cluster's history: a snapshot an hour before `dayStart` and three inside the day (06:00,
 * 12:00, 18:00), Services changing their topology annotation between them, one with a static ClusterIP
 * in the dynamic band (a Service CIDR risk), the last with a Node missing its zone (node info).
 * Endpoints 4 per Service with some not ready: too few endpoints and overload threshold both occur.
 */
export function dayOfHistory(dayStart: Date, seed = 7): HistoryPoint[] {
  let list = generateFleetSnapshot({
    nodes: 12,
    zones: 3,
    services: 40,
    endpointsPerService: 4,
    autoShare: 0.5,
    notReadyShare: 0.2,
    seed,
  });
  list = withServiceAnnotations(list, (service, index) => index === 5 && service.metadata.name.startsWith('svc-'), {
    [STATIC_CLUSTER_IP_ANNOTATION]: 'true',
  });
  list = withServiceAnnotations(list, (_, index) => index % 9 === 0, { 'zonewise.io/monthly-traffic-gb': '750' });
  const first = list;
  const second = evolve(first, seed * 10 + 1);
  const third = evolve(second, seed * 10 + 2);
  // Node info insufficient: the controller refuses every Auto Service. Traffic weights declared on the
  // snapshot keep the traffic model going (without them it has no zone shares and counts no crossing).
  const broken = withoutZoneOnFirstNode(evolve(third, seed * 10 + 3));
  const fourth = {
    ...broken,
    metadata: {
      annotations: { ...broken.metadata.annotations, 'zonewise.io/zone-traffic-weights': 'zone-a=2,zone-b=1,zone-c=1' },
    },
  };
  const times = [-1, 6, 12, 18].map((hours) => new Date(dayStart.getTime() + hours * HOUR));
  return [first, second, third, fourth].map((snapshot, index) => ({
    at: times[index],
    list: capturedAt(snapshot, times[index]),
  }));
}

export interface Figure {
  crossZoneGb: number;
  cost: number;
}

export interface ExpectedService {
  withoutHints: Figure;
  withHints: Figure;
  missed: Figure;
  months: number;
}

export interface ExpectedReport {
  trafficGb: number;
  withoutHints: Figure;
  withHints: Figure;
  realized: Figure;
  /** By the report's reasons. */
  missed: Record<string, Figure>;
  services: Map<string, ExpectedService>;
  /** Hint-state changes between back-to-back snapshots inside the period. */
  hintStateChanges: number;
}

const zero = (): Figure => ({ crossZoneGb: 0, cost: 0 });
const addScaled = (into: Figure, figure: Figure, scale: number) => {
  into.crossZoneGb += figure.crossZoneGb * scale;
  into.cost += figure.cost * scale;
};

/** The reason names of the report, from the controller's message (as docs/reports.md defines them). */
export function reasonOf(message: string | null): string {
  const text = message ?? '';
  if (text.startsWith('Insufficient number of endpoints')) return 'too-few-endpoints';
  if (text.startsWith('Unable to allocate minimum required endpoints')) return 'overload-threshold';
  if (text.startsWith('Insufficient Node information') || text.startsWith('Nodes only ready in one zone'))
    return 'node-info';
  return 'other';
}

/**
 * What a report over [from, to) must say, computed from the snapshots with the core alone: each
 * snapshot's monthly figures (snapshotSavings) weighted by the share of a 730-hour month it held within
 * the range (a snapshot holds until the next one; the last until `now`).
 */
export function expectedReport(
  history: readonly HistoryPoint[],
  price: CrossZonePrice,
  from: Date,
  to: Date,
  now: Date,
) {
  const expected: ExpectedReport = {
    trafficGb: 0,
    withoutHints: zero(),
    withHints: zero(),
    realized: zero(),
    missed: {},
    services: new Map(),
    hintStateChanges: 0,
  };
  let previous: Map<string, string> | null = null;
  for (const [index, point] of history.entries()) {
    const holdsUntil = history[index + 1]?.at ?? now;
    const overlap = Math.min(holdsUntil.getTime(), to.getTime()) - Math.max(point.at.getTime(), from.getTime());
    const snapshot = parseSnapshot(structuredClone(point.list));
    const report = analyzeSnapshot(snapshot);
    const states = new Map(
      report.services.map((service) => [`${service.namespace}/${service.name}`, service.hints.state as string]),
    );
    if (previous && point.at > from && point.at < to) {
      for (const [key, state] of states)
        if (previous.has(key) && previous.get(key) !== state) expected.hintStateChanges++;
    }
    previous = states;
    if (overlap <= 0) continue;
    const scale = overlap / MONTH_MS;
    const savings = snapshotSavings({ snapshot, report, price });
    const reasons = new Map(
      report.services.map((service) => [`${service.namespace}/${service.name}`, service.hints.reason]),
    );
    expected.trafficGb += savings.totals.trafficGb * scale;
    addScaled(expected.withoutHints, savings.totals.withoutHints, scale);
    addScaled(expected.withHints, savings.totals.withHints, scale);
    addScaled(expected.realized, savings.totals.realizedSavings, scale);
    for (const service of savings.services) {
      const key = `${service.namespace}/${service.name}`;
      let reason: string | null = null;
      let missed: Figure | null = null;
      if (service.routing === 'None' && service.preview?.state === 'populated') {
        reason = 'not-enabled';
        missed = service.missed!.savings;
      } else if (service.routing === 'None' && service.preview?.state === 'removed') {
        reason = reasonOf(service.preview.reason);
        missed = service.cost.withHints;
      } else if (service.routing !== 'None' && service.hintState === 'removed') {
        reason = reasonOf(reasons.get(key) ?? null);
        missed = service.cost.withHints;
      }
      if (reason && missed) addScaled((expected.missed[reason] ??= zero()), missed, scale);
      const line = expected.services.get(key) ?? { withoutHints: zero(), withHints: zero(), missed: zero(), months: 0 };
      addScaled(line.withoutHints, service.cost.withoutHints, scale);
      addScaled(line.withHints, service.cost.withHints, scale);
      if (missed) addScaled(line.missed, missed, scale);
      line.months += scale;
      expected.services.set(key, line);
    }
  }
  return expected;
}

export function awsPrice(): CrossZonePrice {
  return crossZonePrice({ cloud: 'aws', region: 'us-east-1' });
}

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** The signature, recomputed here by hand (HMAC-SHA256 over `<timestamp>.<body>`), matched. */
  signatureValid: boolean;
  /** The timestamp header is within 5 minutes of the receiver's clock. */
  timestampFresh: boolean;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** The secret deliveries are checked against (set once the schedule is created). */
  secret: string;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that checks each delivery's signature the way docs/reports.md tells
 * receivers to, then answers `answer(n)` (the status of the n-th request, from 1).
 */
export async function startWebhookReceiver(answer: (n: number) => number = () => 204): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const receiver: WebhookReceiver = { url: '', received, secret: '', close: async () => undefined };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const timestamp = String(request.headers['zonewise-timestamp'] ?? '');
      const given = String(request.headers['zonewise-signature'] ?? '');
      const expected = `v1=${createHmac('sha256', receiver.secret).update(`${timestamp}.`).update(body).digest('hex')}`;
      const signatureValid =
        given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
      const timestampFresh = /^\d+$/.test(timestamp) && Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
      received.push({
        headers: request.headers,
        body: body.toString('utf8'),
        receivedAt: Date.now(),
        signatureValid,
        timestampFresh,
      });
      response.statusCode = answer(received.length);
      response.end(response.statusCode >= 300 ? 'receiver says no' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/zonewise`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** The JSON document a made report stored (as its download serves it). */
export function madeDocument(report: { documentJson: string | null }): ReportDocument {
  if (report.documentJson === null) throw new Error('the report holds no JSON document');
  return JSON.parse(report.documentJson) as ReportDocument;
}
