import { describe, expect, it } from 'vitest';
import { durationProblem, formatDuration, parseDuration } from '../src/durations.js';

describe('parseDuration', () => {
  it.each([
    ['1500ms', 1500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1.5h', 5_400_000],
    ['30d', 30 * 86_400_000],
    ['1w', 7 * 86_400_000],
    ['2 days', 2 * 86_400_000],
    [' 10s ', 10_000],
    ['0', 0],
    ['45', 45_000],
    ['2.5', 2500],
  ])('reads %j as %i ms (a bare number is seconds)', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });

  it.each(['', '   ', 'soon', '-5s', '1x', '5 parsecs', 'Infinity', '1e3'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('durationProblem', () => {
  it('names the setting and the text it could not read, with examples', () => {
    expect(durationProblem('--settle', 'soon')).toBe(
      '--settle: "soon" is not a duration (e.g. 500ms, 30s, 5m, 1h or 30d)',
    );
  });

  it('names the bound a duration crosses', () => {
    expect(durationProblem('--push-timeout', '50ms', { minMs: 100 })).toBe(
      '--push-timeout: must be at least 100ms, got "50ms"',
    );
    expect(durationProblem('window', '31d', { maxMs: 30 * 86_400_000 })).toBe('window: must be at most 30d, got "31d"');
    expect(durationProblem('interval', '1500ms', { wholeSeconds: true })).toBe(
      'interval: must be whole seconds, got "1500ms"',
    );
  });

  it('has nothing to say about a good duration inside its bounds', () => {
    expect(durationProblem('window', '1h', { minMs: 1000, maxMs: 86_400_000, wholeSeconds: true })).toBeNull();
  });
});

describe('formatDuration', () => {
  it.each([
    [86_400_000, '1d'],
    [90 * 60_000, '90m'],
    [3_600_000, '1h'],
    [90_000, '90s'],
    [1500, '1500ms'],
    [0, '0s'],
  ])('writes %i ms as %j, which reads back the same', (milliseconds, text) => {
    expect(formatDuration(milliseconds)).toBe(text);
    expect(parseDuration(text)).toBe(milliseconds);
  });
});
