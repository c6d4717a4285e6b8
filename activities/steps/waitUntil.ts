import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { findContact } from '../../db/contactReaders';
import { sendingPolicy } from '../../db/sendingPolicy';
import { contactTimeZone, DEFAULT_POLICY } from '../../lib/sendingPolicy';
import { nextLocalTime, Weekday } from '../../lib/zonedTime';
import type { config as WaitUntilConfig } from '../../temporal/steps/waitUntil';
import { UNIT_MS, type ConfigOf } from '../../temporal/steps/types';

/** The activity of the WAIT_UNTIL step (temporal/steps/waitUntil.ts). */

export interface WaitTarget {
  /** The instant to wake at (ISO), or null when the field holds no date. */
  wakeAt: string | null;
  /** Real milliseconds from now until then; 0 when already past (the step does not wait). */
  waitMs: number;
  timeZone: string;
  /** Why the step did not wait, when it did not. */
  reason?: 'past' | 'no date in field';
}

/** A date from contact data: an ISO string or epoch milliseconds. */
function dateOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}

function dataAt(data: Record<string, unknown>, path: string[]): unknown {
  let v: unknown = data;
  for (const key of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

export function waitUntilStepActivities(deps: ActivityDeps) {
  return {
    /** Where a WAIT_UNTIL step wakes, from the contact's zone or data as they are now. */
    async waitUntilTarget(input: { projectId: string; contactId: string; config: ConfigOf<typeof WaitUntilConfig> }): Promise<WaitTarget> {
      const [contact, policy] = await Promise.all([findContact(deps.knex, input.projectId, input.contactId), sendingPolicy(deps.knex, input.projectId)]);
      if (!contact) throw ApplicationFailure.nonRetryable('the contact no longer exists', 'ContactGone');
      const timeZone = contactTimeZone(contact.data, (policy ?? DEFAULT_POLICY).timezone);
      const now = Date.now();
      const c = input.config;
      let at: number | null;
      if ('at' in c) {
        at = nextLocalTime(now, timeZone, c.at, c.days as Weekday[] | undefined);
      } else {
        const base = dateOf(dataAt(contact.data, c.field.split('.').slice(1)));
        at = base === null ? null : base + (c.offset ? c.offset.amount * UNIT_MS[c.offset.unit] : 0);
      }
      if (at === null) return { wakeAt: null, waitMs: 0, timeZone, reason: 'no date in field' };
      const waitMs = Math.max(0, at - now);
      return { wakeAt: new Date(at).toISOString(), waitMs, timeZone, ...(waitMs === 0 ? { reason: 'past' as const } : {}) };
    },
  };
}
