/** Milliseconds in an hour and in a (UTC, 24-hour) day: the one home of these constants. */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
