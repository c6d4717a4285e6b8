import type { z } from 'zod';
import type { AuditAction, NamedAuditRow } from '../../db/auditLog';
import type { AuditEntryOut } from '../schemas/audit';

export const presentAuditEntry = (r: NamedAuditRow): z.infer<typeof AuditEntryOut> => ({
  id: String(r.id),
  at: new Date(r.at).toISOString(),
  actor: r.actor,
  actorEmail: r.actor_email,
  action: r.action,
  target: { type: r.target_type, id: r.target_id, name: r.target_name },
  contacts: r.contact_emails,
  summary: summarize(r),
  details: r.details,
  ip: r.ip,
});

/** A thing as a sentence names it: its name when known, else its kind and id. */
function thing(kind: string, r: NamedAuditRow): string {
  if (r.target_name) return `${kind} ${r.target_name}`;
  return r.target_id ? `${kind} ${r.target_id}` : kind;
}

const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v));
const count = (n: unknown, one: string, many = `${one}s`) => `${Number(n ?? 0)} ${Number(n) === 1 ? one : many}`;

/** The contacts an entry names by address (erased ones drop out), or how many addresses it concerned. */
function addresses(r: NamedAuditRow, n: unknown): string {
  const named = r.contact_emails.length ? ` (${r.contact_emails.join(', ')})` : '';
  return `${count(n, 'address', 'addresses')}${named}`;
}

/**
 * One line a person reads in the audit screen, from the action, the names and the details
 * (the details stay in the entry for anyone who wants all of them).
 */
