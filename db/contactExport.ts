import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import { csvLine } from '../lib/csv';
import { registeredFields } from './fields';
import { type FieldTypes, matchingContactsQuery } from './filters';
import type { ContactRow } from './contactReaders';
import type { JobRow, JobRowRecord, RowOutcome } from './jobs';
import type { ConsentRow } from './consent';
import type { EmailRow } from './emails';
import type { ExecutionRow } from './executions';

/**
 * Exports (docs/api.md "Contact export", docs/privacy.md "Export"): the whole record of one contact,
 * and the CSV export job of a project's contacts (an EXPORT job of db/jobs, run by the bulkJob
 * workflow like imports: its staged rows are contact ids, each batch writes their CSV lines).
 */

// ───────────────────────────── one contact's record ─────────────────────────────

export interface ContactRecordRows {
  consent: ConsentRow[];
  events: Array<{ id: string; name: string; data: Record<string, unknown>; created_at: Date }>;
  emails: Array<EmailRow & Record<'delivered_at' | 'opened_at' | 'clicked_at' | 'bounced_at' | 'complained_at', Date | null>>;
  executions: ExecutionRow[];
  inbound: Array<{ id: string; kind: string; from_address: string | null; subject: string | null; email_id: string | null; created_at: Date }>;
}

/** Everything stored about one contact of the project beyond its row, oldest first. */
export async function contactRecordRows(db: Knex, projectId: string, contactId: string): Promise<ContactRecordRows> {
  const of = (table: string) => db(table).where({ project_id: projectId, contact_id: contactId });
  const [consent, events, emails, executions, inbound] = await Promise.all([
    of('consent_records').orderBy('id').select('*'),
    of('events')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('id', 'name', 'data', 'created_at'),
    of('emails')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('*'),
    of('workflow_executions')
      .orderBy([{ column: 'started_at' }, { column: 'id' }])
      .select('*'),
    of('inbound_messages')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('id', 'kind', 'from_address', 'subject', 'email_id', 'created_at'),
  ]);
  return { consent, events, emails, executions, inbound };
}

// ───────────────────────────── the CSV export job ─────────────────────────────

const STANDARD_COLUMNS = ['id', 'email', 'subscribed', 'createdAt', 'updatedAt'] as const;

/** The export's columns: the standard ones, then `data.<path>` for every registered leaf path of the project. */
async function exportColumns(db: Knex, projectId: string): Promise<string[]> {
  const keys = (await registeredFields(db, projectId)).map((f) => f.key);
  // A parent of a registered nested path ("profile" of "profile.tier") would repeat its children.
  const leaves = keys.filter((k) => !keys.some((other) => other.startsWith(`${k}.`)));
  return [...STANDARD_COLUMNS, ...leaves.map((k) => `data.${k}`)];
}

