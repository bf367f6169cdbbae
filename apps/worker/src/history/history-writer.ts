import {
  addClosedIntervalsToSavingsDays,
  closeAndOpenIntervals,
  copyIntervalTails,
  intervalsCovering,
  placeSnapshot,
  recordRepeatedSummary,
  recordSummary,
  refreshSavingsDays,
  type SavingsDaySpan,
  type SnapshotSummaryRecord,
  type SqlClient,
  startIntervalsAt,
  type StoredInterval,
} from '@zw/db';
import { planIntervals } from './interval-plan.js';
import { canonicalZones, type ServiceState, serviceKey } from './service-state.js';

type Tx = SqlClient;

export interface SnapshotRecord extends SnapshotSummaryRecord {
  services: ServiceState[];
}

export interface RecordOutcome {
  intervalsOpened: number;
  intervalsClosed: number;
  /** False when the snapshot arrived after a later one and was inserted into the past. */
  inOrder: boolean;
  /** True when the snapshot repeated its predecessor's input and its states were reused, not recomputed. */
  reusedPrevious: boolean;
}

/**
 * Records one analysed snapshot in the history, exactly once: its aggregates row, the interval changes
 * it implies, and its status. Returns null, writing nothing, when the snapshot is no longer waiting
 * (another run recorded it, or it was marked failed). The caller holds the cluster's lock (one writer
 * per cluster) inside the transaction this runs in; the statements are the history repository's
 * (libs/db history-writes.ts), each run at most once.
 *
 * A Service equal to its previous state needs no change whatever comes after it, which is why placing
 * the snapshot drops those (Postgres compares the state hashes), for late snapshots too.
 */
export async function recordSnapshot(tx: Tx, record: SnapshotRecord): Promise<RecordOutcome | null> {
  const { clusterId, capturedAt: at } = record;
  const byKey = new Map(record.services.map((state) => [serviceKey(state.namespace, state.name), state]));
  const placed = await placeSnapshot(tx, {
    snapshotId: record.snapshotId,
    clusterId,
    keys: [...byKey.keys()],
    stateHashes: [...byKey.values()].map((state) => state.stateHash),
  });
  if (!placed) return null;
  const { previous, next, atPrevious } = placed;
  const observed = new Map(placed.changed.map((key) => [key, byKey.get(key)!]));
  const atNext = next
    ? await intervalsCovering(tx, clusterId, next, [...observed.keys(), ...atPrevious.keys()])
    : new Map<string, StoredInterval>();
  const plan = planIntervals({ at, next, observed, atPrevious, atNext });
  const known = new Map([...atPrevious.values(), ...atNext.values()].map((interval) => [interval.id, interval]));
  const stored = (ids: bigint[]) => ids.map((id) => known.get(id)!);

  const copies = plan.inserts.flatMap((insert) => (insert.copyOf === null ? [] : [insert.copyOf]));
  // Before closeAndOpenIntervals changes valid_to on the very rows copied (a copy is a tail from `next` on).
  if (next) await copyIntervalTails(tx, next, stored(copies));
  const changed: SavingsDaySpan[] = [];
  const closed: bigint[] = [];
  const fresh = plan.inserts
    .filter((insert) => insert.state !== null)
    .map((insert) => ({ ...insert.state!, zones: canonicalZones(insert.state!.zones) }));
  const { ended, inserted } = await closeAndOpenIntervals(tx, clusterId, at, next, stored(plan.endAtSnapshot), fresh);
  // An open interval closed now: its days are added to the savings roll-up. One that ended later (a
  // snapshot inserted into the past) loses its days after `at`, which its copy from `next` on takes back:
  // every day of it is summed again, not only those whose pieces changed, as a day row's head keeps the
  // bounds of the interval holding at its first instant.
  const oldEnds = new Map([...atPrevious.values()].map((ref) => [ref.id, ref.validTo]));
  for (const row of ended) {
    const oldEnd = oldEnds.get(row.id) ?? null;
    if (oldEnd) changed.push({ serviceId: row.serviceId, from: row.validFrom, to: oldEnd });
    else closed.push(row.id);
  }
  const extended = await startIntervalsAt(tx, at, stored(plan.startAtSnapshot));
  changed.push(...extended.map((row) => ({ serviceId: row.serviceId, from: at, to: row.validTo ?? next! })));
  if (next) changed.push(...inserted.map((serviceId) => ({ serviceId, from: at, to: next })));
  await addClosedIntervalsToSavingsDays(tx, clusterId, closed);
  await refreshSavingsDays(tx, clusterId, changed);
  const nothingChanged = plan.endAtSnapshot.length === 0 && plan.inserts.length === 0;
  await recordSummary(tx, record, nothingChanged && next === null ? previous : null);
  return {
    intervalsOpened: plan.inserts.length,
    intervalsClosed: plan.endAtSnapshot.length,
    inOrder: next === null,
    reusedPrevious: false,
  };
}

/**
 * The fast path for a snapshot whose input repeats that of the latest recorded snapshot before it (see
 * recordRepeatedSummary): nothing changes in the history and its summary repeats the previous one. One
 * statement, under the cluster's lock.
 *
 * `not-a-repeat` when that does not hold under the lock (the caller then analyses the snapshot);
 * `not-waiting` when it is no longer waiting to be recorded.
 */
export async function recordRepeat(
  tx: Tx,
  snapshotId: string,
  analyzer: string,
): Promise<RecordOutcome | 'not-a-repeat' | 'not-waiting'> {
  const outcome = await recordRepeatedSummary(tx, snapshotId, analyzer);
  if (outcome !== 'recorded') return outcome;
  return { intervalsOpened: 0, intervalsClosed: 0, inOrder: true, reusedPrevious: true };
}
