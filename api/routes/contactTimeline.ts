import { route } from '../route';
import { badRequest, notFound } from '../errors';
import { ContactIdParams } from '../schemas/contacts';
import { TimelinePageOut, TimelineQuery } from '../schemas/contactTimeline';
import { findContact } from '../../db/contactReaders';
import { contactTimeline, parseTimelineCursor } from '../../db/contactTimeline';
import { presentTimelineItem } from '../presenters/contactTimeline';

export default [
  route({
    method: 'get',
    path: '/contacts/:id/timeline',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary:
      "One person's timeline, newest first (cursor pagination): emails with their story, events, workflow runs, segment and topic changes, consent records, inbound mail",
    params: ContactIdParams,
    query: TimelineQuery,
    responses: { 200: { description: 'a page of the timeline', schema: TimelinePageOut }, 404: { description: 'no such contact in this project' } },
    async handler(ctx, { params, query, project }) {
      const after = query.cursor === undefined ? undefined : parseTimelineCursor(query.cursor);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page');
      if (!(await findContact(ctx.deps.knex, project.id, params.id))) throw notFound('Contact');
      const page = await contactTimeline(ctx.deps.knex, { projectId: project.id, contactId: params.id, limit: query.limit, kinds: query.kind, after });
      return { data: page.rows.map(presentTimelineItem), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
];
