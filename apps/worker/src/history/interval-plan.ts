import type { ServiceState } from './service-state.js';

/** The part of a stored interval the planner needs: which Service, which state, until when. */
export interface IntervalRef {
  id: bigint;
  key: string;
  stateHash: bigint;
  validTo: Date | null;
}

export interface PlanInput {
  /** Captured-at of the snapshot being recorded. */
  at: Date;
  /** Captured-at of the earliest already-recorded snapshot after `at`; null when `at` is the newest. */
  next: Date | null;
  /** Every Service in the snapshot, by serviceKey. */
  observed: ReadonlyMap<string, ServiceState>;
  /** Intervals covering the latest recorded snapshot before `at` (by Service). */
  atPrevious: ReadonlyMap<string, IntervalRef>;
  /** Intervals covering `next` (by Service). */
  atNext: ReadonlyMap<string, IntervalRef>;
}

export interface NewInterval {
  key: string;
  validFrom: Date;
  validTo: Date | null;
  /** The state it records: a Service observed now, or a copy of an existing interval (see `copyOf`). */
  state: ServiceState | null;
  /** When set, the new interval repeats this stored interval's state (the tail of a split). */
  copyOf: bigint | null;
}

export interface IntervalPlan {
  /** Existing intervals that now end at `at`. */
  endAtSnapshot: bigint[];
  /** Existing intervals that now start at `at`: a later snapshot's identical state, extended back. */
  startAtSnapshot: bigint[];
  inserts: NewInterval[];
}

/**
 * Where a snapshot's Service states go in the history, so that the history ends up exactly as if all
 * snapshots had been recorded one by one in captured-at order, whatever order they really arrive in.
 *
 * Only the neighbours matter: the recorded snapshots just before (`previous`) and just after (`next`)
 * this one. Per Service, with p, h, n its states at previous, now and next ("absent" being a state too):
 * intervals are maximal runs of equal states, so before this snapshot p and n share an interval exactly
 * when p = n ≠ absent. Inserting h between them:
 *  - h ≠ p and p present: p's interval must end at `at`; if it also held n, its tail from `next` on is
 *    kept as a copy (the interval is split around `at`).
 *  - h ≠ p and h present: if h = n, n's interval just starts earlier (at `at`); otherwise h gets a new
 *    interval from `at` to `next` (open-ended when `at` is the newest snapshot).
 * When `at` is the newest snapshot this reduces to the ordinary case: close what changed or vanished,
 * open what is new or changed, touch nothing else.
 */
export function planIntervals(input: PlanInput): IntervalPlan {
  const plan: IntervalPlan = { endAtSnapshot: [], startAtSnapshot: [], inserts: [] };
  const keys = new Set([...input.observed.keys(), ...input.atPrevious.keys()]);
  for (const key of keys) {
    const now = input.observed.get(key) ?? null;
    const previous = input.atPrevious.get(key) ?? null;
    const next = input.atNext.get(key) ?? null;
    if (now && previous && now.stateHash === previous.stateHash) continue;

    if (previous) {
      plan.endAtSnapshot.push(previous.id);
      if (next?.id === previous.id) {
        plan.inserts.push({ key, validFrom: input.next!, validTo: previous.validTo, state: null, copyOf: previous.id });
      }
    }
    if (now) {
      if (next && next.id !== previous?.id && next.stateHash === now.stateHash) {
        plan.startAtSnapshot.push(next.id);
      } else {
        plan.inserts.push({ key, validFrom: input.at, validTo: input.next, state: now, copyOf: null });
      }
    }
  }
  return plan;
}
