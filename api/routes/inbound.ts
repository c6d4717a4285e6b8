import { route } from '../route';
import { badRequest, notFound } from '../errors';
import { InboundIdParams, InboundListQuery, InboundOut, InboundPageOut } from '../schemas/inbound';
import { presentInbound, presentInboundSummary } from '../presenters/inbound';
import { findInboundMessage, listInboundMessages } from '../../db/inbound';
import { parseTimeCursor } from '../../db/eventQueries';

/** Mail the inbound SMTP server accepted for the project (docs/inbound.md). */

const common = { auth: 'secret', tag: 'inbound', resource: 'Inbound message' } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/inbound',
    summary: 'Mail received for the project (bounces, complaints, replies, mail to its inbound domain), newest first (cursor pagination)',
    query: InboundListQuery,
    responses: { 200: { description: 'a page of messages, without their raw bytes', schema: InboundPageOut } },
    async handler(ctx, { query, project }) {
      const after = query.cursor === undefined ? undefined : parseTimeCursor(query.cursor);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page');
      const page = await listInboundMessages(ctx.deps.knex, { projectId: project.id, limit: query.limit, kind: query.kind, after });
      return { data: page.rows.map(presentInboundSummary), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/inbound/:id',
    summary: 'One received message with its raw MIME source',
    params: InboundIdParams,
    responses: { 200: { description: 'the message', schema: InboundOut }, 404: { description: 'no such message in this project' } },
    async handler(ctx, { params, project }) {
      const row = await findInboundMessage(ctx.deps.knex, project.id, params.id);
      if (!row) throw notFound('Inbound message');
      return presentInbound(row);
    },
  }),
];
