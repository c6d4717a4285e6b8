import { isTimeZone, LocalDateTime, quietHoursEnd, QuietHours, zonedInstant } from './zonedTime';

/**
 * A project's sending policy (GET/PATCH /settings): its default time zone, its quiet hours and its
 * frequency cap. Both apply to MARKETING mail only; TRANSACTIONAL and HEADLESS mail is never held.
 * `sendRatePerSecond` is the project's own send throttle (services/sendThrottle.ts), every kind of
 * mail; null: the workers' SEND_RATE_PER_SECOND.
 */
export interface SendingPolicy {
  timezone: string;
  quietHours: QuietHours | null;
  frequencyCap: FrequencyCap | null;
  sendRatePerSecond: number | null;
}

export const CAP_PERIODS = ['day', 'week'] as const;
export interface FrequencyCap {
  max: number;
  per: (typeof CAP_PERIODS)[number];
}

export const CAP_WINDOW_MS: Record<FrequencyCap['per'], number> = { day: 86_400_000, week: 7 * 86_400_000 };

export const DEFAULT_POLICY: SendingPolicy = { timezone: 'UTC', quietHours: null, frequencyCap: null, sendRatePerSecond: null };

/** A contact's zone: `data.timezone` when it names a zone, else the project's (docs/api.md). */
export function contactTimeZone(data: Record<string, unknown> | null | undefined, projectZone: string): string {
  const own = data?.timezone;
  return isTimeZone(own) ? own : projectZone;
}

export type EmailType = 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';

/** When a MARKETING email to a contact in `timeZone` must wait for the quiet hours to end: that instant; else null. */
export function heldUntil(policy: SendingPolicy, type: EmailType, timeZone: string, now: number): number | null {
  if (type !== 'MARKETING' || !policy.quietHours) return null;
  return quietHoursEnd(now, timeZone, policy.quietHours);
}

/**
 * When a campaign hands a recipient over: at their own local send time when the campaign has one
 * (or now, once it has passed), moved to the end of their quiet hours when it falls inside them.
 */
export function recipientDue(now: number, policy: SendingPolicy, type: EmailType, timeZone: string, localSchedule: LocalDateTime | null): number {
  const at = localSchedule ? Math.max(now, zonedInstant(localSchedule, timeZone)) : now;
  return heldUntil(policy, type, timeZone, at) ?? at;
}
