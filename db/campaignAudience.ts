import type { Knex } from 'knex';
import { compileFilter, FieldTypes, loadFieldTypes, matchingContactsQuery } from './filters';
import { findSegment, segmentMembersQuery, SegmentRow } from './segments';
import { topicStateSql } from './topics';
import { consentedSql } from './consent';
import type { CampaignRow } from './campaigns';
import { type ContactPredicate, type CountOptions, type Counted, countWhereOrEstimate } from './contactCounts';

/**
 * The campaign's audience as a builder over `contacts c`. MARKETING goes only to subscribed
 * contacts; TRANSACTIONAL and HEADLESS ignore subscription; a campaign sent as a topic goes only
 * to contacts subscribed globally and to the topic. A segment that no longer exists is an
 * empty audience. Synchronous on purpose: a builder is thenable, so an async function returning
 * one would run it.
 */
export function audienceQuery(knex: Knex, c: CampaignRow, fieldTypes: FieldTypes, segment?: SegmentRow): Knex.QueryBuilder {
  let q: Knex.QueryBuilder;
  if (c.audience_type === 'FILTERED') q = matchingContactsQuery(knex, c.project_id, c.audience_condition, fieldTypes);
  else if (c.audience_type === 'SEGMENT') q = segment ? segmentMembersQuery(knex, segment, fieldTypes) : knex({ c: 'contacts' }).whereRaw('false');
  else q = knex({ c: 'contacts' }).where('c.project_id', c.project_id);
  const consented = audienceConsent(c);
  if (consented) q.whereRaw(consented.sql, consented.bindings);
  return q;
}

/** The consent rule (db/consent.ts) over `contacts c`: a topic's mail, whatever its type, to contacts subscribed globally and to the topic. */
const audienceConsent = (c: CampaignRow) => consentedSql({ type: c.type, topicId: c.topic_id }, 'c', (t) => topicStateSql('c.id', t));

/**
 * How many contacts the campaign would go to if it started now: the query `beginSending` snapshots,
 * counted (the number a send's confirmation names). Throws FilterError when a FILTERED tree no longer compiles.
 */
export async function audienceCount(knex: Knex, c: CampaignRow, fieldTypes?: FieldTypes): Promise<number> {
  const segment = c.audience_type === 'SEGMENT' && c.segment_id ? await findSegment(knex, c.project_id, c.segment_id) : undefined;
  const [{ n }] = await audienceQuery(knex, c, fieldTypes ?? (await loadFieldTypes(knex, c.project_id)), segment)
    .clearSelect()
    .count({ n: '*' });
  return Number(n);
}

/**
 * The audience count as the composer asks it: estimated as `POST /contacts/count` is (db/contactCounts.ts)
 * in a project of at least `threshold` contacts, for an audience of the whole list or a filter tree,
 * with the consent rule in the sampled condition; a segment's audience (stored members, or its live
 * filter) and every smaller project are counted exactly. The send itself snapshots the exact audience.
 */
export async function audienceCountOrEstimate(knex: Knex, c: CampaignRow, opts: CountOptions): Promise<Counted> {
  if (c.audience_type === 'SEGMENT') return { count: await audienceCount(knex, c), estimated: false };
  const fieldTypes = await loadFieldTypes(knex, c.project_id);
  const matches = (): ContactPredicate => {
    const consented = audienceConsent(c);
    const parts = [
      ...(c.audience_type === 'FILTERED' ? [compileFilter(c.audience_condition, { fieldTypes, scope: 'few' })] : []),
      ...(consented ? [consented] : []),
    ];
    return parts.length ? { sql: parts.map((p) => `(${p.sql})`).join(' AND '), bindings: parts.flatMap((p) => p.bindings) } : { sql: 'true', bindings: [] };
  };
  return countWhereOrEstimate(knex, c.project_id, matches, () => audienceCount(knex, c, fieldTypes), opts);
}

/** Throws FilterError when the tree does not compile against the project's field types (the 422 check). */
export async function assertAudienceCompiles(knex: Knex, projectId: string, tree: unknown): Promise<void> {
  compileFilter(tree, { fieldTypes: await loadFieldTypes(knex, projectId) });
}
