import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import { DomainError } from '../lib/domainErrors';
import { recordEvents, EventRow } from './events';
import { recordConsent, ConsentOrigin } from './consent';
import type { ConsentSource } from '../lib/consentSources';
import { freeSlug, slugify } from './slugs';
import { type StepPath, stepPathEquals } from './stepPaths';

/**
 * Topics (docs/api.md "Topics"): what a project's marketing mail is about. A contact's state of a
 * topic is the row in `contact_topics` when one exists (a choice), else the topic's
 * `default_subscribed`. The global `subscribed` flag stays the master switch: topic mail goes only
 * to contacts subscribed globally and to the topic.
 */

export interface TopicRow {
  id: string;
  project_id: string;
  name: string;
  slug: string;
  description: string | null;
  default_subscribed: boolean;
  public: boolean;
  created_at: Date;
  updated_at: Date;
}

export const CONTACT_TOPIC_SUBSCRIBED = 'contact.topic.subscribed';
export const CONTACT_TOPIC_UNSUBSCRIBED = 'contact.topic.unsubscribed';

/** Lowercase words joined by "-": what filter trees name as `topic.<slug>`. */
export const TOPIC_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A topic's effective state for a contact, as SQL over the given expressions (a topics row `t`'s id and default). */
export const topicStateSql = (contactId: string, topic: string) =>
  `COALESCE((SELECT ctp.subscribed FROM contact_topics ctp WHERE ctp.contact_id = ${contactId} AND ctp.topic_id = ${topic}.id), ${topic}.default_subscribed)`;

export interface TopicFields {
  name: string;
  slug?: string;
  description?: string | null;
  defaultSubscribed?: boolean;
  public?: boolean;
}

export async function listTopics(db: Knex, projectId: string): Promise<TopicRow[]> {
  return db<TopicRow>('topics')
    .where({ project_id: projectId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export async function findTopic(db: Knex, projectId: string, id: string): Promise<TopicRow | undefined> {
  if (!UUID.test(id)) return undefined;
  return db<TopicRow>('topics').where({ project_id: projectId, id }).first();
}

/** A topic by id or slug, as callers name it (`topics: { "<id or slug>": … }`, a campaign's `topic`). */
export async function findTopicByKey(db: Knex, projectId: string, key: string): Promise<TopicRow | undefined> {
  const q = db<TopicRow>('topics').where({ project_id: projectId });
  return (UUID.test(key) ? q.andWhere({ id: key.toLowerCase() }) : q.andWhere({ slug: key })).first();
}

/** Every key's topic; an unknown key is a 422 naming `fieldOf(key)` (default `topics.<key>`). */
export async function resolveTopicKeys(
  db: Knex,
  projectId: string,
  keys: string[],
  fieldOf = (key: string) => `topics.${key}`,
): Promise<Map<string, TopicRow>> {
  if (!keys.length) return new Map();
  const ids = keys.filter((k) => UUID.test(k)).map((k) => k.toLowerCase());
  const rows = await db<TopicRow>('topics')
    .where({ project_id: projectId })
    .andWhere((q) => q.whereIn('slug', keys).orWhereIn('id', ids));
  const out = new Map<string, TopicRow>();
  for (const key of keys) {
    const found = rows.find((r) => r.slug === key || r.id === key.toLowerCase());
    if (!found) throw new DomainError('invalid', `unknown topic "${key}": give a topic id or slug of this project`, fieldOf(key));
    out.set(key, found);
  }
  return out;
}

export async function createTopic(db: Knex, projectId: string, fields: TopicFields): Promise<TopicRow> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const slug = fields.slug ?? (await freeSlug(db, 'topics', projectId, slugify(fields.name, 'topic', 60)));
    const [row] = await db<TopicRow>('topics')
      .insert({
        id: uuid(),
        project_id: projectId,
        name: fields.name,
        slug,
        description: fields.description ?? null,
        default_subscribed: fields.defaultSubscribed ?? false,
        public: fields.public ?? true,
      })
      .onConflict(['project_id', 'slug'])
      .ignore()
      .returning('*');
    if (row) return row;
    if (fields.slug) throw new DomainError('conflict', `Another topic of this project has the slug "${fields.slug}"`);
  }
  throw new Error('could not find a free topic slug');
}

/** The slug is fixed at creation: filter trees and links name topics by it. */
export async function updateTopic(db: Knex, projectId: string, id: string, patch: Partial<Omit<TopicFields, 'slug'>>): Promise<TopicRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const set: Record<string, unknown> = { updated_at: db.fn.now() };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.defaultSubscribed !== undefined) set.default_subscribed = patch.defaultSubscribed;
  if (patch.public !== undefined) set.public = patch.public;
  const [row] = await db<TopicRow>('topics').where({ project_id: projectId, id }).update(set).returning('*');
  return row;
}

