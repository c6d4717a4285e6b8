import type { z } from 'zod';
import type { InboundMessageRow } from '../../db/inbound';
import type { InboundOut, InboundSummaryOut } from '../schemas/inbound';

export function presentInboundSummary(r: Omit<InboundMessageRow, 'raw'>): z.input<typeof InboundSummaryOut> {
  return {
    id: r.id,
    kind: r.kind,
    emailId: r.email_id,
    contactId: r.contact_id,
    mailFrom: r.mail_from,
    to: r.rcpt_to,
    from: r.from_address,
    subject: r.subject,
    messageId: r.message_id,
    inReplyTo: r.in_reply_to,
    status: r.status,
    diagnostic: r.diagnostic,
    auth: r.auth,
    size: r.size,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export function presentInbound(r: InboundMessageRow): z.input<typeof InboundOut> {
  return { ...presentInboundSummary(r), raw: r.raw.toString('utf8') };
}
