import { route } from '../route';
import { badRequest, conflict, notFound } from '../errors';
import { EmailContentOut, EmailIdParams, EmailListQuery, EmailOut, EmailPageOut, RescheduleBody } from '../schemas/emails';
import type { AppContext } from '../context';
import { cancelScheduled } from '../../db/emailStates';
import { rescheduleScheduledEmail, type ScheduledMove } from '../../services/scheduledSends';
import { presentEmail, presentEmailSummary } from '../presenters/emails';
import { emailStory, findProjectEmail, listEmails } from '../../db/emailQueries';
import { parseTimeCursor } from '../../db/eventQueries';
import { emailView } from '../../db/emailViews';
import { withoutOpenPixel } from '../../lib/openPixel';

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
  route({
    method: 'get',
    path: '/emails/:id/content',
    auth: 'secret',
    tag: 'emails',
    resource: 'Email',
    summary: "One email's content as its recipient got it (rendered subject and HTML, without the open pixel: reading it here is not an open)",
    params: EmailIdParams,
    responses: { 200: { description: 'the rendered content', schema: EmailContentOut }, 404: { description: 'no such email in this project' } },
    async handler(ctx, { params, project }) {
      const view = await emailView(ctx.deps.knex, params.id, project.id);
      if (!view) throw notFound('Email');
      return { subject: view.subject, html: view.body === null ? null : withoutOpenPixel(view.body), gone: view.gone };
    },
  }),
  route({
    method: 'patch',
    path: '/emails/:id',
    auth: 'secret',
    // A key that may schedule a send may move or cancel it.
    scope: 'send',
    tag: 'emails',
    resource: 'Email',
    summary: 'Reschedule a scheduled email (docs/api.md "Scheduled sends"); a past time sends it now',
    params: EmailIdParams,
    body: RescheduleBody,
    responses: {
      200: { description: 'the email, still SCHEDULED, with its new sendAt', schema: EmailOut },
      404: { description: 'no such email in this project' },
      409: { description: 'the email is no longer SCHEDULED (handed over or cancelled)' },
    },
    async handler(ctx, { params, body, project }) {
      const moved = await rescheduleScheduledEmail(ctx.deps, project.id, params.id, new Date(body.sendAt));
      return answerMove(ctx, project.id, params.id, moved, 'rescheduled');
    },
  }),
  route({
    method: 'post',
    path: '/emails/:id/cancel',
    auth: 'secret',
    scope: 'send',
    tag: 'emails',
    resource: 'Email',
    summary: 'Cancel a scheduled email before its hand-over starts: it becomes CANCELLED and is never sent',
    params: EmailIdParams,
    responses: {
      200: { description: 'the email, CANCELLED', schema: EmailOut },
      404: { description: 'no such email in this project' },
      409: { description: 'the email is no longer SCHEDULED (handed over or cancelled)' },
    },
    async handler(ctx, { params, project }) {
      return answerMove(ctx, project.id, params.id, await cancelScheduled(ctx.deps.knex, project.id, params.id), 'cancelled');
    },
  }),
];

/** A reschedule's or cancel's answer: the email as GET shows it, 404 for none in the project, 409 once it left SCHEDULED. */
async function answerMove(ctx: AppContext, projectId: string, id: string, moved: ScheduledMove, verb: string) {
  if ('missing' in moved) throw notFound('Email');
  if ('status' in moved) {
    throw conflict(`Only a SCHEDULED email can be ${verb}; this one is ${moved.status}`, { details: { status: moved.status } });
  }
  const email = await findProjectEmail(ctx.deps.knex, projectId, id);
  if (!email) throw notFound('Email');
  return presentEmail(email, await emailStory(ctx.deps.knex, email));
}
