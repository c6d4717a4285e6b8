import type { z } from 'zod';
import type { ConsentRecordOut } from '../schemas/contacts';
import type { ContactRecordOut } from '../schemas/contactPrivacy';
import type { ConsentRow } from '../../db/consent';
import type { ContactRecord } from '../../services/contactExport';
import { iso } from '../../lib/time';
import { presentContact } from './contacts';
import { presentExecution } from './executions';

/** One change of the consent record (GET /contacts/:id/consent, the contact's export). */
export const presentConsent = (r: ConsentRow): z.input<typeof ConsentRecordOut> => ({
  scope: r.scope,
  topic: r.topic_id ? { id: r.topic_id, slug: r.topic_slug ?? '' } : null,
  value: r.value,
  source: r.source,
  at: new Date(r.at).toISOString(),
  ip: r.ip,
  userAgent: r.user_agent,
});

/** GET /contacts/:id/export: the whole record of one person (docs/privacy.md "Export"). */
export function presentContactRecord(r: ContactRecord): z.input<typeof ContactRecordOut> {
  return {
    exportedAt: new Date().toISOString(),
    contact: { ...presentContact(r.contact), topics: r.topics, pending: r.pending },
    consent: r.consent.map(presentConsent),
    events: r.events.map((e) => ({ id: e.id, name: e.name, data: e.data, createdAt: iso(e.created_at)! })),
    emails: r.emails.map((m) => ({
      id: m.id,
      type: m.type,
      status: m.status,
      from: m.from_email,
      subject: m.rendered_subject ?? m.subject,
      templateId: m.template_id,
      campaignId: m.campaign_id,
      workflowExecutionId: m.workflow_execution_id,
      createdAt: iso(m.created_at)!,
      sentAt: iso(m.sent_at),
      deliveredAt: iso(m.delivered_at),
      openedAt: iso(m.opened_at),
      clickedAt: iso(m.clicked_at),
      bouncedAt: iso(m.bounced_at),
      complainedAt: iso(m.complained_at),
    })),
    executions: r.executions.map((e) => presentExecution(e)),
    inbound: r.inbound.map((m) => ({ id: m.id, kind: m.kind, from: m.from_address, subject: m.subject, emailId: m.email_id, receivedAt: iso(m.created_at)! })),
  };
}
