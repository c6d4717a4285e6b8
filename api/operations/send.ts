import { senderCheckWaived } from '../../lib/config';
import type { Deps } from '../context';
import type { z } from 'zod';
import type { SendBody, SendOut } from '../schemas/send';
import { validationError } from '../errors';
import type { Knex } from 'knex';
import { assertVerifiedSenderReadingLimits } from '../../services/senderCheck';
import { assertWithinLimits } from '../../services/billingLimits';
import { upsertContactWith } from '../../db/contacts';
import { findTemplate } from '../../db/templates';
import { insertAttachments, linkedEmail, EmailType } from '../../db/emails';
import { checkTemplate } from '../../services/render';
import type { RoutableEvent } from '../../services/events';
import { uuid } from '../../lib/ids';
import { normalizeEmail } from '../../db/users';
import { topicChanges } from '../../db/topics';

/** One recipient's entry of the reply (`SendOut`). */
export type SentEmail = z.infer<typeof SendOut>['data']['emails'][number];

type Address = { email: string; name?: string };
const asAddress = (a: string | Address): Address => (typeof a === 'string' ? { email: a } : a);

/** What the request asks to send, with the template's fields where the request leaves them out. */
async function resolveContent(deps: Pick<Deps, 'knex'>, projectId: string, body: SendBody) {
  const template = body.template ? await findTemplate(deps.knex, projectId, body.template) : undefined;
  if (body.template && !template) throw validationError([{ field: 'template', code: 'custom', message: 'Template not found in this project' }]);
  const requestFrom = body.from ? asAddress(body.from) : undefined;
  const from: Address | undefined = requestFrom
    ? { email: requestFrom.email, name: requestFrom.name ?? (typeof body.from === 'string' ? body.name : undefined) }
    : template
      ? { email: template.from, name: template.from_name ?? undefined }
      : undefined;
  if (!from) throw validationError([{ field: 'from', code: 'custom', message: 'from is required unless the template has one' }]);
  const subject = body.subject ?? template!.subject;
  const html = body.body ?? template!.body;
  // A template's text describes the template's body: with a body of the request's own, the part
  // is generated from that body unless the request gives its text too.
  const text = body.text ?? (body.body === undefined ? (template?.text ?? null) : null);
  for (const [field, source] of [
    ['subject', subject],
    ['body', html],
    ['text', text],
  ] as const) {
    if (source === null) continue;
    const problem = checkTemplate(source);
    if (problem) throw validationError([{ field, code: 'custom', message: `${field} is not a valid template: ${problem}` }], 'Template could not be parsed');
  }
  return {
    template,
    from,
    subject,
    html,
    text,
    replyTo: body.reply ?? template?.reply_to ?? null,
    type: (template?.type ?? 'TRANSACTIONAL') as EmailType,
  };
}

const compareAddresses = (a: string, b: string) => {
  const [x, y] = [normalizeEmail(a), normalizeEmail(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * POST /v1/send: each recipient in turn gets its own contact upsert and its own email row; the
 * rows are delivered by the `deliverEmailBatch` workflow the batcher placed the request in
 * (services/deliveryBatcher.ts), named on each row. The call returns once the rows committed:
 * the batch starts a few milliseconds later, and the maintenance sweep starts any a crash left.
 */
export async function sendEmails(
  deps: Pick<Deps, 'knex' | 'temporal' | 'log' | 'config' | 'runtime'>,
  projectId: string,
  body: SendBody,
): Promise<SentEmail[]> {
  const content = await resolveContent(deps, projectId, body);
  const limits = await assertVerifiedSenderReadingLimits(deps.knex, projectId, content.from.email, senderCheckWaived(deps.config));
  const recipients = (Array.isArray(body.to) ? body.to : [body.to]).map(asAddress);
  await assertWithinLimits(deps.knex, projectId, { emails: recipients.length }, limits);
  const topics = await topicChanges(deps.knex, projectId, body.topics);
  // All recipients commit together, each with its own upsert and email row: a request that fails
  // leaves nothing behind, so a client retrying after a 5xx cannot double-send to earlier recipients.
  // Each contact and its email are one statement, so a single recipient without attachments needs
  // no transaction of its own.
  // Contacts are written in address order, not request order: two requests naming the same
  // recipients in opposite orders would otherwise lock their rows crosswise and deadlock. The
  // answer keeps the request's order.
  const byAddress = recipients.map((to, i) => ({ to, i })).sort((a, b) => compareAddresses(a.to.email, b.to.email));
  const write = async (db: Knex) => {
    const rows: Array<{ emailId: string; contact: { id: string; email: string }; emitted: RoutableEvent[] }> = new Array(recipients.length);
    for (const { to, i } of byAddress) {
      const emailId = uuid();
      const c = await upsertContactWith(
        db,
        { projectId, email: to.email, subscribed: body.subscribed, data: body.data, defaultSubscribed: false, source: 'send', topics },
        linkedEmail({
          id: emailId,
          projectId,
          templateId: content.template?.id ?? null,
          type: content.type,
          toName: to.name,
          from: content.from,
          replyTo: content.replyTo,
          subject: content.subject,
          body: content.html,
          text: content.text,
          headers: body.headers,
          deliveryWorkflow: ticket.workflowId,
          track: body.track,
        }),
      );
      await insertAttachments(db, emailId, body.attachments);
      rows[i] = { emailId, contact: { id: c.contact.id, email: c.contact.email }, emitted: c.events };
    }
    return rows;
  };
  // The place is taken before the rows are written, so they can name their batch; the batch waits
  // for this request to commit or fail before it starts.
  const ticket = deps.runtime.deliveries.reserve(projectId, recipients.length);
  let written: Awaited<ReturnType<typeof write>> = [];
  try {
    written = recipients.length === 1 && !body.attachments?.length ? await write(deps.knex) : await deps.knex.transaction(write);
  } finally {
    ticket.settle(written.map((w) => w.emailId));
  }
  await Promise.all(written.map((w) => deps.runtime.events.handOff(w.emitted)));
  return written.map((w) => ({ contact: w.contact, email: w.emailId }));
}
