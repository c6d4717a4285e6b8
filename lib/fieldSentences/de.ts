import { labelIn } from './labels';
import type { Field, FieldWords, Unit } from './types';

/** „Das Feld „Passwort““, „Eintrag 3 im Feld „Themen““, „Dieses Feld“ where no label is known. */
function subject({ path }: Field): string {
  if (!path.length) return 'Dieser Wert';
  const label = labelIn('de', path);
  const last = String(path[path.length - 1]);
  if (/^\d+$/.test(last)) return label ? `Eintrag ${Number(last) + 1} im Feld „${label}“` : `Eintrag ${Number(last) + 1} der Liste`;
  return label ? `Das Feld „${label}“` : 'Dieses Feld';
}

/** The object an unknown key sits in: nothing at the body's top. */
function where({ path }: Field): string {
  if (!path.length) return '';
  const label = labelIn('de', path);
  return label ? ` im Feld „${label}“` : ' in diesem Feld';
}

/** Text is long, a file is large, a list holds. */
const extent = (amount: string, unit: Unit) => (unit === 'string' ? `${amount} lang sein` : unit === 'file' ? `${amount} groß sein` : `${amount} enthalten`);

export const de: FieldWords = {
  subject,
  or: 'oder',
  types: {
    string: 'Text',
    number: 'eine Zahl',
    int: 'eine ganze Zahl',
    bigint: 'eine ganze Zahl',
    boolean: 'ja oder nein (true oder false)',
    array: 'eine Liste',
    object: 'eine Gruppe von Feldern (ein Objekt)',
    date: 'ein Datum',
    null: 'leer (null)',
    literal: 'ein fester Wert',
  },
  units: {
    string: { one: 'Zeichen', other: 'Zeichen' },
    array: { one: 'Eintrag', other: 'Einträge' },
    set: { one: 'Eintrag', other: 'Einträge' },
    map: { one: 'Eintrag', other: 'Einträge' },
    file: { one: 'Byte', other: 'Bytes' },
  },
  formats: {
    email: () => 'Geben Sie eine gültige E-Mail-Adresse ein',
    url: (s) => `${s} muss eine vollständige Webadresse sein, etwa https://example.com/page`,
    uuid: (s) => `${s} muss eine ID wie 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f sein`,
    guid: (s) => `${s} muss eine ID wie 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f sein`,
    datetime: (s) => `${s} muss ein Datum mit Uhrzeit sein, etwa 2026-05-01T09:30:00Z`,
    date: (s) => `${s} muss ein Datum sein, etwa 2026-05-01`,
    time: (s) => `${s} muss eine Uhrzeit sein, etwa 09:30`,
    duration: (s) => `${s} muss eine Dauer sein, etwa PT15M`,
    ipv4: (s) => `${s} muss eine IPv4-Adresse sein, etwa 192.0.2.1`,
    ipv6: (s) => `${s} muss eine IPv6-Adresse sein, etwa 2001:db8::1`,
    cidrv4: (s) => `${s} muss ein IPv4-Bereich sein, etwa 192.0.2.0/24`,
    cidrv6: (s) => `${s} muss ein IPv6-Bereich sein, etwa 2001:db8::/32`,
    json_string: (s) => `${s} muss gültiges JSON sein`,
    base64: (s) => `${s} muss Base64-Text sein`,
    base64url: (s) => `${s} muss Base64url-Text sein`,
    e164: (s) => `${s} muss eine Telefonnummer im internationalen Format sein, etwa +4930123456`,
    jwt: (s) => `${s} muss ein JSON Web Token sein`,
    emoji: (s) => `${s} muss ein Emoji sein`,
  },
  required: (s) => `${s} ist erforderlich`,
  finite: (s) => `${s} muss eine endliche Zahl sein`,
  mustBe: (s, what) => `${s} muss ${what} sein`,
  needsOne: (s, _unit, one) => `${s} muss mindestens einen ${one} enthalten`,
  exactlyAmount: (s, amount, unit) => `${s} muss genau ${extent(amount, unit)}`,
  atLeastAmount: (s, amount, unit) => `${s} muss mindestens ${extent(amount, unit)}`,
  atMostAmount: (s, amount, unit) => `${s} darf höchstens ${extent(amount, unit)}`,
  onOrAfter: (s, date) => `${s} muss am oder nach dem ${date} liegen`,
  onOrBefore: (s, date) => `${s} muss am oder vor dem ${date} liegen`,
  exactly: (s, n) => `${s} muss genau ${n} sein`,
  atLeast: (s, n) => `${s} muss mindestens ${n} sein`,
  moreThan: (s, n) => `${s} muss größer als ${n} sein`,
  atMost: (s, n) => `${s} darf höchstens ${n} sein`,
  lessThan: (s, n) => `${s} muss kleiner als ${n} sein`,
  startsWith: (s, prefix) => `${s} muss mit ${prefix} beginnen`,
  endsWith: (s, suffix) => `${s} muss auf ${suffix} enden`,
  contains: (s, part) => `${s} muss ${part} enthalten`,
  wrongForm: (s) => `${s} hat nicht die richtige Form`,
  notValidFormat: (s, format) => `${s} hat nicht das erwartete Format (${format})`,
  multipleOf: (s, divisor) => `${s} muss ein Vielfaches von ${divisor} sein`,
  unknownKey: (key, field) => `${key} ist${where(field)} kein Feld, das wir kennen; bitte entfernen Sie es`,
  unknownKeys: (keys, field) => `${keys} sind${where(field)} keine Felder, die wir kennen; bitte entfernen Sie sie`,
  noMatchingForm: (s) => `${s} passt zu keiner der möglichen Formen`,
  mustBeValue: (s, value) => `${s} muss ${value} sein`,
  mustBeOneOf: (s, values) => `${s} muss einer der Werte ${values} sein`,
  keyNameNotAllowed: (s) => `${s} hat einen nicht erlaubten Namen`,
  keyNotAllowed: (key, parent) => `${key} ist${where(parent) || ' hier'} kein erlaubter Name`,
  holdsBadValue: (s) => `${s} enthält einen nicht erlaubten Wert`,
  notValid: (s) => `${s} ist ungültig`,
};
