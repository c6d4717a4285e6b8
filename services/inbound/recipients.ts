import type { Knex } from 'knex';
import type { Config } from '../../lib/config';
import { emailIdOfReturnPath } from '../../lib/verp';
import { emailProject, projectForInboundDomain } from '../../db/inbound';
import { senderDomainCandidates } from '../../db/domains';

/**
 * Whose an envelope recipient is. The server is never a relay: an address that is neither a VERP
 * return path we signed (for an email that exists), nor `<anything>@inbound.<verified domain>`,
 * nor postmaster of a domain the server handles, is refused at RCPT.
 */
export type InboundTarget =
  | { kind: 'bounce'; projectId: string; emailId: string }
  | { kind: 'project'; projectId: string }
  /** Mail to postmaster: the operator's (RFC 5321 §4.5.1), never a project's. */
  | { kind: 'postmaster' };

export const INBOUND_LABEL = 'inbound.';
export const BOUNCES_LABEL = 'bounces.';

type Deps = { knex: Knex; config: Pick<Config, 'jwtSecret'> & { inbound: Pick<Config['inbound'], 'mxHost' | 'bounceDomain'> } };

/** The project whose verified domain (or a parent of it) `domain` is under `label`: `inbound.mail.example.com` belongs to the owner of example.com. */
async function projectUnder(knex: Knex, domain: string, label: string): Promise<string | undefined> {
  if (!domain.startsWith(label)) return undefined;
  for (const candidate of senderDomainCandidates(`x@${domain.slice(label.length)}`)) {
    const projectId = await projectForInboundDomain(knex, candidate);
    if (projectId) return projectId;
  }
  return undefined;
}

/**
 * Whether the server handles mail for `domain`: its own MX name, the BOUNCE_DOMAIN, and the
 * `inbound.` and `bounces.` names of verified domains (the MX records docs/inbound.md lists).
 */
async function handlesDomain(deps: Deps, domain: string): Promise<boolean> {
  const own = [deps.config.inbound.mxHost, deps.config.inbound.bounceDomain].filter(Boolean).map((d) => d!.toLowerCase().replace(/\.$/, ''));
  if (own.includes(domain)) return true;
  return !!((await projectUnder(deps.knex, domain, INBOUND_LABEL)) ?? (await projectUnder(deps.knex, domain, BOUNCES_LABEL)));
}

export async function resolveRecipient(deps: Deps, address: string): Promise<InboundTarget | null> {
  const at = address.lastIndexOf('@');
  const local = (at < 0 ? address : address.slice(0, at)).toLowerCase();
  const domain =
    at < 0
      ? ''
      : address
          .slice(at + 1)
          .toLowerCase()
          .replace(/\.$/, '');
  // RFC 5321 §4.5.1: postmaster (any case) of every domain the server takes mail for, and bare `<postmaster>`, must be accepted.
  if (local === 'postmaster') return !domain || (await handlesDomain(deps, domain)) ? { kind: 'postmaster' } : null;
  const emailId = emailIdOfReturnPath(deps.config.jwtSecret, address);
  if (emailId) {
    const email = await emailProject(deps.knex, emailId);
    return email ? { kind: 'bounce', projectId: email.project_id, emailId } : null;
  }
  if (at < 1) return null;
  const projectId = await projectUnder(deps.knex, domain, INBOUND_LABEL);
  return projectId ? { kind: 'project', projectId } : null;
}
