import { percent } from './format';
import type { ServiceDetail } from './types';

/** The controller's overload threshold: hints are refused when a zone would get 20 % more than its share. */
const OVERLOAD_THRESHOLD = 0.2;

/**
 * A Service's state in plain words with the numbers behind it, e.g. "4 ready endpoints over 3 zones:
 * each zone needs at least 2, 6 > 4".
 */
export function explainState(current: NonNullable<ServiceDetail['current']>): string[] {
  const zones = current.zones;
  const endpoints = current.readyEndpoints;
  const minimums = zones.map((zone) => zone.minimum ?? 0);
  const needed = minimums.reduce((sum, value) => sum + value, 0);
  const overload = Math.max(0, ...zones.map((zone) => zone.expectedOverload));
  const spread = `${endpoints} ready endpoint${endpoints === 1 ? '' : 's'} over ${zones.length} zone${zones.length === 1 ? '' : 's'}`;
  const lines: string[] = [];
  switch (current.hints.state) {
    case 'populated':
      lines.push(
        `Routed in-zone: the controller hints every endpoint to a zone. ${spread}; allocated ` +
          zones.map((zone) => `${zone.zone} ${zone.allocated ?? 0}`).join(', ') +
          `; expected overload at most ${percent(overload)} (the limit is ${percent(OVERLOAD_THRESHOLD)}).`,
      );
      break;
    case 'removed':
      lines.push(`Hints refused: ${current.hints.reason ?? 'the controller removed them'}.`);
      if (needed > endpoints) {
        lines.push(
          `${spread}: each zone needs at least ${[...new Set(minimums)].join(' or ')} (${zones.map((z) => `${z.zone} ${z.minimum ?? 0}`).join(', ')}), ${needed} > ${endpoints}.`,
        );
      } else if (overload > OVERLOAD_THRESHOLD) {
        lines.push(
          `${spread}: the busiest zone would get ${percent(overload)} more than its share, over the ${percent(OVERLOAD_THRESHOLD)} limit.`,
        );
      } else {
        lines.push(`${spread}.`);
      }
      break;
    default:
      lines.push(`No topology routing (routing: ${current.routing}): requests go to any endpoint in any zone.`);
      if (current.ifAutoEnabled) {
        lines.push(
          current.ifAutoEnabled.wouldPopulate
            ? `Enabling it would populate hints: cross-zone share from ${percent(current.crossZone.withHints)} to ${percent(current.ifAutoEnabled.crossZoneWithHints)}.`
            : `Enabling it would not help now: ${current.ifAutoEnabled.reason ?? 'hints would be refused'}.`,
        );
      }
  }
  return lines;
}
