import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { Config } from '../lib/config';
import type { TemporalGateway } from './temporal';
import { startDelivery } from './deliveries';
import { insertEmail } from '../db/emails';
import { findTemplate, publishedContent } from '../db/templates';
import { sendableContent } from '../lib/templateContent';
import { identityVariables } from '../lib/contactData';
import type { ContactRow } from '../db/contactReaders';
import { markPending, type DoubleOptInSettings } from '../db/doubleOptIn';
import { confirmUrlFor } from '../lib/unsubscribe';
import { inTransaction } from '../db/transaction';
import { uuid } from '../lib/ids';
import { DomainError } from '../lib/domainErrors';

/**
 * Double opt-in (docs/api.md "Double opt-in"): the confirmation email of a pending contact, through
 * the ordinary delivery path (an email row and `deliverEmail`), and the pending row it confirms.
 */

export const BUILT_IN_CONFIRMATION = {
  subject: 'Please confirm your subscription',
  body: '<p>Please confirm that you want to receive our emails at {{ email }}.</p>\n<p><a href="{{ confirmUrl }}">Confirm my subscription</a></p>\n<p>If you did not ask for this, ignore this email: you will not be subscribed.</p>',
};

export async function requestConfirmation(
  deps: { knex: Knex; temporal: TemporalGateway; log: Logger; config: Config },
  projectId: string,
  contact: ContactRow,
  settings: DoubleOptInSettings,
): Promise<string> {
  const template = settings.templateId ? await findTemplate(deps.knex, projectId, settings.templateId) : undefined;
  const content = template
    ? { ...sendableContent(publishedContent(template), contact.data?.locale), templateId: template.id }
    : { ...BUILT_IN_CONFIRMATION, text: null, templateId: null };
  const emailId = uuid();
  await inTransaction(deps.knex, async (trx) => {
    await insertEmail(trx, {
      id: emailId,
      projectId,
      contactId: contact.id,
      templateId: content.templateId,
      type: 'TRANSACTIONAL',
      to: { email: contact.email },
      from: { email: settings.from, name: settings.fromName ?? null },
      subject: content.subject,
      body: content.body,
      text: content.text,
      variables: { ...contact.data, ...identityVariables(contact), confirmUrl: confirmUrlFor(deps.config, projectId, contact.id) },
    });
    await markPending(trx, { projectId, contactId: contact.id, emailId, expiryHours: settings.expiryHours });
  });
  try {
    await startDelivery(deps.temporal, { id: emailId, projectId, contactId: contact.id, source: 'double opt-in confirmation' });
  } catch (err) {
    // The row is committed: the maintenance sweep starts deliveries that never got their workflow.
    deps.log.warn({ err, emailId }, 'confirmation email queued; delivery start deferred to the maintenance sweep');
  }
  return emailId;
}

/**
 * The settings a request's `doubleOptIn` resolves to, null when none applies: the request's choice,
 * else the project's `enabled`. Asking for it in a project without settings is a 422.
 */
export function doubleOptInFor(settings: DoubleOptInSettings | null | undefined, asked: boolean | undefined): DoubleOptInSettings | null {
  if (asked === true && !settings) throw new DomainError('invalid', "doubleOptIn needs the project's doubleOptIn settings (PATCH /settings)", 'doubleOptIn');
  if (!settings || asked === false) return null;
  return asked === true || settings.enabled ? settings : null;
}

/**
 * Under double opt-in a request never subscribes directly: `subscribed: true` is held back (a new
 * contact starts unsubscribed), and `confirm` says whether the written contact needs the email.
 */
export const heldSubscription = (doi: DoubleOptInSettings | null, subscribed: boolean | undefined) => (doi && subscribed === true ? undefined : subscribed);

export const needsConfirmation = (
  doi: DoubleOptInSettings | null,
  subscribed: boolean | undefined,
  written: { isNew: boolean; contact: { subscribed: boolean } },
) => !!doi && !written.contact.subscribed && (subscribed === true || (written.isNew && subscribed !== false));
