/**
 * What-ifs on a snapshot: the cluster as it would be if a Service changed its routing mode, a zone
 * gained or lost replicas of a Service, or a zone lost its nodes. The answer is a new snapshot to hand to
 * `analyzeSnapshot`; the input snapshot is never changed (objects that a what-if does not touch are
 * shared with it, read-only, as everywhere in the core).
 *
 * Order: the zones' nodes are removed first, replicas are then added or removed on the cluster that is
 * left, and routing modes are set last (they touch only Services).
 *
 * Reading on: the what-if document and its checks (what-if-document.ts), the snapshot being changed,
 * copy on write (what-if-snapshot.ts), then each what-if: what-if-remove-zone-nodes.ts,
 * what-if-scale-replicas.ts and what-if-enable-routing.ts.
 */
import type { Snapshot } from './snapshot-model.js';
import { checkServicesExist, parseWhatIf } from './what-if-document.js';
import { withRoutingMode } from './what-if-enable-routing.js';
import { removeZoneNodes } from './what-if-remove-zone-nodes.js';
import { scaleReplicas } from './what-if-scale-replicas.js';
import { WorkingSnapshot } from './what-if-snapshot.js';

/** Applies the what-ifs (`undefined`/`null`: none) to a copy of the snapshot. */
export function applyWhatIf(snapshot: Snapshot, whatIf: unknown): Snapshot {
  const parsed = parseWhatIf(whatIf);
  checkServicesExist(snapshot, parsed);
  const state = new WorkingSnapshot(snapshot);
  removeZoneNodes(state, parsed.removeZoneNodes);
  parsed.scaleReplicas.forEach((entry, index) => scaleReplicas(state, entry, `whatIf.scaleReplicas[${index}]`));
  for (const entry of parsed.enableRouting)
    state.replaceService(entry, withRoutingMode(state.service(entry), entry.mode));
  return state.result();
}
