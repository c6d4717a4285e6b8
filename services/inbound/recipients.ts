import type { Knex } from 'knex';
import type { Config } from '../../lib/config';
import { emailIdOfReturnPath } from '../../lib/verp';
import { emailProject, projectForInboundDomain } from '../../db/inbound';
import { senderDomainCandidates } from '../../db/domains';

/**
 * Whose an envelope recipient is. The server is never a relay: an address that is neither a VERP
 * return path we signed (for an email that exists) nor `<anything>@inbound.<verified domain>` is
 * refused at RCPT.
 */
export type InboundTarget = { kind: 'bounce'; projectId: string; emailId: string } | { kind: 'project'; projectId: string };

export const INBOUND_LABEL = 'inbound.';

export async function resolveRecipient(deps: { knex: Knex; config: Pick<Config, 'jwtSecret'> }, address: string): Promise<InboundTarget | null> {
  const emailId = emailIdOfReturnPath(deps.config.jwtSecret, address);
  if (emailId) {
    const email = await emailProject(deps.knex, emailId);
    return email ? { kind: 'bounce', projectId: email.project_id, emailId } : null;
  }
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1).toLowerCase();
  if (at < 1 || !domain.startsWith(INBOUND_LABEL)) return null;
  // A verified domain covers its subdomains for sending, so `inbound.mail.example.com` belongs to the owner of example.com too.
  for (const candidate of senderDomainCandidates(`x@${domain.slice(INBOUND_LABEL.length)}`)) {
    const projectId = await projectForInboundDomain(deps.knex, candidate);
    if (projectId) return { kind: 'project', projectId };
  }
  return null;
}
