import { route } from '../route';
import { badRequest, notFound } from '../errors';
import { EmailIdParams, EmailListQuery, EmailOut, EmailPageOut } from '../schemas/emails';
import { presentEmail, presentEmailSummary } from '../presenters/emails';
import { emailStory, findProjectEmail, listEmails } from '../../db/emailQueries';
import { parseTimeCursor } from '../../db/eventQueries';

export default [
  route({
    method: 'get',
    path: '/emails',
    auth: 'secret',
    tag: 'emails',
    summary: "The project's emails, newest first (cursor pagination), filterable by contact and status",
    query: EmailListQuery,
    responses: { 200: { description: 'a page of emails (without their events)', schema: EmailPageOut } },
    async handler(ctx, { query, project }) {
      const after = query.cursor === undefined ? undefined : parseTimeCursor(query.cursor);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page');
      const page = await listEmails(ctx.deps.knex, { projectId: project.id, limit: query.limit, contactId: query.contactId, status: query.status, after });
      return { data: page.rows.map(presentEmailSummary), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
  route({
    method: 'get',
    path: '/emails/:id',
    auth: 'secret',
    tag: 'emails',
    resource: 'Email',
    summary: 'One email and its story: sent, delivered, opened, clicked (with the url), bounced, complained, suppressed, failed, oldest first',
    params: EmailIdParams,
    responses: { 200: { description: 'the email with its events', schema: EmailOut }, 404: { description: 'no such email in this project' } },
    async handler(ctx, { params, project }) {
      const email = await findProjectEmail(ctx.deps.knex, project.id, params.id);
      if (!email) throw notFound('Email');
      return presentEmail(email, await emailStory(ctx.deps.knex, email));
    },
  }),
];
