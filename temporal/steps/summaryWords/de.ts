import type { FilterParts, SummaryWords } from './types';

/** „x“, as German quotes. */
const quote = (text: string) => `„${text}“`;

const plain =
  (op: string) =>
  (p: FilterParts): string =>
    [p.field, op, p.value].filter(Boolean).join(' ');

const times = (n: unknown) => `${String(n)}-mal`;

export const de: SummaryWords = {
  quote,
  number: (n) => n.toLocaleString('de', { useGrouping: false, maximumFractionDigits: 10 }),
  units: {
    minutes: { one: 'Minute', other: 'Minuten', dative: 'Minuten' },
    hours: { one: 'Stunde', other: 'Stunden', dative: 'Stunden' },
    days: { one: 'Tag', other: 'Tage', dative: 'Tagen' },
    weeks: { one: 'Woche', other: 'Wochen', dative: 'Wochen' },
    months: { one: 'Monat', other: 'Monate', dative: 'Monaten' },
  },
  weekdays: { mon: 'Mo', tue: 'Di', wed: 'Mi', thu: 'Do', fri: 'Fr', sat: 'Sa', sun: 'So' },
  and: ' und ',
  or: ' oder ',
  anyCondition: 'eine Bedingung ist erfüllt',
  filters: {
    equals: plain('ist'),
    notEquals: plain('ist nicht'),
    contains: plain('enthält'),
    notContains: plain('enthält nicht'),
    startsWith: plain('beginnt mit'),
    endsWith: plain('endet auf'),
    greaterThan: plain('ist größer als'),
    lessThan: plain('ist kleiner als'),
    greaterThanOrEqual: plain('ist mindestens'),
    lessThanOrEqual: plain('ist höchstens'),
    in: plain('ist eines von'),
    notIn: plain('ist keines von'),
    exists: plain('ist gesetzt'),
    notExists: plain('ist nicht gesetzt'),
    within: (p) => `${p.field} innerhalb von ${p.spanDative(p.raw)}`,
    olderThan: (p) => `${p.field} älter als ${p.span(p.raw)}`,
    triggered: plain('ist eingetreten'),
    notTriggered: plain('ist nicht eingetreten'),
    notWithin: (p) => `${p.field} seit ${p.spanDative(p.raw)} nicht eingetreten`,
    atLeastWithin: (p) => {
      const v = (p.raw ?? {}) as { atLeast?: unknown; within?: unknown };
      return `${p.field} innerhalb von ${p.spanDative(v.within)} mindestens ${times(v.atLeast)} eingetreten`;
    },
  },

  unknownStep: 'Unbekannter Schritt',
  trigger: (event) => `Wenn ${event} eintritt`,
  delay: (span) => `${span} warten`,
  exit: 'Hier beenden',
  split: (parts) => `Aufteilen: ${parts}`,
  // "Wenn plan ist pro" would need the verb at the end; a label reads "Bedingung: plan ist pro".
  condition: (filter) => `Bedingung: ${filter}`,
  send: (what, topic) => `${what}${topic === undefined ? '' : ` an die Abonnenten von ${topic}`} senden`,
  template: (name) => `${quote(name)} (Vorlage ${name})`,
  missingTemplate: 'Eine nicht mehr vorhandene Vorlage',
  waitForEvent: (event, span) => (span ? `Bis zu ${span} auf ${event} warten` : `Auf ${event} warten`),
  waitUntilTime: (at, days) => `Bis ${at}${days ? ` am ${days}` : ''} warten`,
  waitUntilField: (field, offset) => (offset ? `Bis ${field} ${offset} warten` : `Bis ${field} warten`),
  setFields: (fields) => `Setzen: ${fields}`,
  subscribe: 'anmelden',
  unsubscribe: 'abmelden',
  separator: '; ',
};
