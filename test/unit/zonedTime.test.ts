import { isTimeZone, localTime, nextLocalTime, parseLocalDateTime, quietHoursEnd, zonedInstant } from '../../lib/zonedTime';
import { contactTimeZone, heldUntil, recipientDue, DEFAULT_POLICY } from '../../lib/sendingPolicy';

const at = (iso: string) => Date.parse(iso);
const isoOf = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('zoned time', () => {
  it('knows IANA zones and refuses others', () => {
    expect(isTimeZone('Asia/Tokyo')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone(3)).toBe(false);
  });

  it('reads the wall clock of a zone', () => {
    expect(localTime(at('2026-12-01T00:30:00Z'), 'Asia/Tokyo')).toMatchObject({ year: 2026, month: 12, day: 1, hour: 9, minute: 30, weekday: 'tue' });
    expect(localTime(at('2026-12-01T00:30:00Z'), 'America/New_York')).toMatchObject({ day: 30, month: 11, hour: 19, weekday: 'mon' });
  });

  it('turns a local date-time into its instant, across daylight saving', () => {
    expect(isoOf(zonedInstant({ year: 2026, month: 12, day: 1, hour: 9, minute: 0 }, 'Asia/Tokyo'))).toBe('2026-12-01T00:00:00.000Z');
    expect(isoOf(zonedInstant({ year: 2026, month: 12, day: 1, hour: 9, minute: 0 }, 'America/New_York'))).toBe('2026-12-01T14:00:00.000Z');
    expect(isoOf(zonedInstant({ year: 2026, month: 7, day: 1, hour: 9, minute: 0 }, 'America/New_York'))).toBe('2026-07-01T13:00:00.000Z');
    // 02:30 does not exist on 2026-03-08 in New York: the clock jumps from 02:00 to 03:00.
    expect(isoOf(zonedInstant({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, 'America/New_York'))).toBe('2026-03-08T07:30:00.000Z');
    // 01:30 happens twice on 2026-11-01: the first (EDT) is taken.
    expect(isoOf(zonedInstant({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, 'America/New_York'))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('finds the next local HH:MM, on the given weekdays only', () => {
    const now = at('2026-12-01T10:00:00Z'); // Tue 19:00 in Tokyo, Tue 05:00 in New York
    expect(isoOf(nextLocalTime(now, 'Asia/Tokyo', '09:00'))).toBe('2026-12-02T00:00:00.000Z');
    expect(isoOf(nextLocalTime(now, 'America/New_York', '09:00'))).toBe('2026-12-01T14:00:00.000Z');
    expect(isoOf(nextLocalTime(now, 'America/New_York', '09:00', ['mon']))).toBe('2026-12-07T14:00:00.000Z');
    // Exactly at the time: the next one, a day later.
    expect(isoOf(nextLocalTime(at('2026-12-01T14:00:00Z'), 'America/New_York', '09:00'))).toBe('2026-12-02T14:00:00.000Z');
  });

  it('quiet hours: inside a window spanning midnight ends at its end, outside is null', () => {
    const quiet = { start: '21:00', end: '08:00' };
    expect(isoOf(quietHoursEnd(at('2026-12-01T13:00:00Z'), 'Asia/Tokyo', quiet))).toBe('2026-12-01T23:00:00.000Z'); // 22:00 Tokyo
    expect(isoOf(quietHoursEnd(at('2026-12-01T20:00:00Z'), 'Asia/Tokyo', quiet))).toBe('2026-12-01T23:00:00.000Z'); // 05:00 Tokyo
    expect(quietHoursEnd(at('2026-12-01T03:00:00Z'), 'Asia/Tokyo', quiet)).toBeNull(); // 12:00 Tokyo
    // The start minute is inside the window, the end minute outside.
    expect(isoOf(quietHoursEnd(at('2026-12-01T12:00:00Z'), 'Asia/Tokyo', quiet))).toBe('2026-12-01T23:00:00.000Z'); // 21:00 Tokyo
    expect(quietHoursEnd(at('2026-12-01T23:00:00Z'), 'Asia/Tokyo', quiet)).toBeNull(); // 08:00 Tokyo
    expect(quietHoursEnd(at('2026-12-01T10:00:00Z'), 'UTC', { start: '09:00', end: '11:00' })).toBe(at('2026-12-01T11:00:00Z'));
    expect(quietHoursEnd(at('2026-12-01T10:00:00Z'), 'UTC', { start: '10:00', end: '10:00' })).toBeNull();
  });

  it('parses local date-times with no offset only', () => {
    expect(parseLocalDateTime('2026-12-01T09:00:00')).toEqual({ year: 2026, month: 12, day: 1, hour: 9, minute: 0, second: 0 });
    expect(parseLocalDateTime('2026-12-01T09:00')).toEqual({ year: 2026, month: 12, day: 1, hour: 9, minute: 0, second: 0 });
    expect(parseLocalDateTime('2026-12-01T09:00:00Z')).toBeNull();
    expect(parseLocalDateTime('2026-02-30T09:00:00')).toBeNull();
    expect(parseLocalDateTime('2026-12-01T09:00:60')).toBeNull();
  });

  it("honours a local schedule's seconds: 17:04:07 is not sent at 17:04:00", () => {
    const local = parseLocalDateTime('2026-11-26T17:04:07')!;
    expect(local.second).toBe(7);
    expect(isoOf(zonedInstant(local, 'Asia/Tokyo'))).toBe('2026-11-26T08:04:07.000Z');
    expect(isoOf(zonedInstant(local, 'America/New_York'))).toBe('2026-11-26T22:04:07.000Z');
    // Seven seconds before it the recipient is still deferred, to the exact second.
    expect(recipientDue(at('2026-11-26T08:04:00Z'), DEFAULT_POLICY, 'MARKETING', 'Asia/Tokyo', local)).toBe(at('2026-11-26T08:04:07Z'));
    // Across a daylight-saving change the seconds stay too (New York falls back on 2026-11-01 at 02:00).
    expect(isoOf(zonedInstant(parseLocalDateTime('2026-11-01T01:30:45')!, 'America/New_York'))).toBe('2026-11-01T05:30:45.000Z');
  });
});

describe('sending policy', () => {
  it("a contact's zone is data.timezone when valid, else the project's", () => {
    expect(contactTimeZone({ timezone: 'Asia/Tokyo' }, 'Europe/Paris')).toBe('Asia/Tokyo');
    expect(contactTimeZone({ timezone: 'Nowhere/Land' }, 'Europe/Paris')).toBe('Europe/Paris');
    expect(contactTimeZone({}, 'Europe/Paris')).toBe('Europe/Paris');
  });

  it('quiet hours hold MARKETING mail only', () => {
    const policy = { ...DEFAULT_POLICY, quietHours: { start: '00:00', end: '23:59' } };
    const now = at('2026-12-01T10:00:00Z');
    expect(heldUntil(policy, 'MARKETING', 'UTC', now)).toBe(at('2026-12-01T23:59:00Z'));
    expect(heldUntil(policy, 'TRANSACTIONAL', 'UTC', now)).toBeNull();
    expect(heldUntil(policy, 'HEADLESS', 'UTC', now)).toBeNull();
    expect(heldUntil(DEFAULT_POLICY, 'MARKETING', 'UTC', now)).toBeNull();
  });
});