const SUMMARIES: Record<AuditAction, (r: NamedAuditRow, d: Record<string, any>) => string> = {
  'project.create': (r) => `Created ${thing('project', r)}`,
  'keys.rotate': () => 'Rotated the API keys',
  'api_key.create': (r, d) => `Created ${thing('API key', r)} (${d.prefix}…) with scopes ${list(d.scopes)}`,
  'api_key.revoke': (r, d) => `Revoked ${thing('API key', r)} (${d.prefix}…)`,
  'project.update': (_, d) => `Changed the project (${list(d.changed)})`,
  'project.require_two_factor': (_, d) => (d.requireTwoFactor ? 'Required two-factor authentication of every member' : 'Lifted the two-factor requirement'),
  'tracking_domain.set': (_, d) => `Set the tracking domain to ${d.domain}`,
  'tracking_domain.delete': () => 'Removed the tracking domain',
  'project.reset': () => 'Reset the project: its data was wiped',
  'settings.update': (_, d) => `Changed the settings (${list(d.changed)})`,
  'billing.limits': (_, d) => `Set billing limits: emails ${d.emails ?? 'no cap'}, contacts ${d.contacts ?? 'no cap'}`,
  'member.add': (r, d) => `Added ${thing('member', r)} as ${d.role}`,
  'member.invite': (r, d) => `Invited ${r.target_name ?? 'someone'} as ${d.role}`,
  'member.role': (r, d) => `Changed the role of ${thing('member', r)} to ${d.role}`,
  'member.remove': (r, d) => `Removed ${thing('member', r)} (${d.role})`,
  'invite.withdraw': (r) => (r.target_name ? `Withdrew the invite of ${r.target_name}` : 'Withdrew an invite'),
  'domain.create': (r) => `Added ${thing('domain', r)}`,
  'domain.delete': (r) => `Deleted ${thing('domain', r)}`,
  'contact.delete': (r) => `Deleted ${thing('contact', r)}`,
  'contact.erase': (r) => (r.target_id ? `Erased contact ${r.target_id}` : 'Erased an address that was not a contact'),
  'contact.export': (r) => (r.target_id ? `Exported the record of ${thing('contact', r)}` : "Exported the project's contacts (CSV)"),
  'contact.import': (_, d) => `Imported contacts from a CSV file (${count(d.contacts, 'row')})`,
  'contact.bulk_subscribe': (_, d) => `Subscribed ${count(d.contacts, 'contact')} in bulk`,
  'contact.bulk_unsubscribe': (_, d) => `Unsubscribed ${count(d.contacts, 'contact')} in bulk`,
  'contact.bulk_delete': (_, d) => `Deleted ${count(d.contacts, 'contact')} in bulk`,
  'contact_field.delete': (r) => `Deleted the contact field ${r.target_id}`,
  'contact_view.create': (r) => `Saved ${thing('contact view', r)}`,
  'contact_view.update': (r, d) => `Changed ${thing('contact view', r)} (${list(d.changed)})`,
  'contact_view.delete': (r) => `Deleted ${thing('contact view', r)}`,
  'event.delete': (r) => `Deleted every event named ${r.target_id}`,
  'suppression.add': (r, d) =>
    `Suppressed ${addresses(r, d.added)} (${d.reason})${d.existing ? `; ${count(d.existing, 'was', 'were')} already suppressed` : ''}`,
  'suppression.remove': (r, d) => `Lifted the suppression of ${addresses(r, d.removed)}`,
  'template.create': (r, d) => `Created ${thing('template', r)}${d.duplicateOf ? ' (a copy)' : ''}`,
  'template.update': (r, d) => `Changed ${thing('template', r)} (${list(d.changed)})`,
  'template.delete': (r) => `Deleted ${thing('template', r)}`,
  'template.publish': (r, d) => `Published version ${d.version} of ${thing('template', r)}`,
  'brand.update': () => 'Changed the brand',
  'campaign.create': (r, d) => `Created ${thing('campaign', r)}${d.duplicateOf ? ' (a copy)' : ''}`,
  'campaign.update': (r) => `Changed ${thing('campaign', r)}`,
  'campaign.cancel': (r) => `Cancelled ${thing('campaign', r)}`,
  'campaign.unschedule': (r) => `Took ${thing('campaign', r)} back to draft`,
  'campaign.delete': (r) => `Deleted ${thing('campaign', r)}`,
  'campaign.send': (r, d) => (d.status === 'SCHEDULED' ? `Scheduled ${thing('campaign', r)} for ${d.scheduledFor}` : `Sent ${thing('campaign', r)}`),
  'workflow.create': (r) => `Created ${thing('workflow', r)}`,
  'workflow.delete': (r) => `Deleted ${thing('workflow', r)}`,
  'workflow.enable': (r) => `Enabled ${thing('workflow', r)}`,
  'workflow.disable': (r) => `Disabled ${thing('workflow', r)}`,
  'workflow.update': (r, d) => `Changed ${thing('workflow', r)} (${list(d.changed)})`,
  'segment.create': (r) => `Created ${thing('segment', r)}`,
  'segment.update': (r, d) => `Changed ${thing('segment', r)} (${list(d.changed)})`,
  'segment.delete': (r) => `Deleted ${thing('segment', r)}`,
  'topic.create': (r) => `Created ${thing('topic', r)}`,
  'topic.update': (r, d) => `Changed ${thing('topic', r)} (${list(d.changed)})`,
  'topic.delete': (r) => `Deleted ${thing('topic', r)}`,
  'form.create': (r) => `Created ${thing('form', r)}`,
  'form.update': (r, d) => `Changed ${thing('form', r)} (${list(d.changed)})`,
  'form.delete': (r) => `Deleted ${thing('form', r)}`,
  'webhook_endpoint.create': (r, d) => `Created ${thing('webhook endpoint', r)} for events ${list(d.events)}`,
  'webhook_endpoint.update': (r, d) => `Changed ${thing('webhook endpoint', r)} (${list(d.changed)})`,
  'webhook_endpoint.rotate_secret': (r) => `Rotated the signing secret of ${thing('webhook endpoint', r)}`,
  'webhook_endpoint.delete': (r) => `Deleted ${thing('webhook endpoint', r)}`,
  'retention.prune': () => 'Removed data past its retention period',
  'access.denied': (r, d) =>
    `Refused (role ${d.role}): ${d.action === d.route ? `${d.permission} (${d.route})` : list(d.action)}${r.target_name ? ` on ${r.target_name}` : ''}`,
};

function summarize(r: NamedAuditRow): string {
  return SUMMARIES[r.action]?.(r, r.details ?? {}) ?? r.action;
}
