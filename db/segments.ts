import type { Knex } from 'knex';
import { deterministicUuid, uuid } from '../lib/ids';
import { ContactRow } from './contactReaders';
import { upsertContact } from './contactWriters';
import { normalizeEmail } from './users';
import { countMatching, loadFieldTypes, matchingContactsQuery, FieldTypes } from './filters';
import type { EventRow } from './events';
import { inTransaction } from './transaction';
import { freeSlug, slugify } from './slugs';
import { decodeCursor, encodeCursor, isTimeKey, timeKeySql } from './cursors';
import { countMatchingOrEstimate } from './contactCounts';

export type { ComputeResult } from '../temporal/contract';

/**
 * Segments (spec "Segment"; docs/api.md, "Segments"): dynamic ones are a stored filter tree evaluated by
 * db/filters, static ones a managed list in `segment_members`. A dynamic segment that tracks
 * membership also keeps its members in `segment_members`: the snapshot of its last compute, which
 * the next compute diffs against the live match to emit `segment.<slug>.entry|exit` events.
 */

export const SEGMENT_TYPES = ['DYNAMIC', 'STATIC'] as const;
export type SegmentType = (typeof SEGMENT_TYPES)[number];

export interface SegmentRow {
  id: string;
  project_id: string;
  name: string;
  slug: string;
  description: string | null;
  type: SegmentType;
  condition: unknown | null;
  track_membership: boolean;
  member_count: number;
  counted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

// ───────────────────────────── slugs and event names ─────────────────────────────

/** A segment's slug from its name (db/slugs.ts). */
export const segmentSlug = (name: string) => slugify(name, 'segment');

export type MembershipChange = 'entry' | 'exit';

export const segmentEventName = (slug: string, change: MembershipChange) => `segment.${slug}.${change}`;

/**
 * One event per (segment, contact, compute run, change): a rerun chunk writes the same ids again,
 * i.e. nothing. db/segmentCompute.ts derives the same id in SQL (deterministicUuidSql).
 */
export const membershipEventId = (segmentId: string, contactId: string, runId: string, change: MembershipChange) =>
  deterministicUuid('segment-membership', segmentId, contactId, runId, change);

/**
 * Writes the membership history of a static segment's list (migration 069, a contact's timeline)
 * in the caller's transaction: one row per contact that entered or left. A compute writes its own
 * rows set-based (db/segmentCompute.ts).
 */
async function recordMembershipChanges(
  trx: Knex,
  segment: Pick<SegmentRow, 'id' | 'project_id' | 'name'>,
  changes: Array<{ contactId: string; change: MembershipChange }>,
): Promise<void> {
  if (!changes.length) return;
  await trx('segment_membership_changes').insert(
    changes.map((c) => ({
      id: uuid(),
      project_id: segment.project_id,
      contact_id: c.contactId,
      segment_id: segment.id,
      segment_name: segment.name,
      change: c.change,
      source: 'list',
    })),
  );
}

// ───────────────────────────── CRUD ─────────────────────────────

export interface SegmentFields {
  name: string;
  description?: string | null;
  type: SegmentType;
  condition?: unknown;
  trackMembership?: boolean;
}

export async function listSegments(db: Knex, projectId: string): Promise<SegmentRow[]> {
  return db<SegmentRow>('segments')
    .where({ project_id: projectId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
}

export async function findSegment(db: Knex, projectId: string, id: string): Promise<SegmentRow | undefined> {
  return db<SegmentRow>('segments').where({ project_id: projectId, id }).first();
}

/** The live count: the compiled match for dynamic segments, the stored list for static ones. */
async function liveMemberCount(db: Knex, segment: SegmentRow): Promise<number> {
  if (segment.type === 'DYNAMIC') return countMatching(db, segment.project_id, segment.condition);
  return storedMemberCount(db, segment.id);
}

export async function storedMemberCount(db: Knex, segmentId: string): Promise<number> {
  const [row] = await db('segment_members').where({ segment_id: segmentId }).count<{ count: number }[]>('* as count');
  return Number(row.count);
}

export async function saveCount(db: Knex, segmentId: string, memberCount: number): Promise<SegmentRow> {
  const [row] = await db<SegmentRow>('segments')
    .where({ id: segmentId })
    .update({ member_count: memberCount, counted_at: db.fn.now() as any })
    .returning('*');
  return row;
}

/** Recounts and caches `memberCount`; never touches membership (POST /segments/:id/refresh). */
export async function refreshMemberCount(db: Knex, segment: SegmentRow): Promise<SegmentRow> {
  return saveCount(db, segment.id, await liveMemberCount(db, segment));
}

/**
 * A static segment keeps no condition (the spec's two listings conflict on whether one is refused
 * or ignored; it is ignored). The cached count starts as the live count.
 */
export async function createSegment(db: Knex, projectId: string, fields: SegmentFields): Promise<SegmentRow> {
  const condition = fields.type === 'DYNAMIC' ? fields.condition : null;
  const memberCount = condition ? await countMatching(db, projectId, condition) : 0;
  const base = segmentSlug(fields.name);
  // A concurrent create may take the chosen slug first; the unique index says so and we pick again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const [row] = await db<SegmentRow>('segments')
      .insert({
        id: uuid(),
        project_id: projectId,
        name: fields.name,
        slug: await freeSlug(db, 'segments', projectId, base),
        description: fields.description ?? null,
        type: fields.type,
        condition: condition === null || condition === undefined ? null : (JSON.stringify(condition) as any),
        track_membership: fields.trackMembership ?? false,
        member_count: memberCount,
        counted_at: db.fn.now() as any,
      })
      .onConflict(['project_id', 'slug'])
      .ignore()
      .returning('*');
    if (row) return row;
  }
  throw new Error('could not find a free segment slug');
}

export interface SegmentPatch {
  name?: string;
  description?: string | null;
  condition?: unknown;
  trackMembership?: boolean;
}

/** A new condition is recounted at once, so the cached count never describes an old one. */
export async function updateSegment(db: Knex, segment: SegmentRow, patch: SegmentPatch): Promise<SegmentRow> {
  const columns: Record<string, unknown> = { updated_at: db.fn.now() };
  if (patch.name !== undefined) columns.name = patch.name;
  if (patch.description !== undefined) columns.description = patch.description;
  if (patch.trackMembership !== undefined) columns.track_membership = patch.trackMembership;
  if (patch.condition !== undefined) {
    columns.condition = JSON.stringify(patch.condition);
    columns.member_count = await countMatching(db, segment.project_id, patch.condition);
    columns.counted_at = db.fn.now();
  }
  const [row] = await db<SegmentRow>('segments')
    .where({ id: segment.id })
    .update(columns as any)
    .returning('*');
  return row;
}

// As db/campaigns ACTIVE_STATUSES (not imported: db/campaigns imports this module).
const ACTIVE_CAMPAIGN_STATUSES = ['SCHEDULED', 'SENDING', 'PAUSED'];

/*
 * "A segment cannot be deleted while a SCHEDULED or SENDING campaign targets it" holds under
 * concurrency through one lock order: campaign row, then segment row. A write that makes a campaign
 * target a segment while active (send, the replace of a scheduled campaign) locks the campaign row,
 * then takes the segment row FOR KEY SHARE (lockTargetSegment) and keeps both until it commits. A
 * delete takes the segment row FOR UPDATE, which waits for those writes, and only then checks: in
 * READ COMMITTED that check's snapshot sees what they committed. The other way round, a send that
 * comes while a delete holds the row waits, then finds the segment gone (an empty audience,
 * docs/campaigns.md).
 */

/** Holds the project's segment a campaign write points at until the caller's transaction ends; false when there is none. */
export async function lockTargetSegment(trx: Knex.Transaction, projectId: string, segmentId: string): Promise<boolean> {
  return !!(await trx('segments').where({ id: segmentId, project_id: projectId }).forKeyShare().first('id'));
}

/** Deletes the segment unless an active campaign targets it; null when the project has no such segment. */
export async function deleteSegment(db: Knex, projectId: string, id: string): Promise<'deleted' | 'in-use' | null> {
  return inTransaction(db, async (trx) => {
    const row = await trx('segments').where({ project_id: projectId, id }).forUpdate().first('id');
    if (!row) return null;
    const used = await trx('campaigns').where({ segment_id: id }).whereIn('status', ACTIVE_CAMPAIGN_STATUSES).first(trx.raw('1 AS hit'));
    if (used) return 'in-use';
    await trx('segments').where({ id }).del();
    return 'deleted';
  });
}

// ───────────────────────────── members ─────────────────────────────

export interface MemberPage {
  rows: ContactRow[];
  total: number;
  /** `total` is an estimate (a DYNAMIC segment's live match, as `POST /contacts/count` estimates it). */
  estimated: boolean;
  /** The page number of `rows` (the cursor's, when one was given). */
  page: number;
  /** The next page's cursor, null on the last page. */
  cursor: string | null;
  hasMore: boolean;
}

/** Where a members page ends: the last row's (created_at, id) and the number of the page that follows. */
export interface MemberCursor {
  at: string;
  id: string;
  page: number;
}

const CONTACT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** null for anything this API did not hand out (db/cursors). */
export function parseMemberCursor(raw: string): MemberCursor | null {
  const v = decodeCursor(raw, 3);
  if (!v || !isTimeKey(v[0]) || !CONTACT_ID.test(v[1]) || !/^[1-9]\d{0,8}$/.test(v[2])) return null;
  return { at: v[0], id: v[1], page: Number(v[2]) };
}

/**
 * A segment's members as a builder over `contacts c`: the live match of a dynamic segment's
 * condition, the managed list of a static one. (A tracked dynamic segment's stored list is only
 * the last compute's snapshot; its members are the live match.)
 */
export function segmentMembersQuery(db: Knex, segment: SegmentRow, fieldTypes: FieldTypes): Knex.QueryBuilder {
  if (segment.type === 'DYNAMIC') return matchingContactsQuery(db, segment.project_id, segment.condition, fieldTypes);
  return db({ c: 'contacts' })
    .where('c.project_id', segment.project_id)
    .whereExists((q) => q.select(db.raw('1')).from({ m: 'segment_members' }).where('m.segment_id', segment.id).andWhereRaw('m.contact_id = c.id'));
}

/**
 * A page of members, newest contacts first. `page` alone pages with OFFSET (the spec's params);
 * with `after` (the cursor a previous page handed out) it seeks past that page's last
 * (created_at, id) instead, so a deep page costs what the first does, and its number comes from
 * the cursor.
 */
export async function listMembers(
  db: Knex,
  segment: SegmentRow,
  page: number,
  pageSize: number,
  after?: MemberCursor,
  /** COUNT_ESTIMATE_THRESHOLD: a DYNAMIC segment's total is estimated as `POST /contacts/count` is (db/contactCounts.ts); 0 or absent: exact. */
  estimateAbove = 0,
): Promise<MemberPage> {
  const fieldTypes = segment.type === 'DYNAMIC' ? await loadFieldTypes(db, segment.project_id) : {};
  const rowsQuery = segmentMembersQuery(db, segment, fieldTypes)
    .select('c.*', db.raw(`${timeKeySql('c.created_at')} AS sort_key`))
    .orderBy([
      { column: 'c.created_at', order: 'desc' },
      { column: 'c.id', order: 'desc' },
    ])
    .limit(pageSize + 1);
  if (after) rowsQuery.whereRaw('(c.created_at, c.id) < (?::timestamptz, ?)', [after.at, after.id]);
  else rowsQuery.offset((page - 1) * pageSize);
  // A DYNAMIC segment's total is its live match, counted (or, in a large project, estimated) as the
  // filter builder's count is: an exact count of a match in the millions was most of a page's time
  // (19 s at 10M contacts). A STATIC segment's members are its stored rows.
  const total =
    segment.type === 'DYNAMIC'
      ? countMatchingOrEstimate(db, segment.project_id, segment.condition, fieldTypes, { threshold: estimateAbove })
      : segmentMembersQuery(db, segment, fieldTypes)
          .count<{ count: number }[]>('* as count')
          .then((r) => ({ count: Number(r[0].count), estimated: false }));
  const [fetched, counted] = await Promise.all([rowsQuery, total]);
  const number = after ? after.page : page;
  const hasMore = fetched.length > pageSize;
  const kept = (fetched as (ContactRow & { sort_key: string })[]).slice(0, pageSize);
  const last = kept[kept.length - 1];
  return {
    rows: kept.map(({ sort_key: _key, ...row }) => row as ContactRow),
    total: counted.count,
    estimated: counted.estimated,
    page: number,
    cursor: hasMore && last ? encodeCursor([last.sort_key, last.id, String(number + 1)]) : null,
    hasMore,
  };
}

function uniqueEmails(emails: string[]): string[] {
  return [...new Set(emails.map(normalizeEmail))];
}

async function contactsByEmail(db: Knex, projectId: string, emails: string[]): Promise<Map<string, string>> {
  const rows: { id: string; email: string }[] = await db('contacts').where({ project_id: projectId }).whereIn('email', emails).select('id', 'email');
  return new Map(rows.map((r) => [r.email, r.id]));
}

export interface AddMembersInput {
  emails: string[];
  /** Create contacts for unknown emails (through db/contactWriters, so every contact rule applies). */
  createMissing?: boolean;
  /** Subscription of the contacts created here; existing contacts keep theirs. */
  subscribed?: boolean;
}

export interface AddMembersResult {
  /** Contacts that became members (already-members are not counted). */
  added: number;
  /** Emails with no contact in the project (and not created). */
  notFound: string[];
  /** Subscription events from the contact writes, to route after commit. */
  events: EventRow[];
  segment: SegmentRow;
}

export async function addMembers(db: Knex, segment: SegmentRow, input: AddMembersInput): Promise<AddMembersResult> {
  const emails = uniqueEmails(input.emails);
  return db.transaction(async (trx) => {
    const found = await contactsByEmail(trx, segment.project_id, emails);
    const events: EventRow[] = [];
    const notFound: string[] = [];
    for (const email of emails) {
      if (found.has(email)) continue;
      if (!input.createMissing) {
        notFound.push(email);
        continue;
      }
      const written = await upsertContact(trx, { projectId: segment.project_id, email, defaultSubscribed: input.subscribed ?? true, source: 'segment' });
      found.set(email, written.contact.id);
      events.push(...written.events);
    }
    const ids = [...found.values()];
    const added = ids.length
      ? await trx('segment_members')
          .insert(ids.map((id) => ({ segment_id: segment.id, contact_id: id })))
          .onConflict(['segment_id', 'contact_id'])
          .ignore()
          .returning('contact_id')
      : [];
    await recordMembershipChanges(
      trx,
      segment,
      added.map((r: { contact_id: string }) => ({ contactId: r.contact_id, change: 'entry' as const })),
    );
    const row = await saveCount(trx, segment.id, await storedMemberCount(trx, segment.id));
    return { added: added.length, notFound, events, segment: row };
  });
}

export interface RemoveMembersResult {
  removed: number;
  /** Emails that name no member of the segment (no such contact, or not in the list). */
  notFound: string[];
  segment: SegmentRow;
}

export async function removeMembers(db: Knex, segment: SegmentRow, emailList: string[]): Promise<RemoveMembersResult> {
  const emails = uniqueEmails(emailList);
  return db.transaction(async (trx) => {
    const found = await contactsByEmail(trx, segment.project_id, emails);
    const removedIds = new Set<string>(
      found.size
        ? await trx('segment_members')
            .where({ segment_id: segment.id })
            .whereIn('contact_id', [...found.values()])
            .del()
            .returning('contact_id')
            .then((rows: { contact_id: string }[]) => rows.map((r) => r.contact_id))
        : [],
    );
    const notFound = emails.filter((e) => !removedIds.has(found.get(e) ?? ''));
    await recordMembershipChanges(
      trx,
      segment,
      [...removedIds].map((contactId) => ({ contactId, change: 'exit' as const })),
    );
    const row = await saveCount(trx, segment.id, await storedMemberCount(trx, segment.id));
    return { removed: removedIds.size, notFound, segment: row };
  });
}

// The compute of tracked segments (membership diff, entry/exit events) is db/segmentCompute.ts.

/** Tracked dynamic segments after `afterId` in id order (the recompute Schedule pages through them). */
export async function listTrackedSegments(db: Knex, afterId: string | null, limit: number): Promise<{ id: string; project_id: string; name: string }[]> {
  const q = db('segments').where({ type: 'DYNAMIC', track_membership: true }).orderBy('id').limit(limit).select('id', 'project_id', 'name');
  if (afterId) q.andWhere('id', '>', afterId);
  return q;
}
