import type { Field, FieldWords } from './types';

/** Words kept whole when a camelCase name becomes a label. */
const ACRONYMS: Record<string, string> = {
  url: 'URL',
  urls: 'URLs',
  id: 'ID',
  ids: 'IDs',
  html: 'HTML',
  json: 'JSON',
  dns: 'DNS',
  smtp: 'SMTP',
  api: 'API',
  ip: 'IP',
  csv: 'CSV',
  utm: 'UTM',
  dkim: 'DKIM',
  spf: 'SPF',
  mx: 'MX',
};

/** `fromName` → "From name", `webhookUrl` → "Webhook URL", `segmentId` → "Segment" (a person picks the segment, not its id). */
export function labelOf(name: string): string {
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .split(/\s+/)
    .map((w) => w.toLowerCase());
  if (words.length > 1 && words[words.length - 1] === 'id') words.pop();
  const out = words.map((w) => ACRONYMS[w] ?? w).join(' ');
  return out.charAt(0).toUpperCase() + out.slice(1);
}

/** The field's label: the schema's own (`.meta({ label })`), else its last name in the path; list items say which one. */
export function fieldLabel(path: readonly PropertyKey[], own?: string): string {
  if (own) return own;
  const parts = path.map(String);
  const last = parts[parts.length - 1];
  if (last === undefined) return 'This value';
  if (/^\d+$/.test(last)) {
    const parent = parts
      .slice(0, -1)
      .reverse()
      .find((p) => !/^\d+$/.test(p));
    return parent ? `Item ${Number(last) + 1} of ${labelOf(parent).toLowerCase()}` : `Item ${Number(last) + 1}`;
  }
  return labelOf(last);
}

/** "in tags" after an unknown key of a nested object; nothing at the body's top. */
const within = (field: Field) => (field.path.length ? ` in ${fieldLabel(field.path, field.own).toLowerCase()}` : '');

export const en: FieldWords = {
  subject: (field) => fieldLabel(field.path, field.own),
  or: 'or',
  types: {
    string: 'text',
    number: 'a number',
    int: 'a whole number',
    bigint: 'a whole number',
    boolean: 'yes or no (true or false)',
    array: 'a list',
    object: 'a group of fields (an object)',
    date: 'a date',
    null: 'empty (null)',
    literal: 'a fixed value',
  },
  units: {
    string: { one: 'character', other: 'characters' },
    array: { one: 'item', other: 'items' },
    set: { one: 'item', other: 'items' },
    map: { one: 'entry', other: 'entries' },
    file: { one: 'byte', other: 'bytes' },
  },
  formats: {
    email: () => 'Enter a valid email address',
    url: (s) => `${s} must be a full web address, like https://example.com/page`,
    uuid: (s) => `${s} must be an ID such as 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f`,
    guid: (s) => `${s} must be an ID such as 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f`,
    datetime: (s) => `${s} must be a date and time, like 2026-05-01T09:30:00Z`,
    date: (s) => `${s} must be a date, like 2026-05-01`,
    time: (s) => `${s} must be a time, like 09:30`,
    duration: (s) => `${s} must be a duration, like PT15M`,
    ipv4: (s) => `${s} must be an IPv4 address, like 192.0.2.1`,
    ipv6: (s) => `${s} must be an IPv6 address, like 2001:db8::1`,
    cidrv4: (s) => `${s} must be an IPv4 range, like 192.0.2.0/24`,
    cidrv6: (s) => `${s} must be an IPv6 range, like 2001:db8::/32`,
    json_string: (s) => `${s} must be valid JSON`,
    base64: (s) => `${s} must be base64 text`,
    base64url: (s) => `${s} must be base64url text`,
    e164: (s) => `${s} must be a phone number in international form, like +4930123456`,
    jwt: (s) => `${s} must be a JSON Web Token`,
    emoji: (s) => `${s} must be an emoji`,
  },
  required: (s) => `${s} is required`,
  finite: (s) => `${s} must be a finite number`,
  mustBe: (s, what) => `${s} must be ${what}`,
  needsOne: (s, _unit, one) => `${s} needs at least one ${one}`,
  exactlyAmount: (s, amount) => `${s} must be exactly ${amount}`,
  atLeastAmount: (s, amount) => `${s} must be at least ${amount}`,
  atMostAmount: (s, amount) => `${s} must be at most ${amount}`,
  onOrAfter: (s, date) => `${s} must be on or after ${date}`,
  onOrBefore: (s, date) => `${s} must be on or before ${date}`,
  exactly: (s, n) => `${s} must be exactly ${n}`,
  atLeast: (s, n) => `${s} must be at least ${n}`,
  moreThan: (s, n) => `${s} must be more than ${n}`,
  atMost: (s, n) => `${s} must be at most ${n}`,
  lessThan: (s, n) => `${s} must be less than ${n}`,
  startsWith: (s, prefix) => `${s} must start with ${prefix}`,
  endsWith: (s, suffix) => `${s} must end with ${suffix}`,
  contains: (s, part) => `${s} must contain ${part}`,
  wrongForm: (s) => `${s} is not in the right form`,
  notValidFormat: (s, format) => `${s} is not a valid ${format}`,
  multipleOf: (s, divisor) => `${s} must be a multiple of ${divisor}`,
  unknownKey: (key, field) => `${key} is not a field we know${within(field)}; remove it`,
  unknownKeys: (keys, field) => `${keys} are not fields we know${within(field)}; remove them`,
  noMatchingForm: (s) => `${s} does not match any of the forms it can take`,
  mustBeValue: (s, value) => `${s} must be ${value}`,
  mustBeOneOf: (s, values) => `${s} must be one of ${values}`,
  keyNameNotAllowed: (s) => `${s} has a name that is not allowed`,
  keyNotAllowed: (key, parent) => `${key} is not an allowed name in ${fieldLabel(parent.path).toLowerCase()}`,
  holdsBadValue: (s) => `${s} holds a value that is not allowed`,
  notValid: (s) => `${s} is not valid`,
};
