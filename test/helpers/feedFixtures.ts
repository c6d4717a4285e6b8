import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { contactId } from '../../lib/ids';
import { registerFields, FieldType } from '../../db/fields';

/**
 * Direct inserts for the read-side tests (contact fields, events, activity, analytics): rows with
 * chosen timestamps and states that no route could produce on demand. Only tables other issues own
 * (segments, campaigns, workflows) are written here, never their rules.
 */

const id = () => crypto.randomUUID();

export interface SeededContact {
  id: string;
  email: string;
}

/** Contacts in one INSERT (data as given; registry entries for its top-level keys with the given types). */
export async function seedContacts(
  knex: Knex,
  projectId: string,
  rows: Array<{ email: string; data?: Record<string, unknown>; subscribed?: boolean }>,
  types: Record<string, FieldType> = {},
): Promise<SeededContact[]> {
  const inserted = await knex('contacts')
    .insert(rows.map((r) => ({ id: contactId(), project_id: projectId, email: r.email, subscribed: r.subscribed ?? true, data: JSON.stringify(r.data ?? {}) })))
    .returning(['id', 'email']);
  await registerFields(
    knex,
    projectId,
    Object.entries(types).map(([key, type]) => ({ key, type })),
  );
  return inserted;
}

export async function seedEvents(
  knex: Knex,
  projectId: string,
  rows: Array<{ name: string; contactId: string | null; at?: Date; data?: Record<string, unknown> }>,
): Promise<string[]> {
  const values = rows.map((r) => ({
    id: id(),
    project_id: projectId,
    contact_id: r.contactId,
    name: r.name,
    data: JSON.stringify(r.data ?? {}),
    ...(r.at ? { created_at: r.at } : {}),
  }));
  // Chunked: one statement's bind parameters are capped at 65535.
  for (let i = 0; i < values.length; i += 5000) await knex('events').insert(values.slice(i, i + 5000));
  return values.map((v) => v.id);
}

export async function seedEmail(
  knex: Knex,
  projectId: string,
  e: {
    contactId?: string | null;
    to?: string;
    subject?: string;
    status?: string;
    campaignId?: string | null;
    error?: string | null;
    createdAt?: Date;
    updatedAt?: Date;
  },
): Promise<string> {
  const emailId = id();
  await knex('emails').insert({
    id: emailId,
    project_id: projectId,
    contact_id: e.contactId ?? null,
    campaign_id: e.campaignId ?? null,
    to_email: e.to ?? 'someone@example.org',
    from_email: 'news@example.org',
    subject: e.subject ?? 'Hello',
    body: '<p>hi</p>',
    status: e.status ?? 'SENT',
    error: e.error ?? null,
    ...(e.createdAt ? { created_at: e.createdAt } : {}),
    ...(e.updatedAt ? { updated_at: e.updatedAt } : {}),
  });
  return emailId;
}

export const filterOn = (field: string, operator = 'equals', value: unknown = 'x') => ({ logic: 'AND', groups: [{ filters: [{ field, operator, value }] }] });

export async function seedSegment(knex: Knex, projectId: string, name: string, condition: unknown): Promise<string> {
  const segmentId = id();
  await knex('segments').insert({
    id: segmentId,
    project_id: projectId,
    name,
    slug: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${segmentId.slice(0, 8)}`,
    type: 'DYNAMIC',
    condition: JSON.stringify(condition),
  });
  return segmentId;
}

type CampaignCounter = 'sent' | 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'failed';

export async function seedCampaign(
  knex: Knex,
  projectId: string,
  c: {
    name: string;
    audienceCondition?: unknown;
    status?: string;
    scheduledFor?: Date;
    startedAt?: Date;
    totalRecipients?: number;
    counters?: Partial<Record<CampaignCounter, number>>;
  },
): Promise<string> {
  const campaignId = id();
  await knex('campaigns').insert({
    id: campaignId,
    project_id: projectId,
    name: c.name,
    subject: 'Subject',
    body: '<p>body</p>',
    from: 'news@example.org',
    audience_type: c.audienceCondition ? 'FILTERED' : 'ALL',
    audience_condition: c.audienceCondition ? JSON.stringify(c.audienceCondition) : null,
    status: c.status ?? 'DRAFT',
    scheduled_for: c.scheduledFor ?? null,
    started_at: c.startedAt ?? null,
    total_recipients: c.totalRecipients ?? 0,
    ...Object.fromEntries(Object.entries(c.counters ?? {}).map(([k, v]) => [`${k}_count`, v])),
  });
  return campaignId;
}

/** A workflow with its TRIGGER step and the given steps (no transitions: the graph is not what these tests read). */
export async function seedWorkflow(
  knex: Knex,
  projectId: string,
  w: { name: string; eventName: string; steps?: Array<{ type: string; config: unknown }> },
): Promise<string> {
  const workflowId = id();
  await knex('workflows').insert({ id: workflowId, project_id: projectId, name: w.name, trigger_config: JSON.stringify({ eventName: w.eventName }) });
  const steps = [{ type: 'TRIGGER', config: { eventName: w.eventName } }, ...(w.steps ?? [])];
  await knex('workflow_steps').insert(
    steps.map((s, i) => ({ id: id(), workflow_id: workflowId, type: s.type, name: `${s.type} ${i}`, config: JSON.stringify(s.config) })),
  );
  return workflowId;
}

export async function seedExecution(
  knex: Knex,
  projectId: string,
  x: { workflowId: string; contactId: string; status: string; waitingFor?: string; waitingSince?: Date },
): Promise<string> {
  const executionId = id();
  await knex('workflow_executions').insert({
    id: executionId,
    project_id: projectId,
    workflow_id: x.workflowId,
    contact_id: x.contactId,
    status: x.status,
    waiting_for: x.waitingFor ?? null,
    waiting_since: x.waitingSince ?? null,
  });
  return executionId;
}
