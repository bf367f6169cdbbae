/**
 * Why a Service's cross-zone traffic is not saved by topology routing, in the four causes a platform
 * team acts on (plus `other` for the controller's rare remaining failures):
 *
 * | reason | the Service | what fixes it |
 * | --- | --- | --- |
 * | `not-enabled` | has no topology routing, and enabling it would populate hints | set `service.kubernetes.io/topology-mode: Auto` |
 * | `too-few-endpoints` | asks for routing (or would), but has fewer ready endpoints than zones need | add replicas |
 * | `overload-threshold` | asks for routing (or would), but no allocation keeps every endpoint within the 20 % overload threshold | more replicas, or replicas spread like the zones' CPU |
 * | `node-info` | asks for routing (or would), but nodes lack a zone label or allocatable CPU, or are ready in one zone only | fix the nodes |
 * | `other` | another controller failure (endpoints without a zone, no zone allocated) | see the hint reason |
 */
import {
  INSUFFICIENT_NODE_INFO_MESSAGE,
  INSUFFICIENT_NUMBER_OF_ENDPOINTS_MESSAGE,
  MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD_MESSAGE,
  NODES_READY_IN_ONE_ZONE_ONLY_MESSAGE,
} from '@zw/core';

export const MISSED_REASONS = ['not-enabled', 'too-few-endpoints', 'overload-threshold', 'node-info', 'other'] as const;
export type MissedReason = (typeof MISSED_REASONS)[number];

export const MISSED_REASON_TITLES: Readonly<Record<MissedReason, string>> = {
  'not-enabled': 'Not enabled',
  'too-few-endpoints': 'Too few endpoints',
  'overload-threshold': 'Overload threshold',
  'node-info': 'Node information',
  other: 'Other controller failure',
};

/**
 * How the missed figure of a reason is measured.
 *
 * Decision: only `not-enabled` has an exact counterfactual in the history (the stored preview of
 * `topology-mode: Auto`). For a Service the controller refuses, history holds no "hints as they would
 * be had the cause been fixed", so its missed figure is the cross-zone traffic it still generates: the
 * most that removing the cause could save (`at-stake`). The report says which basis each figure has.
 */
export type MissedBasis = 'enable-preview' | 'at-stake';

export function missedBasisOf(reason: MissedReason): MissedBasis {
  return reason === 'not-enabled' ? 'enable-preview' : 'at-stake';
}

/** The reason a controller failure message (the hint reason, or the preview's) stands for. */
export function missedReasonOf(message: string | null): Exclude<MissedReason, 'not-enabled'> {
  const text = message ?? '';
  if (text.startsWith(INSUFFICIENT_NUMBER_OF_ENDPOINTS_MESSAGE)) return 'too-few-endpoints';
  if (text.startsWith(MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD_MESSAGE)) return 'overload-threshold';
  if (text.startsWith(INSUFFICIENT_NODE_INFO_MESSAGE) || text.startsWith(NODES_READY_IN_ONE_ZONE_ONLY_MESSAGE)) {
    return 'node-info';
  }
  return 'other';
}
