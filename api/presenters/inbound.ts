import type { z } from 'zod';
import type { InboundMessageRow, InboundWithContact } from '../../db/inbound';
import { headerFields, splitHeader } from '../../services/inbound/mimeParts';
import type { InboundOut, InboundSummaryOut } from '../schemas/inbound';

export function presentInboundSummary(r: InboundWithContact<Omit<InboundMessageRow, 'raw'>>): z.input<typeof InboundSummaryOut> {
  return {
    id: r.id,
    kind: r.kind,
    emailId: r.email_id,
    contactId: r.contact_id,
    contactEmail: r.contact_email,
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

export function presentInbound(r: InboundWithContact<InboundMessageRow>): z.input<typeof InboundOut> {
  const raw = r.raw.toString('utf8');
  return { ...presentInboundSummary(r), headers: headerFields(splitHeader(raw).header), raw };
}
