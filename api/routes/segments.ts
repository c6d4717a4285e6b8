import { route } from '../route';
import { estimatedFlag } from '../presenters/counts';
import { heavyReader } from '../../services/reads';
import { audited, changedKeys, requestAuditor } from '../../services/audit';
import type { AppContext } from '../context';
import { conflict, FlatError, notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { filterErrorToFieldError } from '../schemas/filters';
import {
  ComputeOut,
  ComputeRunningOut,
  MemberPageOut,
  MemberPageQuery,
  MembersAdd,
  MembersAddOut,
  MembersRemove,
  MembersRemoveOut,
  RefreshOut,
  SegmentCreate,
  SegmentListOut,
  SegmentOut,
  SegmentUpdate,
} from '../schemas/segments';
import { compileFilter, FilterError, loadFieldTypes } from '../../db/filters';

import {
  addMembers,
  createSegment,
  deleteSegment,
  findSegment,
  listMembers,
  listSegments,
  parseMemberCursor,
  refreshMemberCount,
  removeMembers,
  updateSegment,
  ComputeResult,
  SegmentRow,
} from '../../db/segments';
import { computeSegmentNow } from '../../services/segments';
import { presentContact } from '../presenters/contacts';
import { presentSegment } from '../presenters/segments';

const common = { auth: 'secret', tag: 'segments', validationErrors: 'flat' } as const;

async function segmentOr404(ctx: AppContext, projectId: string, id: string): Promise<SegmentRow> {
  const row = await findSegment(ctx.deps.knex, projectId, id);
  if (!row) throw notFound('Segment');
  return row;
}

/** The compiler's semantic check against the project's field types (an operator that does not fit a known key's type). */
async function assertCompiles(ctx: AppContext, projectId: string, condition: unknown): Promise<void> {
  try {
    compileFilter(condition, { fieldTypes: await loadFieldTypes(ctx.deps.knex, projectId) });
  } catch (err) {
    if (!(err instanceof FilterError)) throw err;
    const field = filterErrorToFieldError(err, 'condition');
    throw new FlatError(400, `${field.field}: ${field.message}`);
  }
}

/**
 * A stored condition can stop compiling when a data key it filters on is later registered with
 * another type (a `contains` on a key that turns out numeric): that is the segment's state, not a
 * server fault, so it answers 409 and says what to fix.
 */
async function evaluating<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof FilterError)) throw err;
    throw conflict(`The segment condition no longer fits the project's fields (${filterErrorToFieldError(err, 'condition').field}: ${err.detail}); update it`);
  }
}

/** Runs the `segmentCompute` workflow (one run, fresh id) and waits for its counts. */
async function runCompute(ctx: AppContext, segment: SegmentRow): Promise<ComputeResult | { running: true; workflowId: string }> {
  // Checked here so a condition that cannot compile answers 409 instead of failing the workflow.
  await evaluating(async () => compileFilter(segment.condition, { fieldTypes: await loadFieldTypes(ctx.deps.knex, segment.project_id) }));
  return computeSegmentNow(ctx.deps.temporal, segment, COMPUTE_WAIT_MS);
}

const COMPUTE_WAIT_MS = 30_000;

