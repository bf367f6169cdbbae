import type { Endpoint, EndpointSlice } from './k8s-objects.js';

/**
 * Drift: where the hints the real controller wrote (observed, in the snapshot) differ from what the
 * core computes for the same objects. Drift means the cluster is mid-transition, the controller runs an
 * older version or other settings, or someone else writes the slices; each is worth showing a user.
 */

export interface EndpointHintDrift {
  slice: string;
  address: string;
  observed: HintNames;
  computed: HintNames;
}

export interface HintNames {
  forZones: string[];
  forNodes: string[];
}

export interface HintDrift {
  /** Endpoints whose observed hints differ from the computed ones. */
  endpoints: number;
  /** Whether the observed slices carry any hint at all. */
  observedHints: boolean;
  /** The differing endpoints, capped at {@link DRIFT_DETAIL_LIMIT} so one broken Service cannot flood a report. */
  details: EndpointHintDrift[];
}

export const DRIFT_DETAIL_LIMIT = 20;

/** `observed` and `computed` are the same slices in the same order, before and after the controller. */
export function compareHints(observed: readonly EndpointSlice[], computed: readonly EndpointSlice[]): HintDrift {
  const drift: HintDrift = { endpoints: 0, observedHints: false, details: [] };
  for (let s = 0; s < observed.length; s++) {
    const before = observed[s].endpoints;
    const after = computed[s].endpoints;
    if (before === after) {
      drift.observedHints ||= before.some((endpoint) => endpoint.hints !== undefined && endpoint.hints !== null);
      continue;
    }
    for (let e = 0; e < before.length; e++) {
      if (hasHints(before[e])) drift.observedHints = true;
      if (sameHints(before[e], after[e])) continue;
      drift.endpoints++;
      if (drift.details.length < DRIFT_DETAIL_LIMIT) {
        drift.details.push({
          slice: observed[s].metadata.name,
          address: before[e].addresses[0] ?? '',
          observed: hintNames(before[e]),
          computed: hintNames(after[e]),
        });
      }
    }
  }
  return drift;
}

function hasHints(endpoint: Endpoint): boolean {
  return endpoint.hints !== undefined && endpoint.hints !== null;
}

function sameHints(a: Endpoint, b: Endpoint): boolean {
  if (a === b || a.hints === b.hints) return true;
  return sameNames(a.hints?.forZones, b.hints?.forZones) && sameNames(a.hints?.forNodes, b.hints?.forNodes);
}

function sameNames(a: readonly { name: string }[] | undefined, b: readonly { name: string }[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((entry, i) => entry.name === right[i].name);
}

function hintNames(endpoint: Endpoint): HintNames {
  return {
    forZones: (endpoint.hints?.forZones ?? []).map((zone) => zone.name),
    forNodes: (endpoint.hints?.forNodes ?? []).map((node) => node.name),
  };
}
