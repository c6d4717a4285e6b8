import { dayWords, momentWords, numberWords } from '../../api/dates';

/** The words a read view uses for what is not the value itself. */
export interface ValueWords {
  yes: string;
  no: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/**
 * A contact field's value as people read it, or null for one that is only readable as JSON (an
 * object, a list holding objects): yes / no for a boolean, a number in the dashboard's language, a
 * date field's day or moment in it, a string as it is, a list's items joined. `type` is the
 * project's registry type for the field (GET /contacts/fields), when it has one.
 */
export function fieldValueWords(value: unknown, type: string | undefined, words: ValueWords): string | null {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? words.yes : words.no;
  if (typeof value === 'number') return numberWords(value);
  if (typeof value === 'string') {
    if (type === 'date' && DAY.test(value)) return dayWords(value, { zone: 'UTC' });
    if (type === 'date' && MOMENT.test(value) && !Number.isNaN(Date.parse(value))) return momentWords(value);
    return value;
  }
  if (Array.isArray(value)) {
    const items = value.map((v) => (v !== null && typeof v === 'object' ? null : fieldValueWords(v, undefined, words)));
    return items.every((i) => i !== null) ? items.join(', ') : null;
  }
  return null;
}
