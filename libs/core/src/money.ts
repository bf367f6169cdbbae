/**
 * Money as answers show it: USD rounded to cents. Figures are computed exactly (sums and differences of
 * unrounded values) and rounded only when written out, so totals never drift from their parts by more
 * than the rounding of the total itself.
 */

/** USD to the cent, half away from zero; never `-0`. */
export function roundCents(usd: number): number {
  if (!Number.isFinite(usd)) return usd;
  const cents = Math.sign(usd) * Math.round(Math.abs(usd) * 100 + Number.EPSILON);
  return cents / 100 || 0;
}

/** Every money field of every answer is named `cost` (USD); prices per GB are not money amounts. */
const MONEY_KEY = 'cost';

/** A `JSON.stringify` replacer that writes every `cost` number rounded to cents. */
export function moneyReplacer(key: string, value: unknown): unknown {
  return key === MONEY_KEY && typeof value === 'number' ? roundCents(value) : value;
}

/**
 * A figure as rankings compare it: in millionths (of a dollar, of a GB), rounded half to even as
 * Postgres rounds a float. Decision: the same figures summed in another order differ in their last
 * bits; compared in millionths, Services whose savings are equal are ranked by name wherever they are
 * ranked (the query API's savings in SQL, a report's top opportunities here).
 */
export function rankingUnits(value: number): number {
  const scaled = value * 1_000_000;
  const nearest = Math.round(scaled);
  return nearest - scaled === 0.5 && nearest % 2 !== 0 ? nearest - 1 : nearest;
}
