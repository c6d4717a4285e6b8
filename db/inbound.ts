import type { Knex } from 'knex';
import { type TimeCursor, type TimePage, timePage } from './eventQueries';
import { timeKeySql } from './cursors';

/** Mail the inbound SMTP server accepted (migration 032; docs/inbound.md). */

export const INBOUND_KINDS = ['HARD_BOUNCE', 'SOFT_BOUNCE', 'COMPLAINT', 'REPORT', 'MESSAGE', 'DMARC_FAILED'] as const;
export type InboundKind = (typeof INBOUND_KINDS)[number];

export interface InboundAuth {
  spf: string;
  dkim: string;
  dmarc: string;
}

export interface InboundMessageRow {
  id: string;
  project_id: string;
  kind: InboundKind;
  email_id: string | null;
  contact_id: string | null;
  mail_from: string | null;
  rcpt_to: string[];
  from_address: string | null;
  subject: string | null;
  message_id: string | null;
  in_reply_to: string | null;
  status: string | null;
  diagnostic: string | null;
  auth: InboundAuth | null;
  remote_address: string | null;
  size: number;
  raw: Buffer;
  created_at: Date;
}

export type NewInboundMessage = Omit<InboundMessageRow, 'created_at' | 'auth'> & { auth: InboundAuth | null };

export async function insertInboundMessage(trx: Knex, row: NewInboundMessage): Promise<void> {
  await trx('inbound_messages').insert({ ...row, auth: row.auth ? JSON.stringify(row.auth) : null });
}

/** Mail to postmaster@ (migration 045): the operator's, outside every project. */
export interface NewPostmasterMessage {
  id: string;
  mail_from: string | null;
  rcpt_to: string[];
  from_address: string | null;
  subject: string | null;
  message_id: string | null;
  remote_address: string;
  size: number;
  raw: Buffer;
}

export async function insertPostmasterMessage(trx: Knex, row: NewPostmasterMessage): Promise<void> {
  await trx('postmaster_messages').insert(row);
}

const SUMMARY_COLUMNS = [
  'id',
  'project_id',
  'kind',
  'email_id',
  'contact_id',
  'mail_from',
  'rcpt_to',
  'from_address',
  'subject',
  'message_id',
  'in_reply_to',
  'status',
  'diagnostic',
  'auth',
  'remote_address',
  'size',
  'created_at',
];

/** A message with the address of the contact it matched (null: none, or since erased). */
export type InboundWithContact<R> = R & { contact_email: string | null };

/** The matched contact's address, joined in the project (a contact id of another project never reads across). */
const withContact = (db: Knex) =>
  db('inbound_messages as m').leftJoin('contacts as c', function () {
    this.on('c.id', '=', 'm.contact_id').andOn('c.project_id', '=', 'm.project_id');
  });

/** A project's messages newest first, without their raw bytes (keyset over created_at, id). */
export async function listInboundMessages(
  db: Knex,
  input: { projectId: string; limit: number; kind?: InboundKind; after?: TimeCursor },
): Promise<TimePage<InboundWithContact<Omit<InboundMessageRow, 'raw'>>>> {
  const q = withContact(db)
    .where('m.project_id', input.projectId)
    .select([...SUMMARY_COLUMNS.map((c) => `m.${c}`), 'c.email as contact_email', db.raw(`${timeKeySql('m.created_at')} AS sort_key`)])
    .orderBy([
      { column: 'm.created_at', order: 'desc' },
      { column: 'm.id', order: 'desc' },
    ])
    .limit(input.limit + 1);
  if (input.kind) q.andWhere('m.kind', input.kind);
  if (input.after) q.andWhereRaw('(m.created_at, m.id) < (?::timestamptz, ?::uuid)', [input.after.at, input.after.id]);
  return timePage((await q) as Array<InboundWithContact<Omit<InboundMessageRow, 'raw'>> & { sort_key: string }>, input.limit);
}

export async function findInboundMessage(db: Knex, projectId: string, id: string): Promise<InboundWithContact<InboundMessageRow> | undefined> {
  return withContact(db).where({ 'm.project_id': projectId, 'm.id': id }).first('m.*', 'c.email as contact_email');
}

/**
 * The project that receives mail at `inbound.<domain>`: a VERIFIED sender domain of it. Two
 * projects may verify one domain (with two tokens); the first to verify it receives its mail.
 */
export async function projectForInboundDomain(db: Knex, domain: string): Promise<string | undefined> {
  const row = await db('domains')
    .where({ domain: domain.toLowerCase(), status: 'VERIFIED' })
    .orderBy([{ column: 'verified_at' }, { column: 'id' }])
    .first('project_id');
  return row?.project_id;
}

/** The email a bounce names, with the project it belongs to. */
export async function emailProject(db: Knex, emailId: string): Promise<{ id: string; project_id: string } | undefined> {
  return db('emails').where({ id: emailId }).first('id', 'project_id');
}

/** An email of the project, for a reply whose In-Reply-To or References names its Message-ID. */
export async function projectEmailForReply(db: Knex, projectId: string, emailIds: string[]): Promise<{ id: string; contact_id: string | null } | undefined> {
  if (!emailIds.length) return undefined;
  return db('emails')
    .where({ project_id: projectId })
    .whereIn('id', emailIds)
    .orderByRaw('array_position(?::uuid[], id)', [emailIds])
    .first('id', 'contact_id');
}
