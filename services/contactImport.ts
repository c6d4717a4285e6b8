/** The contact import file format: a CSV's records as the staged rows of an import job. */
import { Email } from '../lib/formats';
import { dataProblems, type FieldEntry, type FieldType } from '../lib/contactData';
import { convertCell, guessType } from '../lib/importTypes';
import { type ImportRowProblem, importRowMessage } from '../lib/importRowWords';
import { CsvSyntaxError } from '../lib/csv';
import type { ImportRowPayload, StagedRow } from '../db/jobs';
import { normalizeEmail } from '../db/users';

/** The file as a whole cannot be imported (no header, no `email` column, bad column names, open quote). */
export class ImportFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** One column of the mapping step (POST /contacts/import `mapping`): renamed, typed or skipped. */
export interface ColumnMapping {
  /** The column's name in the header row, as written (surrounding spaces ignored). */
  column: string;
  /** Where it goes: `email`, `subscribed` or a data key; the column's own name when absent. */
  key?: string;
  /** How a data column's cells are stored; text (as without a mapping) when absent. */
  type?: FieldType;
  skip?: boolean;
}

interface DataColumn {
  index: number;
  /** The header's name for it, which row errors use: that is what the person sees in the file. */
  column: string;
  key: string;
  type: FieldType;
}

interface ImportColumns {
  email: number;
  subscribed?: number;
  /** Columns with an empty name and skipped columns are left out. */
  data: DataColumn[];
  width: number;
  /** The types the mapping declared for data keys, registered with the job (db/fields). */
  declared: FieldEntry[];
}

const SUBSCRIBED: Record<string, boolean> = { true: true, false: false, '1': true, '0': false, yes: true, no: false };
const hasNul = (s: string) => s.includes('\u0000');
const CORE = new Set(['email', 'subscribed']);

/** Each header cell's mapping entry (or none); problems for entries naming no single column. */
function mappingByIndex(names: string[], mapping: ColumnMapping[], problems: string[]): (ColumnMapping | undefined)[] {
  const out: (ColumnMapping | undefined)[] = names.map(() => undefined);
  for (const m of mapping) {
    const column = m.column.trim();
    const at = names.flatMap((n, i) => (n === column ? [i] : []));
    if (at.length === 0) problems.push(`the mapping names column "${column}", which the header row does not have`);
    else if (out[at[0]]) problems.push(`the mapping names column "${column}" more than once`);
    else out[at[0]] = m;
  }
  return out;
}

/**
 * `email` and `subscribed` are matched case-insensitively; every other column is a data key, as
 * written. A mapping renames (`key`), types (`type`) or skips columns before those rules apply.
 */
function importColumns(header: string[], mapping: ColumnMapping[] | undefined): ImportColumns {
  const names = header.map((h) => h.trim());
  const problems: string[] = [];
  const entries = mapping ? mappingByIndex(names, mapping, problems) : names.map(() => undefined);
  const targets = names.map((n, i) => {
    const m = entries[i];
    if (m?.skip || (!m && n === '')) return null;
    const key = m?.key?.trim() || n;
    return CORE.has(key.toLowerCase()) ? { core: key.toLowerCase(), key, type: undefined } : { core: null, key, type: m?.type };
  });
  const find = (name: string) => {
    const at = targets.flatMap((t, i) => (t?.core === name ? [i] : []));
    if (at.length > 1) problems.push(`the header has more than one "${name}" column`);
    return at[0];
  };
  const email = find('email');
  const subscribed = find('subscribed');
  if (email === undefined) problems.push('the header row has no "email" column');
  const data: DataColumn[] = targets.flatMap((t, index) => (t && !t.core ? [{ index, column: names[index], key: t.key, type: t.type ?? 'string' }] : []));
  const seen = new Set<string>();
  for (const { key } of data) {
    if (seen.has(key)) problems.push(`the header has more than one "${key}" column`);
    if (hasNul(key)) problems.push('column names may not contain NUL characters');
    seen.add(key);
  }
  // The same limits as any `data` payload, checked once for the whole file instead of per row.
  for (const p of dataProblems(Object.fromEntries(data.map(({ key }) => [key, ''])))) {
    problems.push(p.path.length ? `column "${p.path.join('.')}": ${p.message}` : `data columns: ${p.message}`);
  }
  if (problems.length) throw new ImportFileError([...new Set(problems)]);
  const declared = data.flatMap((c, i) => (targets[c.index]?.type ? [{ key: c.key, type: data[i].type }] : []));
  return { email: email!, subscribed, data, width: header.length, declared };
}

const cut = (raw: string) => (raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);

