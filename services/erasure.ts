import type { AuditWho } from './audit';
import { recordAudit } from '../db/auditLog';
import type { Knex } from 'knex';
import type { TemporalGateway } from './temporal';
import { cancelWorkflow } from './temporal';
import { DomainError } from '../lib/domainErrors';
import { normalizeAddress } from '../db/suppressions';
import { eraseRows, findContactErasure, lockContactForErasure, markErasureCancelled, pendingErasures } from '../db/erasure';
import { executionWorkflowId } from '../temporal/workflows/workflowExecution/start';

/**
 * Erasure (docs/privacy.md "Erasure"): one Postgres transaction per person, then the cancellation
 * of the person's running executions in Temporal.
 *
 * Why not a workflow: what is erased is bounded by one person (their emails, events, executions,
 * messages), a few thousand rows at most, which one transaction rewrites in well under a second —
 * and a transaction is all-or-nothing, where a workflow's batches would leave a half-erased person
 * (and would need the address somewhere durable to carry on from, which is what is being removed).
 * Temporal holds nothing to erase (no address is in any payload: test/integration/erasure.test.ts
 * greps the histories), so its part is only the cancellations, which are idempotent and come after
 * the commit. Their list is kept in `contact_erasures` (no personal data) until they are all done,
 * so a crash in between is finished by a repeated request or by the maintenance sweep.
 */

interface Deps {
  knex: Knex;
  temporal: TemporalGateway;
}

/** Who asked: a dashboard user's id or the secret key (for the audit entry). */

export interface ErasedAddresses {
  /** Addresses erased (unique, lowercase). */
  addresses: number;
  /** Of those, how many were contacts of the project. */
  contacts: number;
}

/**
 * Where the erasure's audit entry goes (issue 30 §7, db/auditLog.ts, built separately): called in
 * the erasing transaction, so the entry commits with the erasure or not at all. It must hold no
 * personal data: the contact's former id (or the number of addresses), never an address.
 */
export async function recordErasureAudit(
  trx: Knex,
  entry: { projectId: string; actor: AuditWho; contactId: string | null; details?: Record<string, unknown> },
): Promise<void> {
  await recordAudit(trx, {
    projectId: entry.projectId,
    actor: entry.actor.actor,
    ip: entry.actor.ip,
    action: 'contact.erase',
    target: { type: 'contact', id: entry.contactId },
    details: entry.details ?? null,
  });
}

/** Erases one address in its own transaction; the contact's id when it was one. */
async function eraseOne(deps: Deps, projectId: string, by: { id: string } | { email: string }, actor: AuditWho): Promise<string | null | undefined> {
  return deps.knex.transaction(async (trx) => {
    const contact = await lockContactForErasure(trx, projectId, by);
    if (!contact && 'id' in by) return undefined;
    const email = contact?.email ?? (by as { email: string }).email;
    await eraseRows(trx, { projectId, email, contactId: contact?.id ?? null });
    await recordErasureAudit(trx, { projectId, actor, contactId: contact?.id ?? null });
    return contact?.id ?? null;
  });
}

/**
 * `DELETE /contacts/:id?erase=true`. Repeating it for a contact already erased is not an error: it
 * only finishes the cancellations (a crash between the commit and them); an id the project never
 * erased is not found.
 */
export async function eraseContact(deps: Deps, projectId: string, contactId: string, actor: AuditWho): Promise<void> {
  const erased = await eraseOne(deps, projectId, { id: contactId }, actor);
  if (erased === undefined) {
    if (!(await findContactErasure(deps.knex, projectId, contactId))) throw new DomainError('not_found', 'Contact not found');
    // Asked again: nothing is left to erase, but the request is recorded as every erasure request is.
    await recordErasureAudit(deps.knex, { projectId, actor, contactId, details: { repeated: true } });
  }
  await cancelErasedExecutions(deps, projectId, contactId);
}

/** `POST /contacts/erase`: addresses, contacts of the project or not (a suppressed address, a former recipient). */
export async function eraseAddresses(deps: Deps, projectId: string, emails: string[], actor: AuditWho): Promise<ErasedAddresses> {
  const unique = [...new Set(emails.map(normalizeAddress))];
  let contacts = 0;
  for (const email of unique) {
    const contactId = await eraseOne(deps, projectId, { email }, actor);
    if (!contactId) continue;
    contacts++;
    await cancelErasedExecutions(deps, projectId, contactId);
  }
  return { addresses: unique.length, contacts };
}

/**
 * Cancels the workflows of the erased contact's executions that were running: those the erasing
 * transaction listed, and any Temporal still lists under the contact's id (search attribute
 * ContactId; one started in the instant before the erasure). Cancelling an ended or unknown
 * workflow is a no-op, so this may run any number of times. Their rows are gone already: a cancelled
 * execution's last write finds nothing to update.
 */
export async function cancelErasedExecutions(deps: Deps, projectId: string, contactId: string): Promise<void> {
  const ledger = await findContactErasure(deps.knex, projectId, contactId);
  if (!ledger) return;
  for (const id of ledger.executions) await cancelWorkflow(deps.temporal, executionWorkflowId(id));
  // Ids are `cnt_` and letters and digits (lib/ids); anything else must not reach the query string.
  if (!/^cnt_[0-9A-Za-z]+$/.test(contactId)) throw new Error(`unexpected contact id ${JSON.stringify(contactId)}`);
  const client = await deps.temporal.client();
  for await (const wf of client.workflow.list({ query: `ContactId = "${contactId}" AND ExecutionStatus = "Running"` })) {
    await cancelWorkflow(deps.temporal, wf.workflowId, wf.runId);
  }
  await markErasureCancelled(deps.knex, projectId, contactId);
}

/** The maintenance sweep: erasures whose cancellations a crash interrupted. */
export async function resumeErasures(deps: Deps, olderThanSeconds = 60, limit = 100): Promise<number> {
  const pending = await pendingErasures(deps.knex, olderThanSeconds, limit);
  for (const e of pending) await cancelErasedExecutions(deps, e.project_id, e.contact_id);
  return pending.length;
}
