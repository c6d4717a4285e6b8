/**
 * Wall-clock time in IANA time zones, on Node's Intl (ICU) data: what a contact's "09:00" or
 * "quiet hours 21:00–08:00" means as an instant. Pure functions of an instant and a zone; the
 * activities call them with their clock, never the workflow sandbox.
 */

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `HH:MM`, 24 h. */
export const CLOCK_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** 0 when absent: a campaign's local schedule may name seconds, a clock time (`HH:MM`) does not. */
  second?: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Is `name` a time zone Intl knows (an IANA name such as `Europe/Paris`, or `UTC`)? */
export function isTimeZone(name: unknown): name is string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 64) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `timeZone` at `instant` (ms since the epoch), with its weekday. */
export function localTime(instant: number, timeZone: string): LocalDateTime & { second: number; weekday: Weekday } {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const { year, month, day, hour, minute, second } = parts;
  return { year, month, day, hour, minute, second, weekday: WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()] };
}

/** The zone's offset from UTC at `instant`, in ms (Tokyo: +9 h). */
function offsetAt(instant: number, timeZone: string): number {
  const l = localTime(instant, timeZone);
  return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second) - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant a wall-clock time happens in `timeZone`. A time skipped by a daylight-saving jump
 * (02:30 on a spring-forward night) is taken as the same distance past the jump; a repeated one
 * (the autumn hour) as its first occurrence.
 */
export function zonedInstant(t: LocalDateTime, timeZone: string): number {
  const wall = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second ?? 0);
  // Two rounds settle the offset of any zone: the guess's offset, then the offset at the answer.
  const first = wall - offsetAt(wall, timeZone);
  const second = wall - offsetAt(first, timeZone);
  if (second === first) return first;
  // Between two offsets: prefer the earlier instant whose wall clock matches, else the later guess.
  const earlier = Math.min(first, second);
  return localMatches(earlier, t, timeZone) ? earlier : Math.max(first, second);
}

function localMatches(instant: number, t: LocalDateTime, timeZone: string): boolean {
  const l = localTime(instant, timeZone);
  return l.year === t.year && l.month === t.month && l.day === t.day && l.hour === t.hour && l.minute === t.minute && l.second === (t.second ?? 0);
}

export const parseClock = (hhmm: string): { hour: number; minute: number } => {
  const m = CLOCK_TIME.exec(hhmm);
  if (!m) throw new Error(`not a HH:MM time: ${hhmm}`);
  return { hour: Number(m[1]), minute: Number(m[2]) };
};

/** The calendar day `days` after the given one (proleptic, zone-free). */
function addDays(d: { year: number; month: number; day: number }, days: number) {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate(), weekday: WEEKDAYS[t.getUTCDay()] };
}

/**
 * The first instant strictly after `now` at which the wall clock in `timeZone` reads `hhmm`, on
 * one of `days` (every day when absent or empty).
 */
export function nextLocalTime(now: number, timeZone: string, hhmm: string, days?: readonly Weekday[]): number {
  const { hour, minute } = parseClock(hhmm);
  const today = localTime(now, timeZone);
  // Eight days reach every weekday once, and the first candidate may already have passed today.
  for (let i = 0; i <= 8; i++) {
    const d = addDays(today, i);
    if (days && days.length > 0 && !days.includes(d.weekday)) continue;
    const at = zonedInstant({ ...d, hour, minute }, timeZone);
    if (at > now) return at;
  }
  throw new Error('no such local time within eight days');
}

export interface QuietHours {
  start: string;
  end: string;
}

/**
 * When `now` falls in the quiet hours in `timeZone`, the instant they end; else null. A window whose
 * start is after its end (`21:00`–`08:00`) spans midnight; equal start and end is no window.
 */
export function quietHoursEnd(now: number, timeZone: string, quiet: QuietHours): number | null {
  const l = localTime(now, timeZone);
  const minuteOfDay = l.hour * 60 + l.minute;
  const s = parseClock(quiet.start);
  const e = parseClock(quiet.end);
  const start = s.hour * 60 + s.minute;
  const end = e.hour * 60 + e.minute;
  if (start === end) return null;
  const inside = start < end ? minuteOfDay >= start && minuteOfDay < end : minuteOfDay >= start || minuteOfDay < end;
  return inside ? nextLocalTime(now, timeZone, quiet.end) : null;
}

/** `2026-12-01T09:00:00` (no offset): a wall-clock date-time, as a campaign's local schedule gives it. */
export const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

export function parseLocalDateTime(s: string): LocalDateTime | null {
  const m = LOCAL_DATE_TIME.exec(s);
  if (!m) return null;
  const [year, month, day, hour, minute] = m.slice(1, 6).map(Number);
  // The seconds count: `17:04:07` is not `17:04` (a recipient must not get it up to a minute early).
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const t = new Date(Date.UTC(year, month - 1, day, hour, minute));
  if (t.getUTCFullYear() !== year || t.getUTCMonth() + 1 !== month || t.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  return { year, month, day, hour, minute, second };
}
