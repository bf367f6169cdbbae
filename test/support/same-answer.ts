import { expect } from 'vitest';

/**
 * Both answers, field by field: keys, counts, flags and order exactly; numbers to 1e-9 of their size
 * (far below a cent: sums of the same figures taken in another order may differ in their last bits).
 */
export function expectSameAnswer(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    expect(Math.abs(actual - expected), `${where}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
      1e-9 * Math.max(1, Math.abs(expected)),
    );
  } else if (expected !== null && typeof expected === 'object' && !(expected instanceof Date)) {
    expect(actual !== null && typeof actual === 'object', where).toBe(true);
    const keys = Object.keys(expected);
    expect(Object.keys(actual as object), where).toEqual(keys);
    for (const key of keys) {
      expectSameAnswer(
        (actual as Record<string, unknown>)[key],
        (expected as Record<string, unknown>)[key],
        `${where}.${key}`,
      );
    }
  } else {
    expect(actual, where).toEqual(expected);
  }
}
