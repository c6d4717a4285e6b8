import { z } from 'zod';

/**
 * Sentences for people in place of zod's developer English ("Too small: expected string to have >=1
 * characters"). Installed as zod's global `customError` (api/validation.ts), so it only speaks where a
 * schema gave no message of its own; the 422 envelope keeps its shape and codes, only the words change.
 */

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

const TYPE_WORDS: Record<string, string> = {
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
};

const FORMAT_SENTENCES: Record<string, (label: string) => string> = {
  email: () => 'Enter a valid email address',
  url: (l) => `${l} must be a full web address, like https://example.com/page`,
  uuid: (l) => `${l} must be an ID such as 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f`,
  guid: (l) => `${l} must be an ID such as 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f`,
  datetime: (l) => `${l} must be a date and time, like 2026-05-01T09:30:00Z`,
  date: (l) => `${l} must be a date, like 2026-05-01`,
  time: (l) => `${l} must be a time, like 09:30`,
  duration: (l) => `${l} must be a duration, like PT15M`,
  ipv4: (l) => `${l} must be an IPv4 address, like 192.0.2.1`,
  ipv6: (l) => `${l} must be an IPv6 address, like 2001:db8::1`,
  cidrv4: (l) => `${l} must be an IPv4 range, like 192.0.2.0/24`,
  cidrv6: (l) => `${l} must be an IPv6 range, like 2001:db8::/32`,
  json_string: (l) => `${l} must be valid JSON`,
  base64: (l) => `${l} must be base64 text`,
  base64url: (l) => `${l} must be base64url text`,
  e164: (l) => `${l} must be a phone number in international form, like +4930123456`,
  jwt: (l) => `${l} must be a JSON Web Token`,
  emoji: (l) => `${l} must be an emoji`,
};

const UNITS: Record<string, [string, string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  map: ['entry', 'entries'],
  file: ['byte', 'bytes'],
};

const count = (n: number | bigint, [one, many]: [string, string]) => `${n} ${Number(n) === 1 ? one : many}`;

/** A literal or enum value as a person reads it. */
const shown = (v: unknown) => (typeof v === 'string' ? `"${v}"` : String(v));

/** "a, b or c" (at most eight, then "…"). */
function oneOf(values: readonly unknown[]): string {
  const list = values.slice(0, 8).map(shown);
  if (values.length > 8) return `${list.join(', ')}, …`;
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` : (list[0] ?? '');
}

function dateOf(v: unknown): string {
  return typeof v === 'number' || typeof v === 'bigint' ? new Date(Number(v)).toISOString() : String(v);
}

type Issue = z.core.$ZodRawIssue & { schema?: unknown };

/** The sentence for one issue, or undefined to leave it to the schema's own words. */
export function sentenceFor(issue: Issue): string | undefined {
  const own = (issue.schema ?? issue.inst) as z.core.$ZodType | undefined;
  const label = fieldLabel(issue.path ?? [], (own && (z.globalRegistry.get(own as z.ZodType)?.label as string | undefined)) || undefined);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return `${label} is required`;
      const expected = String(issue.expected);
      if (expected === 'number' && typeof issue.input === 'number') return `${label} must be a finite number`;
      return `${label} must be ${TYPE_WORDS[expected] ?? expected}`;
    }
    case 'too_small': {
      const { minimum, inclusive, exact, origin } = issue;
      const unit = UNITS[origin];
      if (unit) {
        if (origin === 'string' && Number(minimum) === 1 && inclusive !== false && !exact) return `${label} is required`;
        if (origin !== 'string' && origin !== 'file' && Number(minimum) === 1 && !exact) return `${label} needs at least one ${unit[0]}`;
        if (exact) return `${label} must be exactly ${count(minimum, unit)}`;
        return `${label} must be at least ${count(inclusive === false ? Number(minimum) + 1 : minimum, unit)}`;
      }
      if (origin === 'date') return `${label} must be on or after ${dateOf(minimum)}`;
      if (exact) return `${label} must be exactly ${minimum}`;
      return inclusive ? `${label} must be at least ${minimum}` : `${label} must be more than ${minimum}`;
    }
    case 'too_big': {
      const { maximum, inclusive, exact, origin } = issue;
      const unit = UNITS[origin];
      if (unit) {
        if (exact) return `${label} must be exactly ${count(maximum, unit)}`;
        return `${label} must be at most ${count(inclusive === false ? Number(maximum) - 1 : maximum, unit)}`;
      }
      if (origin === 'date') return `${label} must be on or before ${dateOf(maximum)}`;
      if (exact) return `${label} must be exactly ${maximum}`;
      return inclusive ? `${label} must be at most ${maximum}` : `${label} must be less than ${maximum}`;
    }
    case 'invalid_format': {
      const format = String(issue.format);
      if (format === 'starts_with') return `${label} must start with "${(issue as { prefix?: string }).prefix}"`;
      if (format === 'ends_with') return `${label} must end with "${(issue as { suffix?: string }).suffix}"`;
      if (format === 'includes') return `${label} must contain "${(issue as { includes?: string }).includes}"`;
      if (format === 'regex') return `${label} is not in the right form`;
      return FORMAT_SENTENCES[format]?.(label) ?? `${label} is not a valid ${format.replace(/_/g, ' ')}`;
    }
    case 'not_multiple_of':
      return `${label} must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => `"${k}"`);
      const where = issue.path?.length ? ` in ${label.toLowerCase()}` : '';
      return keys.length === 1 ? `${keys[0]} is not a field we know${where}; remove it` : `${oneOf(issue.keys)} are not fields we know${where}; remove them`;
    }
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (options?.length) return `${label} must be ${oneOf(options)}`;
      return `${label} does not match any of the forms it can take`;
    }
    case 'invalid_key': {
      // The path ends at the refused key itself: name it, and the field it sits in.
      const path = issue.path ?? [];
      const key = path[path.length - 1];
      if (key === undefined) return `${label} has a name that is not allowed`;
      return `"${String(key)}" is not an allowed name in ${fieldLabel(path.slice(0, -1)).toLowerCase()}`;
    }
    case 'invalid_element':
      return `${label} holds a value that is not allowed`;
    case 'invalid_value': {
      const values = issue.values;
      if (values.length === 1) return `${label} must be ${shown(values[0])}`;
      return `${label} must be one of ${oneOf(values)}`;
    }
    case 'custom':
      return `${label} is not valid`;
    default:
      return undefined;
  }
}

/** A message a schema wrote without its subject ("must be a 24-hour HH:MM time") gets the field's label in front. */
export function withSubject(message: string, path: readonly PropertyKey[]): string {
  if (/^(must|is|should|cannot|can't|may)\b/.test(message)) return `${fieldLabel(path)} ${message}`;
  // Other messages keep their words and case: clients and tests match them as written.
  return message;
}
