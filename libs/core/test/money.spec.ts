import { describe, expect, it } from 'vitest';
import { rankingUnits } from '../src/money.js';

describe('rankingUnits', () => {
  it('counts millionths, halves to even as Postgres rounds a float', () => {
    const values = [0, 5e-7, 1.5e-6, 2.5e-6, 3.5e-6, -2.5e-6, -3.5e-6, 4.5e-6, 1.0000025, 42];
    expect(values.map(rankingUnits)).toEqual([0, 0, 2, 2, 4, -2, -4, 4, 1000002, 42000000]);
  });

  it('ties sums of the same figures added in another order', () => {
    const figures = [0.1, 0.2, 0.3, 1e-3, 7.77];
    const forward = figures.reduce((sum, value) => sum + value, 0);
    const backward = [...figures].reverse().reduce((sum, value) => sum + value, 0);
    expect(forward).not.toBe(backward);
    expect(rankingUnits(forward)).toBe(rankingUnits(backward));
  });
});
