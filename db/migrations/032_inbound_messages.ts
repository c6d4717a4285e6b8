import type { Knex } from 'knex';

/**
 * Mail the inbound SMTP server accepted (docs/inbound.md): one row per message and project,
 * committed before the server answers 250, with the raw message (at most INBOUND_MAX_BYTES) for
 * GET /inbound/:id. `kind` says what it was taken for; `email_id` names the email a bounce,
 * complaint or reply is about. A row goes with its contact (erasure) and its project.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS inbound_messages (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('HARD_BOUNCE', 'SOFT_BOUNCE', 'COMPLAINT', 'REPORT', 'MESSAGE', 'DMARC_FAILED')),
      email_id uuid,
      contact_id text REFERENCES contacts(id) ON DELETE CASCADE,
      mail_from text,
      rcpt_to text[] NOT NULL,
      from_address text,
      subject text,
      message_id text,
      in_reply_to text,
      status text,
      diagnostic text,
      auth jsonb,
      remote_address text,
      size integer NOT NULL,
      raw bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  // GET /inbound lists a project's messages newest first.
  await knex.raw('CREATE INDEX IF NOT EXISTS inbound_messages_project_time ON inbound_messages (project_id, created_at DESC, id DESC)');
  await knex.raw('CREATE INDEX IF NOT EXISTS inbound_messages_contact ON inbound_messages (contact_id) WHERE contact_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS inbound_messages');
}
