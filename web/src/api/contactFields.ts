/**
 * The contact page's custom-field form: a value typed as the API stores it (spec, Contact data).
 * Words stay with the screens: a type and a problem are keys of the contacts catalogue
 * (`valueType.*`, `valueProblem.*`), so this module runs under Node without i18next.
 */

export type ValueType = 'text' | 'number' | 'boolean' | 'json';
export const VALUE_TYPES: ValueType[] = ['text', 'number', 'boolean', 'json'];
export type ValueProblem = 'emptyText' | 'notNumber' | 'chooseBoolean' | 'jsonShape' | 'badJson';

export const typeOf = (v: unknown): ValueType =>
  typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : v !== null && typeof v === 'object' ? 'json' : 'text';
export const sourceOf = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v, null, typeof v === 'object' ? 2 : undefined));

/** The typed value of the field form, or why it is not one (with the JSON parser's own `reason`). */
export function parseFieldValue(type: ValueType, source: string): { value?: unknown; problem?: ValueProblem; reason?: string } {
  if (type === 'text') return source === '' ? { problem: 'emptyText' } : { value: source };
  if (type === 'number') {
    const n = Number(source.trim());
    return source.trim() !== '' && Number.isFinite(n) ? { value: n } : { problem: 'notNumber' };
  }
  if (type === 'boolean') return source === 'true' || source === 'false' ? { value: source === 'true' } : { problem: 'chooseBoolean' };
  try {
    const v = JSON.parse(source) as unknown;
    return v !== null && typeof v === 'object' ? { value: v } : { problem: 'jsonShape' };
  } catch (err) {
    return { problem: 'badJson', reason: (err as Error).message };
  }
}
