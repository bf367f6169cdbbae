import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/** The agent's Prometheus metrics, on a registry of its own (several agents can share a test process). */
export class AgentMetrics {
  readonly registry = new Registry();

  readonly pushes = new Counter({
    name: 'zonewise_agent_pushes_total',
    help: 'Snapshots the API answered, by result (accepted, duplicate, rejected).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly pushFailures = new Counter({
    name: 'zonewise_agent_push_failures_total',
    help: 'Push attempts that will be retried, by reason (network, timeout, http_<status>).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly snapshots = new Counter({
    name: 'zonewise_agent_snapshots_total',
    help: 'Snapshots taken, by trigger (change, heartbeat, shutdown).',
    labelNames: ['trigger'] as const,
    registers: [this.registry],
  });

  readonly spoolSnapshots = new Gauge({
    name: 'zonewise_agent_spool_snapshots',
    help: 'Snapshots waiting in the spool for the API to accept them.',
    registers: [this.registry],
  });

  readonly spoolBytes = new Gauge({
    name: 'zonewise_agent_spool_bytes',
    help: 'Compressed bytes waiting in the spool.',
    registers: [this.registry],
  });

  readonly spoolDropped = new Counter({
    name: 'zonewise_agent_spool_dropped_total',
    help: 'Snapshots dropped from a full spool (the oldest go first).',
    registers: [this.registry],
  });

  readonly watchRestarts = new Counter({
    name: 'zonewise_agent_watch_restarts_total',
    help: 'Watches started again, by resource and reason (reconnect, error, gone, stalled, periodic).',
    labelNames: ['resource', 'reason'] as const,
    registers: [this.registry],
  });

  readonly watchEvents = new Counter({
    name: 'zonewise_agent_watch_events_total',
    help: 'Object events seen, by resource and type (add, update, delete).',
    labelNames: ['resource', 'type'] as const,
    registers: [this.registry],
  });

  readonly lastSnapshotBytes = new Gauge({
    name: 'zonewise_agent_last_snapshot_bytes',
    help: 'Size of the last snapshot taken, uncompressed and gzip.',
    labelNames: ['encoding'] as const,
    registers: [this.registry],
  });

  readonly lastAcceptedTimestamp = new Gauge({
    name: 'zonewise_agent_last_accepted_timestamp_seconds',
    help: 'When the API last accepted a snapshot (Unix seconds).',
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'zonewise_agent_' });
  }
}
