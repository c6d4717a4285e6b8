import type { Knex } from 'knex';

/**
 * Two records the security review asked for (docs/security.md "Round three: names, postmaster,
 * webhook errors"):
 * - `postmaster_messages`: mail to postmaster@ of a domain the inbound server handles (RFC 5321
 *   §4.5.1 requires taking it). It belongs to no project: it is the operator's, read and deleted
 *   with SQL (docs/inbound.md "Mail to postmaster").
 * - `project_members.added_by`: who added a member (directly, or by the invite they accepted), so
 *   the person sees it; null for a project's creator and for memberships older than this column.
 * - `invite_emails.kind`: the "you were added" email is logged beside invitations (`added`), so the
 *   per-address daily bound covers both; the per-project bound stays about invitations.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS postmaster_messages (
      id uuid PRIMARY KEY,
      mail_from text,
      rcpt_to text[] NOT NULL,
      from_address text,
      subject text,
      message_id text,
      remote_address text,
      size integer NOT NULL,
      raw bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS postmaster_messages_time ON postmaster_messages (created_at DESC)');
  await knex.raw('ALTER TABLE project_members ADD COLUMN IF NOT EXISTS added_by uuid REFERENCES users(id) ON DELETE SET NULL');
  await knex.raw(`ALTER TABLE invite_emails ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'invite' CHECK (kind IN ('invite', 'added'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE invite_emails DROP COLUMN IF EXISTS kind');
  await knex.raw('ALTER TABLE project_members DROP COLUMN IF EXISTS added_by');
  await knex.raw('DROP TABLE IF EXISTS postmaster_messages');
}
