import type { FilterParts, SummaryWords } from './types';

/** A clause as English has always said it: field, operator, value and unit as stored, by spaces. */
const plain =
  (op: string) =>
  (p: FilterParts): string =>
    [p.field, op, p.value, p.unit].filter(Boolean).join(' ');

const times = (n: unknown) => (n === 1 ? '1 time' : `${String(n)} times`);

/** The words the built-in steps' summaries have always used; the dashboard's English tests read them. */
export const en: SummaryWords = {
  quote: (text) => `“${text}”`,
  number: (n) => String(n),
  units: {
    minutes: { one: 'minute', other: 'minutes', dative: 'minutes' },
    hours: { one: 'hour', other: 'hours', dative: 'hours' },
    days: { one: 'day', other: 'days', dative: 'days' },
    weeks: { one: 'week', other: 'weeks', dative: 'weeks' },
    months: { one: 'month', other: 'months', dative: 'months' },
  },
  weekdays: { mon: 'mon', tue: 'tue', wed: 'wed', thu: 'thu', fri: 'fri', sat: 'sat', sun: 'sun' },
  and: ' and ',
  or: ' or ',
  anyCondition: 'a condition holds',
  filters: {
    equals: plain('is'),
    notEquals: plain('is not'),
    contains: plain('contains'),
    notContains: plain('does not contain'),
    startsWith: plain('starts with'),
    endsWith: plain('ends with'),
    greaterThan: plain('is more than'),
    lessThan: plain('is less than'),
    greaterThanOrEqual: plain('is at least'),
    lessThanOrEqual: plain('is at most'),
    in: plain('is one of'),
    notIn: plain('is none of'),
    exists: plain('is set'),
    notExists: plain('is not set'),
    within: plain('within'),
    olderThan: plain('older than'),
    triggered: plain('happened'),
    notTriggered: plain('did not happen'),
    notWithin: (p) => `${p.field} did not happen within ${p.span(p.raw)}`,
    atLeastWithin: (p) => {
      const v = (p.raw ?? {}) as { atLeast?: unknown; within?: unknown };
      return `${p.field} happened at least ${times(v.atLeast)} within ${p.span(v.within)}`;
    },
  },

  unknownStep: 'Unknown step',
  trigger: (event) => `When ${event} happens`,
  delay: (span) => `Wait ${span}`,
  exit: 'End here',
  split: (parts) => `Split ${parts}`,
  condition: (filter) => `If ${filter}`,
  send: (what, topic) => `Send ${what}${topic === undefined ? '' : ` to ${topic} subscribers`}`,
  template: (name) => `“${name}” (${name} template)`,
  missingTemplate: 'a template that no longer exists',
  waitForEvent: (event, span) => (span ? `Wait up to ${span} for ${event}` : `Wait for ${event}`),
  waitUntilTime: (at, days) => `Wait until ${at}${days ? ` on ${days}` : ''}`,
  waitUntilField: (field, offset) => (offset ? `Wait until ${field} ${offset}` : `Wait until ${field}`),
  setFields: (fields) => `Set ${fields}`,
  subscribe: 'subscribe',
  unsubscribe: 'unsubscribe',
  separator: '; ',
};