export default [
  route({
    ...common,
    method: 'get',
    path: '/segments',
    summary: 'All segments of the project, newest first (no pagination)',
    responses: { 200: { description: 'segments', schema: SegmentListOut } },
    async handler(ctx, { project }) {
      return (await listSegments(ctx.deps.knex, project.id)).map(presentSegment);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/segments',
    audit: 'segment.create',
    summary: 'Create a segment: DYNAMIC (a filter tree, required) or STATIC (a managed list; a condition sent with it is ignored)',
    body: SegmentCreate,
    responses: { 201: { description: 'created', schema: SegmentOut } },
    async handler(ctx, { body, project }) {
      if (body.condition) await assertCompiles(ctx, project.id, body.condition);
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createSegment(trx, project.id, body),
        (g) => ({ projectId: project.id, action: 'segment.create', target: { type: 'segment', id: g.id }, details: { name: g.name } }),
      );
      ctx.status = 201;
      return presentSegment(row);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/segments/:id',
    summary: 'One segment with its cached memberCount',
    params: IdParams,
    responses: { 200: { description: 'the segment', schema: SegmentOut } },
    async handler(ctx, { params, project }) {
      return presentSegment(await segmentOr404(ctx, project.id, params.id));
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/segments/:id',
    audit: 'segment.update',
    summary: 'Update name, description, condition (DYNAMIC only) or trackMembership; the slug stays',
    params: IdParams,
    body: SegmentUpdate,
    responses: { 200: { description: 'the updated segment', schema: SegmentOut } },
    async handler(ctx, { params, body, project }) {
      const segment = await segmentOr404(ctx, project.id, params.id);
      if (body.condition !== undefined) {
        if (segment.type !== 'DYNAMIC') throw new FlatError(400, 'Condition can only be set on DYNAMIC segments');
        await assertCompiles(ctx, project.id, body.condition);
      }
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => updateSegment(trx, segment, body),
        () => ({ projectId: project.id, action: 'segment.update', target: { type: 'segment', id: segment.id }, details: { changed: changedKeys(body) } }),
      );
      return presentSegment(row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/segments/:id',
    audit: 'segment.delete',
    summary: 'Delete a segment; 409 while a SCHEDULED or SENDING campaign targets it',
    params: IdParams,
    responses: { 204: { description: 'deleted' }, 409: { description: 'used by an active campaign' } },
    async handler(ctx, { params, project }) {
      const segment = await segmentOr404(ctx, project.id, params.id);
      const outcome = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteSegment(trx, project.id, segment.id),
        (r) => r === 'deleted' && { projectId: project.id, action: 'segment.delete', target: { type: 'segment', id: segment.id } },
      );
      if (outcome === 'in-use') throw conflict('Segment is used by an active campaign');
      if (!outcome) throw notFound('Segment');
      ctx.status = 204;
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/segments/:id/contacts',
    summary: 'Members, newest contacts first: the live match for DYNAMIC segments, the stored list for STATIC ones',
    params: IdParams,
    query: MemberPageQuery,
    responses: { 200: { description: 'a page of members', schema: MemberPageOut } },
    async handler(ctx, { params, query, project }) {
      const after = query.cursor === undefined ? undefined : parseMemberCursor(query.cursor);
      if (after === null) throw new FlatError(400, 'Invalid cursor: pass the cursor of a previous page');
      const segment = await segmentOr404(ctx, project.id, params.id);
      const reader = await heavyReader(ctx.deps, project.id);
      const r = await evaluating(() => listMembers(reader, segment, query.page, query.pageSize, after, ctx.deps.config.countEstimateThreshold));
      return {
        data: r.rows.map(presentContact),
        total: r.total,
        ...estimatedFlag(r.estimated),
        page: r.page,
        pageSize: query.pageSize,
        cursor: r.cursor,
        hasMore: r.hasMore,
      };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/segments/:id/members',
    summary: 'Add contacts to a STATIC segment by email; createMissing creates unknown ones (subscribed as given, default true)',
    params: IdParams,
    body: MembersAdd,
    responses: { 200: { description: 'added: contacts that became members; notFound: emails with no contact', schema: MembersAddOut } },
    async handler(ctx, { params, body, project }) {
      const segment = await segmentOr404(ctx, project.id, params.id);
      if (segment.type !== 'STATIC') throw new FlatError(400, 'Members can only be added to STATIC segments');
      const r = await addMembers(ctx.deps.knex, segment, body);
      await ctx.deps.runtime.events.handOff(r.events);
      return { added: r.added, notFound: r.notFound };
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/segments/:id/members',
    summary: 'Remove contacts from a STATIC segment by email',
    params: IdParams,
    body: MembersRemove,
    responses: { 200: { description: 'removed: members removed; notFound: emails that named no member', schema: MembersRemoveOut } },
    async handler(ctx, { params, body, project }) {
      const segment = await segmentOr404(ctx, project.id, params.id);
      if (segment.type !== 'STATIC') throw new FlatError(400, 'Members can only be removed from STATIC segments');
      const r = await removeMembers(ctx.deps.knex, segment, body.emails);
      return { removed: r.removed, notFound: r.notFound };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/segments/:id/compute',
    summary:
      'Recompute a tracked DYNAMIC segment: diff its stored membership with the live match, fire segment.<slug>.entry/exit events; other segments only get their count refreshed',
    params: IdParams,
    responses: {
      200: { description: 'counts of the run', schema: ComputeOut },
      202: { description: 'still running in Temporal: the workflow id to follow it by', schema: ComputeRunningOut },
    },
    async handler(ctx, { params, project }) {
      const segment = await segmentOr404(ctx, project.id, params.id);
      if (segment.type === 'DYNAMIC' && segment.track_membership) {
        const result = await runCompute(ctx, segment);
        // Still running after the wait: 202 with the Temporal workflow id to follow it by.
        if ('running' in result) {
          ctx.status = 202;
          return result;
        }
        return result;
      }
      const row = await evaluating(() => refreshMemberCount(ctx.deps.knex, segment));
      return { memberCount: row.member_count, entered: 0, exited: 0 };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/segments/:id/refresh',
    summary: 'Recount the members and cache the count; no events, no membership writes',
    params: IdParams,
    responses: { 200: { description: 'the new count', schema: RefreshOut } },
    async handler(ctx, { params, project }) {
      const segment = await segmentOr404(ctx, project.id, params.id);
      return { memberCount: (await evaluating(() => refreshMemberCount(ctx.deps.knex, segment))).member_count };
    },
  }),
];