export interface TopicUsage {
  campaigns: { id: string; name: string; status: string }[];
  workflowSteps: { workflowId: string; stepId: string }[];
}

/**
 * What still sends as this topic: campaigns not yet finished, and workflow steps naming it (by id or
 * slug) at one of `senders`, the registry's topic references (services/stepReferences).
 */
export async function topicUsage(db: Knex, topic: TopicRow, senders: readonly StepPath[]): Promise<TopicUsage> {
  const [byId, bySlug] = [stepPathEquals(senders, topic.id), stepPathEquals(senders, topic.slug)];
  const [campaigns, steps] = await Promise.all([
    db('campaigns').where({ project_id: topic.project_id, topic_id: topic.id }).whereNotIn('status', ['SENT', 'CANCELLED']).select('id', 'name', 'status'),
    db('workflow_steps as s')
      .join('workflows as w', 'w.id', 's.workflow_id')
      .where('w.project_id', topic.project_id)
      .andWhere((q) => q.whereRaw(byId.sql, byId.bindings).orWhereRaw(bySlug.sql, bySlug.bindings))
      .select('s.workflow_id as workflowId', 's.id as stepId'),
  ]);
  return { campaigns, workflowSteps: steps };
}

/** Deletes a topic and every contact's state of it; refused while something still sends as it. */
export async function deleteTopic(db: Knex, projectId: string, id: string, senders: readonly StepPath[]): Promise<boolean> {
  const topic = await findTopic(db, projectId, id);
  if (!topic) return false;
  const usage = await topicUsage(db, topic, senders);
  if (usage.campaigns.length || usage.workflowSteps.length) {
    const named = [
      ...usage.campaigns.map((c) => `campaign "${c.name}" (${c.status})`),
      ...usage.workflowSteps.map((s) => `step ${s.stepId} of workflow ${s.workflowId}`),
    ];
    throw new DomainError('conflict', `Topic "${topic.slug}" is still used by ${named.join(', ')}`);
  }
  return (await db('topics').where({ project_id: projectId, id }).del()) > 0;
}

export interface TopicState {
  topic: TopicRow;
  subscribed: boolean;
  /** Whether the contact (or a caller) chose it; false means the topic's default applies. */
  chosen: boolean;
}

/** The contact's state of every topic of the project (`onlyPublic` for the preference center). */
export async function contactTopicStates(db: Knex, projectId: string, contactId: string, onlyPublic = false): Promise<TopicState[]> {
  const q = db('topics as t')
    .leftJoin('contact_topics as ct', (j) => j.on('ct.topic_id', 't.id').andOn('ct.contact_id', db.raw('?', [contactId])))
    .where('t.project_id', projectId)
    .orderBy([{ column: 't.created_at' }, { column: 't.id' }])
    .select('t.*', 'ct.subscribed as chosen_state');
  if (onlyPublic) q.andWhere('t.public', true);
  const rows: (TopicRow & { chosen_state: boolean | null })[] = await q;
  return rows.map(({ chosen_state, ...topic }) => ({ topic, subscribed: chosen_state ?? topic.default_subscribed, chosen: chosen_state !== null }));
}

