import { labelIn } from './labels';
import type { Field, FieldWords } from './types';

/** « Le champ « Mot de passe » », « L’élément 3 du champ « Thèmes » », « Ce champ » where no label is known. */
function subject({ path }: Field): string {
  if (!path.length) return 'Cette valeur';
  const label = labelIn('fr', path);
  const last = String(path[path.length - 1]);
  if (/^\d+$/.test(last)) return label ? `L’élément ${Number(last) + 1} du champ « ${label} »` : `L’élément ${Number(last) + 1} de la liste`;
  return label ? `Le champ « ${label} »` : 'Ce champ';
}

/** The object an unknown key sits in: nothing at the body's top. */
function where({ path }: Field): string {
  if (!path.length) return '';
  const label = labelIn('fr', path);
  return label ? ` dans le champ « ${label} »` : ' dans ce champ';
}

export const fr: FieldWords = {
  subject,
  or: 'ou',
  types: {
    string: 'du texte',
    number: 'un nombre',
    int: 'un nombre entier',
    bigint: 'un nombre entier',
    boolean: 'oui ou non (true ou false)',
    array: 'une liste',
    object: 'un groupe de champs (un objet)',
    date: 'une date',
    null: 'vide (null)',
    literal: 'une valeur fixe',
  },
  units: {
    string: { one: 'caractère', other: 'caractères' },
    array: { one: 'élément', other: 'éléments' },
    set: { one: 'élément', other: 'éléments' },
    map: { one: 'entrée', other: 'entrées' },
    file: { one: 'octet', other: 'octets' },
  },
  formats: {
    email: () => 'Saisissez une adresse e-mail valide',
    url: (s) => `${s} doit être une adresse web complète, comme https://example.com/page`,
    uuid: (s) => `${s} doit être un identifiant comme 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f`,
    guid: (s) => `${s} doit être un identifiant comme 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f`,
    datetime: (s) => `${s} doit être une date et une heure, comme 2026-05-01T09:30:00Z`,
    date: (s) => `${s} doit être une date, comme 2026-05-01`,
    time: (s) => `${s} doit être une heure, comme 09:30`,
    duration: (s) => `${s} doit être une durée, comme PT15M`,
    ipv4: (s) => `${s} doit être une adresse IPv4, comme 192.0.2.1`,
    ipv6: (s) => `${s} doit être une adresse IPv6, comme 2001:db8::1`,
    cidrv4: (s) => `${s} doit être une plage IPv4, comme 192.0.2.0/24`,
    cidrv6: (s) => `${s} doit être une plage IPv6, comme 2001:db8::/32`,
    json_string: (s) => `${s} doit être du JSON valide`,
    base64: (s) => `${s} doit être du texte en base64`,
    base64url: (s) => `${s} doit être du texte en base64url`,
    e164: (s) => `${s} doit être un numéro de téléphone au format international, comme +4930123456`,
    jwt: (s) => `${s} doit être un jeton JSON Web Token`,
    emoji: (s) => `${s} doit être un emoji`,
  },
  required: (s) => `${s} est obligatoire`,
  finite: (s) => `${s} doit être un nombre fini`,
  mustBe: (s, what) => `${s} doit être ${what}`,
  needsOne: (s, unit, one) => `${s} doit contenir au moins ${unit === 'map' ? 'une' : 'un'} ${one}`,
  exactlyAmount: (s, amount) => `${s} doit contenir exactement ${amount}`,
  atLeastAmount: (s, amount) => `${s} doit contenir au moins ${amount}`,
  atMostAmount: (s, amount) => `${s} doit contenir au plus ${amount}`,
  onOrAfter: (s, date) => `${s} doit être le ${date} ou après`,
  onOrBefore: (s, date) => `${s} doit être le ${date} ou avant`,
  exactly: (s, n) => `${s} doit valoir exactement ${n}`,
  atLeast: (s, n) => `${s} doit valoir au moins ${n}`,
  moreThan: (s, n) => `${s} doit valoir plus de ${n}`,
  atMost: (s, n) => `${s} doit valoir au plus ${n}`,
  lessThan: (s, n) => `${s} doit valoir moins de ${n}`,
  startsWith: (s, prefix) => `${s} doit commencer par ${prefix}`,
  endsWith: (s, suffix) => `${s} doit se terminer par ${suffix}`,
  contains: (s, part) => `${s} doit contenir ${part}`,
  wrongForm: (s) => `${s} n’a pas la forme attendue`,
  notValidFormat: (s, format) => `${s} n’est pas au format attendu (${format})`,
  multipleOf: (s, divisor) => `${s} doit être un multiple de ${divisor}`,
  unknownKey: (key, field) => `${key} n’est pas un champ que nous connaissons${where(field)} ; retirez-le`,
  unknownKeys: (keys, field) => `${keys} ne sont pas des champs que nous connaissons${where(field)} ; retirez-les`,
  noMatchingForm: (s) => `${s} ne correspond à aucune des formes possibles`,
  mustBeValue: (s, value) => `${s} doit être ${value}`,
  mustBeOneOf: (s, values) => `${s} doit être l’une des valeurs ${values}`,
  keyNameNotAllowed: (s) => `${s} porte un nom non autorisé`,
  keyNotAllowed: (key, parent) => `${key} n’est pas un nom autorisé${where(parent) || ' ici'}`,
  holdsBadValue: (s) => `${s} contient une valeur non autorisée`,
  notValid: (s) => `${s} n’est pas valide`,
};