/** A row error: its English message, and its parts for a reader of another language (lib/importRowWords.ts). */
const rowError = (problem: ImportRowProblem) => ({ error: importRowMessage(problem), problem });

/** The row's `data`: text cells as written, typed cells converted; the first misfit is the row's error. */
function rowData(columns: ImportColumns, cells: string[]): { data: Record<string, unknown> } | { error: string; problem: ImportRowProblem } {
  const data: Record<string, unknown> = {};
  for (const { index, column, key, type } of columns.data) {
    const raw = cells[index] ?? '';
    // "" is ignored by the data rules (the contact keeps its value), whatever the column's type.
    if (raw.trim() === '' || type === 'string') {
      data[key] = type === 'string' ? raw : '';
      continue;
    }
    const cell = convertCell(type, raw);
    if ('problem' in cell) return rowError({ kind: 'misfit', column, value: cut(raw), type });
    data[key] = cell.value;
  }
  return { data };
}

/** One record as the contact to upsert, or the reason it is a row error. */
function importPayload(columns: ImportColumns, cells: string[]): ImportRowPayload {
  if (cells.slice(columns.width).some((c) => c !== '')) return rowError({ kind: 'cellCount', cells: cells.length, width: columns.width });
  if (cells.some(hasNul)) return rowError({ kind: 'nul' });
  const rawEmail = (cells[columns.email] ?? '').trim();
  if (rawEmail === '') return rowError({ kind: 'emailRequired' });
  const email = Email.safeParse(rawEmail);
  if (!email.success) return rowError({ kind: 'emailInvalid' });
  let subscribed: boolean | undefined;
  const rawSubscribed = columns.subscribed === undefined ? '' : (cells[columns.subscribed] ?? '').trim().toLowerCase();
  if (rawSubscribed !== '') {
    subscribed = SUBSCRIBED[rawSubscribed];
    if (subscribed === undefined) return rowError({ kind: 'subscribedInvalid' });
  }
  // Without a type, cells stay strings (a zip code "02134" must not become a number).
  const typed = rowData(columns, cells);
  if ('error' in typed) return typed;
  // Staged as the contact's key (the writer normalises the same way): an import's lanes split rows
  // by this text, so "A@x.test" and "a@x.test" must land in one lane, in row order.
  const key = normalizeEmail(email.data);
  return subscribed === undefined ? { email: key, data: typed.data } : { email: key, subscribed, data: typed.data };
}

const isBlank = (cells: string[]) => cells.every((c) => c === '');

/**
 * The staged rows of an import, from its CSV records. Row numbers are record numbers with the
 * header as 1, so they match a spreadsheet's row numbers; blank records are skipped but counted.
 */
export async function* importRows(
  records: AsyncIterable<string[]>,
  mapping?: ColumnMapping[],
  onColumns?: (declared: FieldEntry[]) => void,
): AsyncGenerator<StagedRow> {
  let columns: ImportColumns | undefined;
  let rowNumber = 0;
  try {
    for await (const cells of records) {
      rowNumber++;
      if (!columns) {
        columns = importColumns(cells, mapping);
        onColumns?.(columns.declared);
      } else if (!isBlank(cells)) yield { rowNumber, payload: importPayload(columns, cells) };
    }
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new ImportFileError([`record ${err.record} has a quoted field that is never closed`]);
    throw err;
  }
  if (!columns) throw new ImportFileError(['the file is empty: a header row with an "email" column is required']);
}

export interface ImportPreview {
  columns: { column: string; key: string; type: FieldType; samples: string[] }[];
  /** The first records after the header, as written. */
  rows: string[][];
}

/**
 * What the mapping step shows: the header, the first rows, and each column's suggested type,
 * guessed from up to `sampled` records (the file is not read past them).
 */
export async function previewImport(records: AsyncIterable<string[]>, shown = 5, sampled = 200): Promise<ImportPreview> {
  let header: string[] | undefined;
  const rows: string[][] = [];
  try {
    for await (const cells of records) {
      if (!header) header = cells.map((c) => c.trim());
      else if (!isBlank(cells)) rows.push(cells);
      if (rows.length >= sampled) break;
    }
  } catch (err) {
    if (!(err instanceof CsvSyntaxError)) throw err;
    if (!header) throw new ImportFileError([`record ${err.record} has a quoted field that is never closed`]);
  }
  if (!header) throw new ImportFileError(['the file is empty: a header row with an "email" column is required']);
  const columns = header.map((column, i) => {
    const values = rows.map((r) => r[i] ?? '');
    const core = CORE.has(column.toLowerCase());
    return { column, key: core ? column.toLowerCase() : column, type: core ? ('string' as const) : guessType(values), samples: values.slice(0, shown) };
  });
  return { columns, rows: rows.slice(0, shown) };
}