/** A cell: strings as they are, other JSON values as JSON, absent as empty. */
const cell = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function pathValue(data: Record<string, unknown>, path: string[]): unknown {
  let v: unknown = data;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

function contactCells(c: ContactRow, columns: string[]): string[] {
  const standard: Record<(typeof STANDARD_COLUMNS)[number], string> = {
    id: c.id,
    email: c.email,
    subscribed: String(c.subscribed),
    createdAt: new Date(c.created_at).toISOString(),
    updatedAt: new Date(c.updated_at).toISOString(),
  };
  return columns.map((col) => (col.startsWith('data.') ? cell(pathValue(c.data, col.slice(5).split('.'))) : standard[col as keyof typeof standard]));
}

/**
 * Creates a QUEUED export job in one transaction: its columns, the header line (row 0), and one
 * staged row per matching contact in id order (one INSERT … SELECT, so a large project is staged
 * without passing through Node). `filter` absent: every contact.
 */
export async function createExportJob(
  db: Knex,
  projectId: string,
  filter: { tree: unknown; fieldTypes: FieldTypes } | null,
  /** The columns asked for (a saved view's); absent: the standard ones and every registered field. */
  only?: readonly string[],
  /** The contacts' ids when a caller selected them itself (a search: services/contactSelection), in place of `filter`. */
  ids?: AsyncIterable<string>,
): Promise<JobRow> {
  return db.transaction(async (trx) => {
    const id = uuid();
    await trx('jobs').insert({ id, project_id: projectId, type: 'EXPORT' });
    const columns = only?.length ? [...only] : await exportColumns(trx, projectId);
    await trx('contact_exports').insert({ job_id: id, columns: JSON.stringify(columns) });
    await trx('contact_export_lines').insert({ job_id: id, row_number: 0, line: csvLine(columns) });
    if (ids) await stageIds(trx, id, ids);
    else {
      const matching = filter ? matchingContactsQuery(trx, projectId, filter.tree, filter.fieldTypes) : trx({ c: 'contacts' }).where('c.project_id', projectId);
      const staged = matching.select(
        trx.raw('?::uuid AS job_id', [id]),
        trx.raw('row_number() OVER (ORDER BY c.id)::int AS row_number'),
        trx.raw(`jsonb_build_object('contactId', c.id) AS payload`),
      );
      await trx.raw(`INSERT INTO job_rows (job_id, row_number, payload) ${staged.toQuery()}`);
    }
    const [job] = await trx<JobRow>('jobs')
      .where({ id })
      .update({ total: trx.raw('(SELECT count(*) FROM job_rows WHERE job_id = ?)', [id]) })
      .returning('*');
    return job;
  });
}

const STAGE_BATCH = 1000;

/** Stages the given ids as the job's rows 1…n, a thousand per INSERT. */
async function stageIds(trx: Knex.Transaction, jobId: string, ids: AsyncIterable<string>) {
  let batch: Array<{ job_id: string; row_number: number; payload: string }> = [];
  let n = 0;
  for await (const contactId of ids) {
    batch.push({ job_id: jobId, row_number: ++n, payload: JSON.stringify({ contactId }) });
    if (batch.length === STAGE_BATCH) {
      await trx('job_rows').insert(batch);
      batch = [];
    }
  }
  if (batch.length) await trx('job_rows').insert(batch);
}

/**
 * One staged row of an export, in the batch's transaction: the contact's CSV line. A contact deleted
 * since the job was created is skipped (counted as failed, "Contact not found"). A retried batch
 * writes the same line again.
 */
export async function writeExportLine(trx: Knex.Transaction, job: JobRow, row: JobRowRecord<{ contactId: string }>): Promise<RowOutcome> {
  const { contactId } = row.payload;
  const [contact, exp] = await Promise.all([
    trx<ContactRow>('contacts').where({ project_id: job.project_id, id: contactId }).first(),
    trx('contact_exports').where({ job_id: job.id }).first('columns'),
  ]);
  if (!contact) return { ok: false, error: { contactId, message: 'Contact not found' } };
  await trx('contact_export_lines')
    .insert({ job_id: job.id, row_number: row.row_number, line: csvLine(contactCells(contact, exp.columns)) })
    .onConflict(['job_id', 'row_number'])
    .merge();
  return { ok: true };
}

const LINES_PAGE = 2000;

/** The export's file, line by line in row order (header first), read in keyset pages. */
export async function* exportLines(db: Knex, jobId: string): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const page: Array<{ row_number: number; line: string }> = await db('contact_export_lines')
      .where({ job_id: jobId })
      .andWhere('row_number', '>', after)
      .orderBy('row_number')
      .limit(LINES_PAGE)
      .select('row_number', 'line');
    for (const r of page) yield r.line;
    if (page.length < LINES_PAGE) return;
    after = page[page.length - 1].row_number;
  }
}

/** Exports are copies of personal data: a day after they finished, they go (the maintenance sweep). */
export async function pruneContactExports(db: Knex, afterHours = 24): Promise<number> {
  return db('jobs')
    .where({ type: 'EXPORT' })
    .whereNotNull('finished_at')
    .andWhere('finished_at', '<', db.raw(`now() - make_interval(hours => ?)`, [afterHours]))
    .del();
}