/** A contact's states keyed by slug, for API responses. */
export async function contactTopicMap(db: Knex, projectId: string, contactId: string): Promise<Record<string, boolean>> {
  return Object.fromEntries((await contactTopicStates(db, projectId, contactId)).map((s) => [s.topic.slug, s.subscribed]));
}

export interface TopicChange {
  topic: TopicRow;
  subscribed: boolean;
}

export interface TopicWriteContext {
  /** Recorded in the events' data and the consent record (lib/consentSources.ts). */
  source?: ConsentSource;
  /** A new contact records its choices but emits no events (as for `subscribed`). */
  isNew?: boolean;
  /** The person's browser, for the consent record (db/consent). */
  origin?: ConsentOrigin;
}

/**
 * Sets topic states of one contact. The caller's transaction must hold the contact row locked (the
 * contact writers of db/contactWriters do), so this statement, which runs after the lock was taken, reads
 * the true previous states. A change of the effective state (choice, else default) records
 * `contact.topic.subscribed|unsubscribed` with the topic; a choice equal to the old one writes nothing.
 * Every choice written (a first one included, even when it equals the default) goes to the consent record.
 */
export async function writeTopicStates(
  trx: Knex.Transaction,
  contact: { id: string; project_id: string },
  changes: TopicChange[],
  ctx: TopicWriteContext = {},
): Promise<EventRow[]> {
  if (!changes.length) return [];
  // Last one wins when a request names one topic twice (by id and by slug).
  const byTopic = new Map(changes.map((c) => [c.topic.id, c]));
  const { rows }: { rows: { topic_id: string; subscribed: boolean; previous: boolean | null }[] } = await trx.raw(
    `WITH given AS (
       SELECT * FROM unnest(?::uuid[], ?::boolean[]) AS g(topic_id, subscribed)
     ), prev AS (
       SELECT g.topic_id, ct.subscribed AS previous FROM given g
         LEFT JOIN contact_topics ct ON ct.contact_id = ? AND ct.topic_id = g.topic_id
     ), written AS (
       INSERT INTO contact_topics (contact_id, topic_id, subscribed)
       SELECT ?, topic_id, subscribed FROM given
       ON CONFLICT (contact_id, topic_id) DO UPDATE SET subscribed = EXCLUDED.subscribed, updated_at = now()
        WHERE contact_topics.subscribed IS DISTINCT FROM EXCLUDED.subscribed
       RETURNING topic_id, subscribed
     )
     SELECT w.topic_id, w.subscribed, p.previous FROM written w JOIN prev p USING (topic_id)`,
    [[...byTopic.keys()], [...byTopic.values()].map((c) => c.subscribed), contact.id, contact.id],
  );
  await recordConsent(
    trx,
    rows.map((r) => {
      const { id, slug } = byTopic.get(r.topic_id)!.topic;
      return {
        projectId: contact.project_id,
        contactId: contact.id,
        scope: 'topic' as const,
        topic: { id, slug },
        value: r.subscribed,
        source: ctx.source,
        origin: ctx.origin,
      };
    }),
  );
  if (ctx.isNew) return [];
  const flips = rows.filter((r) => r.subscribed !== (r.previous ?? byTopic.get(r.topic_id)!.topic.default_subscribed));
  return recordEvents(
    trx,
    flips.map((r) => {
      const topic = byTopic.get(r.topic_id)!.topic;
      return {
        projectId: contact.project_id,
        contactId: contact.id,
        name: r.subscribed ? CONTACT_TOPIC_SUBSCRIBED : CONTACT_TOPIC_UNSUBSCRIBED,
        data: { topic: topic.slug, topicId: topic.id, ...(ctx.source ? { source: ctx.source } : {}) },
      };
    }),
  );
}

/** A request's `topics: { "<id or slug>": true|false }` as changes; an unknown key is a 422. */
export async function topicChanges(db: Knex, projectId: string, states: Record<string, boolean> | undefined): Promise<TopicChange[]> {
  const keys = Object.keys(states ?? {});
  if (!keys.length) return [];
  const topics = await resolveTopicKeys(db, projectId, keys);
  return keys.map((k) => ({ topic: topics.get(k)!, subscribed: states![k] }));
}
