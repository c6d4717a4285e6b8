/**
 * Typed CSV cells for the contact import's mapping step: what a cell means under a field type
 * (lib/contactData FieldType), and the type a column's first values suggest. Pure; the import
 * (services/contactImport.ts) converts with it, and its preview route guesses with it, so the
 * dashboard never needs its own copy of these rules.
 */
import type { FieldType } from './contactData';
import { IMPORT_ROW_WORDS } from './importRowWords';

export type Cell = { value: unknown } | { problem: string };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** A whole number written with a leading zero (zip codes, ids): text, not a number, when guessing. */
const LEADING_ZERO = /^[+-]?0\d/;
const BOOLEANS: Record<string, boolean> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };
/** ISO 8601 only: "03/04/2024" means two different days depending on who wrote it. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A date-only value stays `YYYY-MM-DD`; one with a time becomes `YYYY-MM-DDTHH:MM:SS.sssZ` (a time
 * without a zone is read as UTC). Both are the shapes the field registry types as `date`, so date
 * filters (`before`, `after`, `within`) work on imported values.
 */
function isoDate(s: string): string | null {
  const m = ISO.exec(s);
  if (!m) return null;
  const [, y, mo, d, h] = m;
  const day = new Date(`${y}-${mo}-${d}T00:00:00Z`);
  // Rejects days the calendar does not have (2024-02-30), which Date would roll over.
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  if (h === undefined) return `${y}-${mo}-${d}`;
  const [, , , , , mi, sec = '00', frac = '', zone = 'Z'] = m;
  const t = new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac}${zone === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')}`);
  return Number.isNaN(t.getTime()) || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59 ? null : t.toISOString();
}

/**
 * The stored value of a non-empty cell under `type`, or why it does not fit, in English (the other
 * languages' words: lib/importRowWords.ts). (Empty cells never get
 * here: an empty string keeps the contact's value, by the data rules.)
 */
export function convertCell(type: FieldType, raw: string): Cell {
  const s = raw.trim();
  if (type === 'string') return { value: raw };
  if (type === 'number') {
    const n = Number(s);
    return NUMBER.test(s) && Number.isFinite(n) ? { value: n } : { problem: IMPORT_ROW_WORDS.en.notA.number };
  }
  if (type === 'boolean') {
    const b = BOOLEANS[s.toLowerCase()];
    return b === undefined ? { problem: IMPORT_ROW_WORDS.en.notA.boolean } : { value: b };
  }
  const d = isoDate(s);
  return d === null ? { problem: IMPORT_ROW_WORDS.en.notA.date } : { value: d };
}

const fits = (type: FieldType, s: string) => 'value' in convertCell(type, s);

/**
 * The narrowest type every non-empty sample fits: number, then boolean, then date, else text. A
 * column with a leading-zero number ("02134") stays text, and "1"/"0" alone read as numbers.
 */
export function guessType(samples: string[]): FieldType {
  const values = samples.map((s) => s.trim()).filter((s) => s !== '');
  if (values.length === 0) return 'string';
  if (values.every((v) => fits('number', v) && !LEADING_ZERO.test(v))) return 'number';
  if (values.every((v) => fits('boolean', v))) return 'boolean';
  if (values.every((v) => fits('date', v))) return 'date';
  return 'string';
}
