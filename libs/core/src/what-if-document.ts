/**
 * The what-if document (`{ enableRouting, scaleReplicas, removeZoneNodes }`), its limits and its
 * reading: checked by hand, like the snapshot reader, so every error names the JSON path
 * (`whatIf.scaleReplicas[0].delta: expected a whole number`); which Services it names is checked
 * against the snapshot.
 */
import { serviceKey } from './analyze.js';
import type { Snapshot } from './snapshot-model.js';

export class WhatIfError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'WhatIfError';
  }
}

export const ROUTING_MODES = ['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'None'] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];

export interface EnableRoutingWhatIf {
  namespace: string;
  name: string;
  mode: RoutingMode;
}

export interface ScaleReplicasWhatIf {
  namespace: string;
  name: string;
  zone: string;
  /** Ready endpoints to add (positive) or remove (negative) in the zone. */
  delta: number;
}

export interface RemoveZoneNodesWhatIf {
  zone: string;
  /** Move the zone's endpoints to the remaining zones' nodes instead of dropping them. */
  reschedule?: boolean;
}

export interface WhatIf {
  enableRouting: EnableRoutingWhatIf[];
  scaleReplicas: ScaleReplicasWhatIf[];
  removeZoneNodes: RemoveZoneNodesWhatIf[];
}

/** Bounds, so that a what-if cannot blow up memory or time. */
export const WHAT_IF_LIMITS = {
  /** Entries per list. */
  entries: 1000,
  /** Endpoints added by `scaleReplicas`, all entries together (per address family). */
  addedEndpoints: 10_000,
} as const;

type Json = Record<string, unknown>;

const WHAT_IF_FIELDS = ['enableRouting', 'scaleReplicas', 'removeZoneNodes'] as const;

/** Checks the shape of a what-if document; which Services and zones exist is checked against the snapshot. */
export function parseWhatIf(input: unknown): WhatIf {
  const parsed: WhatIf = { enableRouting: [], scaleReplicas: [], removeZoneNodes: [] };
  if (input === undefined || input === null) return parsed;
  const root = expectObject(input, 'whatIf', `an object with ${WHAT_IF_FIELDS.join(', ')}`);
  rejectUnknownFields(root, 'whatIf', WHAT_IF_FIELDS);
  parsed.enableRouting = listOf(root.enableRouting, 'whatIf.enableRouting', readEnableRouting);
  parsed.scaleReplicas = listOf(root.scaleReplicas, 'whatIf.scaleReplicas', readScaleReplicas);
  parsed.removeZoneNodes = listOf(root.removeZoneNodes, 'whatIf.removeZoneNodes', readRemoveZoneNodes);
  const added = parsed.scaleReplicas.reduce((sum, entry) => sum + Math.max(entry.delta, 0), 0);
  if (added > WHAT_IF_LIMITS.addedEndpoints) {
    throw new WhatIfError(
      'whatIf.scaleReplicas',
      `adds ${added} endpoints in total; at most ${WHAT_IF_LIMITS.addedEndpoints} can be added`,
    );
  }
  return parsed;
}

function listOf<T>(value: unknown, path: string, read: (entry: Json, path: string) => T): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new WhatIfError(path, `expected an array, got ${describe(value)}`);
  if (value.length > WHAT_IF_LIMITS.entries) {
    throw new WhatIfError(path, `has ${value.length} entries; at most ${WHAT_IF_LIMITS.entries} are allowed`);
  }
  return value.map((entry, index) => {
    const entryPath = `${path}[${index}]`;
    return read(expectObject(entry, entryPath, 'an object'), entryPath);
  });
}

const ENABLE_ROUTING_FIELDS = ['namespace', 'name', 'mode'] as const;
const SCALE_REPLICAS_FIELDS = ['namespace', 'name', 'zone', 'delta'] as const;
const REMOVE_ZONE_NODES_FIELDS = ['zone', 'reschedule'] as const;

function readEnableRouting(entry: Json, path: string): EnableRoutingWhatIf {
  rejectUnknownFields(entry, path, ENABLE_ROUTING_FIELDS);
  const mode = entry.mode;
  if (!(ROUTING_MODES as readonly unknown[]).includes(mode)) {
    throw new WhatIfError(`${path}.mode`, `expected one of ${ROUTING_MODES.join(', ')}, got ${describe(mode)}`);
  }
  return {
    namespace: expectName(entry.namespace, `${path}.namespace`),
    name: expectName(entry.name, `${path}.name`),
    mode: mode as RoutingMode,
  };
}

function readScaleReplicas(entry: Json, path: string): ScaleReplicasWhatIf {
  rejectUnknownFields(entry, path, SCALE_REPLICAS_FIELDS);
  const delta = entry.delta;
  if (typeof delta !== 'number' || !Number.isInteger(delta)) {
    throw new WhatIfError(`${path}.delta`, `expected a whole number, got ${describe(delta)}`);
  }
  const bound = WHAT_IF_LIMITS.addedEndpoints;
  if (Math.abs(delta) > bound) {
    throw new WhatIfError(`${path}.delta`, `expected a whole number between -${bound} and ${bound}, got ${delta}`);
  }
  return {
    namespace: expectName(entry.namespace, `${path}.namespace`),
    name: expectName(entry.name, `${path}.name`),
    zone: expectName(entry.zone, `${path}.zone`),
    delta,
  };
}

function readRemoveZoneNodes(entry: Json, path: string): RemoveZoneNodesWhatIf {
  rejectUnknownFields(entry, path, REMOVE_ZONE_NODES_FIELDS);
  const reschedule = entry.reschedule;
  if (reschedule !== undefined && reschedule !== null && typeof reschedule !== 'boolean') {
    throw new WhatIfError(`${path}.reschedule`, `expected true or false, got ${describe(reschedule)}`);
  }
  return { zone: expectName(entry.zone, `${path}.zone`), reschedule: reschedule === true };
}

function expectObject(value: unknown, path: string, expected: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new WhatIfError(path, `expected ${expected}, got ${describe(value)}`);
  }
  return value as Json;
}

function expectName(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new WhatIfError(path, `expected a non-empty string, got ${describe(value)}`);
  }
  return value;
}

function rejectUnknownFields(value: Json, path: string, known: readonly string[]): void {
  const unknown = Object.keys(value).find((field) => !known.includes(field));
  if (unknown !== undefined) {
    throw new WhatIfError(`${path}.${unknown}`, `unknown field (expected ${known.join(', ')})`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function checkServicesExist(snapshot: Snapshot, whatIf: WhatIf): void {
  const keys = new Set(snapshot.services.map(serviceKey));
  const check = (list: readonly { namespace: string; name: string }[], path: string) =>
    list.forEach((entry, index) => {
      const key = `${entry.namespace}/${entry.name}`;
      if (!keys.has(key)) throw new WhatIfError(`${path}[${index}]`, `no Service ${key} in the snapshot`);
    });
  check(whatIf.enableRouting, 'whatIf.enableRouting');
  check(whatIf.scaleReplicas, 'whatIf.scaleReplicas');
}
