import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { insertEmail } from '../db/emails';
import { startDelivery } from './deliveries';
import type { TemporalGateway } from './temporal';
import { uuid } from '../lib/ids';

export interface SystemEmail {
  to: string;
  subject: string;
  /** HTML Liquid source; values go in `variables`, so user-supplied text is escaped and never parsed as a template. */
  body: string;
  variables: Record<string, unknown>;
}

/**
 * Mail from the server itself, through the same rows and `deliverEmail` workflow as any send. It
 * belongs to no project, so it counts towards no project's consumption or bounce rate.
 */
export async function sendSystemEmail(deps: { config: Config; knex: Knex; temporal: TemporalGateway; log: Logger }, m: SystemEmail): Promise<string> {
  const id = uuid();
  // emails.project_id is nullable since migration 010; the row type still names the common case.
  const projectId = null as unknown as string;
  await insertEmail(deps.knex, {
    id,
    projectId,
    contactId: null,
    type: 'TRANSACTIONAL',
    to: { email: m.to },
    from: { email: deps.config.systemEmailFrom },
    subject: m.subject,
    body: m.body,
    variables: m.variables,
  });
  try {
    await startDelivery(deps.temporal, { id, projectId, contactId: null, source: 'system email' });
  } catch (err) {
    // The row is committed: the maintenance sweep starts deliveries that never got their workflow.
    deps.log.warn({ err, emailId: id }, 'system email queued; delivery start deferred to the maintenance sweep');
  }
  return id;
}
