import type { FilterParts, SummaryWords } from './types';

const NBSP = '\u00a0';
/** « x », with the no-break spaces French sets inside its quotation marks. */
const quote = (text: string) => `«${NBSP}${text}${NBSP}»`;

const plain =
  (op: string) =>
  (p: FilterParts): string =>
    [p.field, op, p.value].filter(Boolean).join(' ');

const times = (n: unknown) => `${String(n)}${NBSP}fois`;

export const fr: SummaryWords = {
  quote,
  number: (n) => n.toLocaleString('fr', { useGrouping: false, maximumFractionDigits: 10 }),
  units: {
    minutes: { one: 'minute', other: 'minutes', dative: 'minutes' },
    hours: { one: 'heure', other: 'heures', dative: 'heures' },
    days: { one: 'jour', other: 'jours', dative: 'jours' },
    weeks: { one: 'semaine', other: 'semaines', dative: 'semaines' },
    months: { one: 'mois', other: 'mois', dative: 'mois' },
  },
  weekdays: { mon: 'lun.', tue: 'mar.', wed: 'mer.', thu: 'jeu.', fri: 'ven.', sat: 'sam.', sun: 'dim.' },
  and: ' et ',
  or: ' ou ',
  anyCondition: 'une condition est remplie',
  filters: {
    equals: plain('est'),
    notEquals: plain('n’est pas'),
    contains: plain('contient'),
    notContains: plain('ne contient pas'),
    startsWith: plain('commence par'),
    endsWith: plain('se termine par'),
    greaterThan: plain('est supérieur à'),
    lessThan: plain('est inférieur à'),
    greaterThanOrEqual: plain('est au moins'),
    lessThanOrEqual: plain('est au plus'),
    in: plain('est l’un de'),
    notIn: plain('n’est aucun de'),
    exists: plain('est renseigné'),
    notExists: plain('n’est pas renseigné'),
    within: (p) => `${p.field} date de moins de ${p.span(p.raw)}`,
    olderThan: (p) => `${p.field} date de plus de ${p.span(p.raw)}`,
    triggered: plain('a eu lieu'),
    notTriggered: plain('n’a pas eu lieu'),
    notWithin: (p) => `${p.field} n’a pas eu lieu depuis ${p.span(p.raw)}`,
    atLeastWithin: (p) => {
      const v = (p.raw ?? {}) as { atLeast?: unknown; within?: unknown };
      return `${p.field} a eu lieu au moins ${times(v.atLeast)} en ${p.span(v.within)}`;
    },
  },

  unknownStep: 'Étape inconnue',
  trigger: (event) => `Quand ${event} se produit`,
  delay: (span) => `Attendre ${span}`,
  exit: 'Terminer ici',
  split: (parts) => `Répartir ${parts}`,
  condition: (filter) => `Si ${filter}`,
  send: (what, topic) => `Envoyer ${what}${topic === undefined ? '' : ` aux abonnés de ${topic}`}`,
  template: (name) => `${quote(name)} (modèle ${name})`,
  missingTemplate: 'un modèle qui n’existe plus',
  waitForEvent: (event, span) => (span ? `Attendre ${event} pendant ${span} au plus` : `Attendre ${event}`),
  waitUntilTime: (at, days) => `Attendre jusqu’à ${at}${days ? ` le ${days}` : ''}`,
  waitUntilField: (field, offset) => (offset ? `Attendre jusqu’à ${field} ${offset}` : `Attendre jusqu’à ${field}`),
  setFields: (fields) => `Définir ${fields}`,
  subscribe: 'abonner',
  unsubscribe: 'désabonner',
  separator: ' ; ',
};
