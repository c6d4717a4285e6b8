/** The contact page's custom-field form: a value typed as the API stores it (spec, Contact data). */

export type ValueType = 'text' | 'number' | 'boolean' | 'json';
export const VALUE_TYPES: Array<{ value: ValueType; label: string }> = [
  { value: 'text', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'True / false' },
  { value: 'json', label: 'JSON (list or object)' },
];

export const typeOf = (v: unknown): ValueType => (typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : v !== null && typeof v === 'object' ? 'json' : 'text');
export const sourceOf = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v, null, typeof v === 'object' ? 2 : undefined));

/** The typed value of the field form, or the reason it is not one. */
export function parseFieldValue(type: ValueType, source: string): { value?: unknown; problem?: string } {
  if (type === 'text') return source === '' ? { problem: 'A text value must not be empty (delete the field instead)' } : { value: source };
  if (type === 'number') {
    const n = Number(source.trim());
    return source.trim() !== '' && Number.isFinite(n) ? { value: n } : { problem: 'Not a number' };
  }
  if (type === 'boolean') return source === 'true' || source === 'false' ? { value: source === 'true' } : { problem: 'Choose true or false' };
  try {
    const v = JSON.parse(source) as unknown;
    return v !== null && typeof v === 'object' ? { value: v } : { problem: 'JSON here is a list or an object' };
  } catch (err) {
    return { problem: `Not valid JSON: ${(err as Error).message}` };
  }
}
