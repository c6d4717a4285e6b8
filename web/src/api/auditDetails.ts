import type { TFunction } from 'i18next';
import { momentWords, numberWords } from './dates';

/**
 * An audit entry's details as lines a person reads ("Role: admin", "Scheduled for: 3 Dec, 09:00
 * Europe/Paris"), in the dashboard's language: each key of db/auditLog.ts AUDIT_DETAIL_KEYS has a
 * label in the data catalogue's `audit.detail` (test/unit/auditSummary.test.ts holds en, fr and de to
 * that list), and values are formatted for the reader: dates in their zone, counts in their digits,
 * yes/no in words, roles, reasons, statuses and actions in words, lists joined. A key or code this
 * dashboard does not know is shown as the server wrote it; the raw JSON stays one click away on the page.
 */

/** Keys built from the entry (`audit.detail.${key}`): the unit test checks them, not tsc. */
type Say = (key: string, options?: Record<string, unknown>) => string;

export interface DetailLine {
  key: string;
  label: string;
  value: string;
}

const ISO_MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A key's label, or the key itself when the catalogue has none (an entry written by a newer server). */
const labelOf = (say: Say, key: string) => say(`audit.detail.${key}`, { defaultValue: key });

/** A code in words from one of the catalogue's tables, or the code as written. */
const coded = (say: Say, table: string, v: unknown) => (typeof v === 'string' ? say(`${table}.${v}`, { defaultValue: v }) : null);

/** `campaign.send` as its words (the Action filter's), a route as written. */
const actionWords = (say: Say, v: string) => (/^[a-z_]+\.[a-z_]+$/.test(v) ? say(`audit.actions.${v}`, { defaultValue: v }) : v);

function valueWords(say: Say, key: string, v: unknown): string {
  // A billing cap of null is no cap at all.
  if ((v === null || v === undefined) && (key === 'emails' || key === 'contacts')) return say('audit.noCap');
  if (v === null || v === undefined) return say('audit.none');
  if (typeof v === 'boolean') return say(v ? 'audit.yes' : 'audit.no');
  if (typeof v === 'number') return numberWords(v);
  if (Array.isArray(v)) return v.length ? v.map((x) => valueWords(say, key, x)).join(', ') : say('audit.none');
  if (typeof v === 'object') {
    const parts = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${labelOf(say, k)}: ${valueWords(say, k, x)}`);
    return parts.length ? parts.join(', ') : say('audit.none');
  }
  const text = String(v);
  if (key === 'role') return coded(say, 'audit.role', text)!;
  if (key === 'reason') return coded(say, 'audit.reason', text)!;
  if (key === 'status') return coded(say, 'campaigns:status', text)!;
  if (key === 'action') return actionWords(say, text);
  if (ISO_MOMENT.test(text) && !Number.isNaN(Date.parse(text))) return momentWords(text);
  return text;
}

/** The entry's details, one line per key, in the order the server wrote them. */
export function auditDetailLines(t: TFunction<'data'>, details: Record<string, unknown> | null | undefined): DetailLine[] {
  const say = t as unknown as Say;
  return Object.entries(details ?? {}).map(([key, v]) => ({ key, label: labelOf(say, key), value: valueWords(say, key, v) }));
}

/** The target's kind in words (`webhook_endpoint`: "Webhook endpoint"), or as the server wrote it for a kind this dashboard does not know. */
export const targetTypeWords = (t: TFunction<'data'>, type: string): string => (t as unknown as Say)(`audit.targetType.${type}`, { defaultValue: type });
