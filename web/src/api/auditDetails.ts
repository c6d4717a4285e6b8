import type { TFunction } from 'i18next';
import { momentWords, numberWords } from './dates';

/**
 * An audit entry's details as lines a person reads ("Role: admin", "Scheduled for: 3 Dec, 09:00
 * Europe/Paris"), in the dashboard's language: each key of db/auditLog.ts AUDIT_DETAIL_KEYS has a
 * label in the data catalogue's `audit.detail` (test/unit/auditSummary.test.ts holds en, fr and de to
 * that list), and values are formatted for the reader: dates in their zone, counts in their digits,
 * yes/no in words, codes in words by the tables below, lists joined, a route as code. A key or code
 * this dashboard does not know is shown as the server wrote it; the raw JSON stays one click away on the page.
 */

/** Keys built from the entry (`audit.detail.${key}`): the unit tests check them, not tsc. */
type Say = (key: string, options?: Record<string, unknown>) => string;

export interface DetailLine {
  key: string;
  label: string;
  value: string;
  /** The value is a route as the server names it (`POST /v1/…`): shown as written, in monospace. */
  code: boolean;
}

/**
 * The catalogue table that names a key's coded values: `changed` lists request-body fields, `permission`
 * is what a refused role lacked (test/unit/auditValueWords.test.ts holds en, fr and de to both sets).
 */
const VALUE_WORDS: Record<string, string> = {
  role: 'audit.role',
  reason: 'audit.reason',
  status: 'campaigns:status',
  action: 'audit.actions',
  changed: 'audit.field',
  permission: 'audit.permission',
};

/** The table that names the keys of an object value: a reset's counts by table; any other's keys are details (a retention sweep's `removed`). */
const KEY_WORDS: Record<string, string> = { deleted: 'audit.resetTable' };

/** A code a table can name (`ADMIN`, `campaign.send`, `fromName`); anything else (a route, free text) is never looked up. */
const CODE = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$/;
/** A route as the router writes it (`access.denied`'s `route`, or its `action` when the route has no audit action). */
const ROUTE = /^[A-Z]+ \/\S*$/;
const ISO_MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A key's name from a table, or the key itself when the table has none (an entry written by a newer server). */
const named = (say: Say, table: string, key: string) => (CODE.test(key) ? say(`${table}.${key}`, { defaultValue: key }) : key);

function valueWords(say: Say, key: string, v: unknown): string {
  // A billing cap of null is no cap at all.
  if ((v === null || v === undefined) && (key === 'emails' || key === 'contacts')) return say('audit.noCap');
  if (v === null || v === undefined) return say('audit.none');
  if (typeof v === 'boolean') return say(v ? 'audit.yes' : 'audit.no');
  if (typeof v === 'number') return numberWords(v);
  if (Array.isArray(v)) return v.length ? v.map((x) => valueWords(say, key, x)).join(', ') : say('audit.none');
  if (typeof v === 'object') {
    const keys = KEY_WORDS[key] ?? 'audit.detail';
    const parts = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${named(say, keys, k)}: ${valueWords(say, k, x)}`);
    return parts.length ? parts.join(', ') : say('audit.none');
  }
  const text = String(v);
  if (VALUE_WORDS[key]) return named(say, VALUE_WORDS[key], text);
  if (ISO_MOMENT.test(text) && !Number.isNaN(Date.parse(text))) return momentWords(text);
  return text;
}

/** One detail's value as its line reads (the entry's one-line summary names what changed and the permission refused with it). */
export const detailValueWords = (t: TFunction<'data'>, key: string, v: unknown): string => valueWords(t as unknown as Say, key, v);

/** The entry's details, one line per key, in the order the server wrote them. */
export function auditDetailLines(t: TFunction<'data'>, details: Record<string, unknown> | null | undefined): DetailLine[] {
  const say = t as unknown as Say;
  return Object.entries(details ?? {}).map(([key, v]) => ({
    key,
    label: named(say, 'audit.detail', key),
    value: valueWords(say, key, v),
    code: typeof v === 'string' && ROUTE.test(v),
  }));
}

/** The target's kind in words (`webhook_endpoint`: "Webhook endpoint"), or as the server wrote it for a kind this dashboard does not know. */
export const targetTypeWords = (t: TFunction<'data'>, type: string): string => (t as unknown as Say)(`audit.targetType.${type}`, { defaultValue: type });
