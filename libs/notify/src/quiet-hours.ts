/**
 * Quiet hours: a daily window ("22:00" to "07:00", in an IANA time zone) during which a rule's messages
 * wait. Pure.
 */
const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function isClockTime(text: string): boolean {
  return HHMM.test(text);
}

function minutesOf(text: string): number {
  const match = HHMM.exec(text);
  if (!match) throw new Error(`not HH:MM: ${text}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

/** The wall-clock minute of the day at `at` in `timeZone`. */
function localMinute(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .formatToParts(at)
    .reduce<Record<string, string>>((all, part) => ({ ...all, [part.type]: part.value }), {});
  return Number(parts.hour) * 60 + Number(parts.minute);
}

/**
 * When the quiet hours around `now` end, or null when `now` is outside them (or there are none). A window
 * whose start is after its end spans midnight; equal start and end mean no quiet hours. Decision: the end
 * is counted in wall-clock minutes from now, so on a daylight-saving change night the messages wait up to
 * an hour more or less than the clock says.
 */
export function quietHoursEnd(now: Date, start: string | null, end: string | null, timeZone: string): Date | null {
  if (!start || !end) return null;
  const from = minutesOf(start);
  const to = minutesOf(end);
  if (from === to) return null;
  const minute = localMinute(now, timeZone);
  const quiet = from < to ? minute >= from && minute < to : minute >= from || minute < to;
  if (!quiet) return null;
  const wait = (to - minute + 1440) % 1440;
  const startOfMinute = Math.floor(now.getTime() / 60_000) * 60_000;
  return new Date(startOfMinute + wait * 60_000);
}

/** Whether `timeZone` is one this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}
