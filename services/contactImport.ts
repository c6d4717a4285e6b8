/** The contact import file format: a CSV's records as the staged rows of an import job. */
import { Email } from '../lib/formats';
import { dataProblems } from '../lib/contactData';
import { CsvSyntaxError } from '../lib/csv';
import type { ImportRowPayload, StagedRow } from '../db/jobs';

/** The file as a whole cannot be imported (no header, no `email` column, bad column names, open quote). */
export class ImportFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

interface ImportColumns {
  email: number;
  subscribed?: number;
  /** [cell index, data key]; columns with an empty name are skipped. */
  data: [number, string][];
  width: number;
}

const SUBSCRIBED: Record<string, boolean> = { true: true, false: false, '1': true, '0': false, yes: true, no: false };
const hasNul = (s: string) => s.includes('\u0000');

/** `email` and `subscribed` are matched case-insensitively; every other column is a data key, as written. */
function importColumns(header: string[]): ImportColumns {
  const names = header.map((h) => h.trim());
  const problems: string[] = [];
  const find = (name: string) => {
    const at = names.flatMap((n, i) => (n.toLowerCase() === name ? [i] : []));
    if (at.length > 1) problems.push(`the header has more than one "${name}" column`);
    return at[0];
  };
  const email = find('email');
  const subscribed = find('subscribed');
  if (email === undefined) problems.push('the header row has no "email" column');
  const data: [number, string][] = names.flatMap((n, i) => (i === email || i === subscribed || n === '' ? [] : [[i, n] as [number, string]]));
  const seen = new Set<string>();
  for (const [, key] of data) {
    if (seen.has(key)) problems.push(`the header has more than one "${key}" column`);
    if (hasNul(key)) problems.push('column names may not contain NUL characters');
    seen.add(key);
  }
  // The same limits as any `data` payload, checked once for the whole file instead of per row.
  for (const p of dataProblems(Object.fromEntries(data.map(([, key]) => [key, ''])))) {
    problems.push(p.path.length ? `column "${p.path.join('.')}": ${p.message}` : `data columns: ${p.message}`);
  }
  if (problems.length) throw new ImportFileError([...new Set(problems)]);
  return { email: email!, subscribed, data, width: header.length };
}

/** One record as the contact to upsert, or the reason it is a row error. */
function importPayload(columns: ImportColumns, cells: string[]): ImportRowPayload {
  if (cells.slice(columns.width).some((c) => c !== '')) return { error: `the row has ${cells.length} cells but the header has ${columns.width}` };
  if (cells.some(hasNul)) return { error: 'the row contains a NUL character' };
  const rawEmail = (cells[columns.email] ?? '').trim();
  if (rawEmail === '') return { error: 'email is required' };
  const email = Email.safeParse(rawEmail);
  if (!email.success) return { error: 'email is not a valid email address' };
  let subscribed: boolean | undefined;
  const rawSubscribed = columns.subscribed === undefined ? '' : (cells[columns.subscribed] ?? '').trim().toLowerCase();
  if (rawSubscribed !== '') {
    subscribed = SUBSCRIBED[rawSubscribed];
    if (subscribed === undefined) return { error: 'subscribed must be one of true, false, 1, 0, yes, no' };
  }
  // Cells stay strings (a zip code "02134" must not become a number); "" is ignored by the data rules.
  const data = Object.fromEntries(columns.data.map(([i, key]) => [key, cells[i] ?? '']));
  return subscribed === undefined ? { email: email.data, data } : { email: email.data, subscribed, data };
}

const isBlank = (cells: string[]) => cells.every((c) => c === '');

/**
 * The staged rows of an import, from its CSV records. Row numbers are record numbers with the
 * header as 1, so they match a spreadsheet's row numbers; blank records are skipped but counted.
 */
export async function* importRows(records: AsyncIterable<string[]>): AsyncGenerator<StagedRow> {
  let columns: ImportColumns | undefined;
  let rowNumber = 0;
  try {
    for await (const cells of records) {
      rowNumber++;
      if (!columns) columns = importColumns(cells);
      else if (!isBlank(cells)) yield { rowNumber, payload: importPayload(columns, cells) };
    }
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new ImportFileError([`record ${err.record} has a quoted field that is never closed`]);
    throw err;
  }
  if (!columns) throw new ImportFileError(['the file is empty: a header row with an "email" column is required']);
}
