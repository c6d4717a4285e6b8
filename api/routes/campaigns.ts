import { CampaignLinksOut } from '../schemas/tracking';
import { presentCount } from '../presenters/counts';
import { campaignLinks } from '../../db/tracking';
import { senderCheckWaived } from '../../lib/config';
import { route } from '../route';
import { audited, requestAuditor } from '../../services/audit';
import type { AppContext } from '../context';
import { badRequest, conflict, notFound, validationError } from '../errors';
import { IdParams } from '../schemas/common';
import {
  CampaignAudienceOut,
  CampaignBody,
  CampaignEnvelope,
  CampaignListQuery,
  CampaignOut,
  CampaignPage,
  CampaignPatchBody,
  CampaignSendBody,
  CampaignSendOut,
  CampaignStatsOut,
  CampaignTestBody,
  CampaignTestOut,
  CampaignTimeseriesOut,
  CampaignTimeseriesQuery,
} from '../schemas/campaigns';
import { campaignSeriesWindow, seriesWindowProblem } from '../../services/seriesWindows';
import { campaignTimeseries } from '../../db/analytics';
import { assertVerifiedSender } from '../../services/senderCheck';
import { parseLocalDateTime } from '../../lib/zonedTime';
import {
  CampaignStatus,
  createCampaign,
  deleteCampaign,
  duplicateCampaign,
  findCampaign,
  GuardedWrite,
  listCampaigns,
  replaceCampaign,
  setCampaignArchive,
} from '../../db/campaigns';
import { cancelCampaign, requestSend, unscheduleCampaign } from '../../db/campaignTransitions';
import { audienceCountOrEstimate } from '../../db/campaignAudience';
import { campaignStats } from '../../db/campaignStats';
import { FilterError } from '../../db/filters';
import { cancelCampaignWorkflow, endUnscheduledCampaignWorkflow, sendCampaignTest, setCampaignPaused } from '../../services/campaigns';
import { checkedCampaignFields, invalidAudience, missingSegment } from '../../services/campaignFields';
import { start } from '../../services/temporal';
import { campaignSendStart } from '../../temporal/workflows/campaignSend/start';
import { presentCampaign } from '../presenters/campaigns';
import { CampaignOrRssBody, RssRunNowOut, RssRunsOut, type RssCampaignBody } from '../schemas/rssCampaigns';
import { createRssCampaign } from '../../services/rssCampaigns';
import { createRssSchedule, deleteRssSchedule, setRssSchedulePaused, startRssRunNow } from '../../services/rssSchedules';
import { listRuns, moveRssCampaign } from '../../db/rssCampaigns';
import type { CampaignRow } from '../../db/campaigns';

const common = { auth: 'secret', scope: 'campaigns', tag: 'campaigns' } as const;

async function loadCampaign(ctx: AppContext, projectId: string, id: string) {
  const row = await findCampaign(ctx.deps.knex, projectId, id);
  if (!row) throw notFound('Campaign');
  return row;
}

/** The result of a status-guarded write: the row, or 404 / 409 naming the status that refused it. */
function guarded(result: GuardedWrite, refusal: (status: CampaignStatus) => string) {
  if (!result) throw notFound('Campaign');
  if ('conflict' in result) throw conflict(refusal(result.conflict), { details: { status: result.conflict } });
  return result.row;
}

/** Any value `new Date()` accepts (a string or a number of milliseconds); null or omitted means now. */
function parseSchedule(raw: unknown): Date | null {
  if (raw === undefined || raw === null) return null;
  const date = typeof raw === 'string' || typeof raw === 'number' ? new Date(raw) : null;
  if (!date || Number.isNaN(date.getTime())) throw badRequest('scheduledFor must be a date (timestamp string) or null', { details: { scheduledFor: raw } });
  return date;
}

/** A send in each recipient's zone starts now and holds each recipient until this local date-time of theirs. */
function parseLocalSchedule(raw: unknown): string {
  if (typeof raw !== 'string' || !parseLocalDateTime(raw)) {
    throw validationError([
      {
        field: 'scheduledFor',
        code: 'custom',
        message: 'with recipientTimezone, scheduledFor is a local date-time with no offset, such as 2026-12-01T09:00:00',
      },
    ]);
  }
  return raw;
}

/** POST /campaigns/:id/send of an RSS campaign: DRAFT → SCHEDULED, and its Schedule created. */
async function activateRss(ctx: AppContext, c: CampaignRow) {
  await assertVerifiedSender(ctx.deps.knex, c.project_id, c.from, senderCheckWaived(ctx.deps.config));
  const row = await audited(
    ctx.deps.knex,
    requestAuditor(ctx),
    (trx) => moveRssCampaign(trx, c.project_id, c.id, ['DRAFT'], 'SCHEDULED'),
    (r) => r && { projectId: c.project_id, action: 'campaign.send', target: { type: 'campaign', id: c.id }, details: { status: 'SCHEDULED', rss: true } },
  );
  if (!row) throw conflict(`Only a DRAFT campaign can be sent; this one is ${c.status}`, { details: { status: c.status } });
  await createRssSchedule(ctx.deps.temporal, row);
  return {
    success: true as const,
    data: { id: row.id, name: row.name, status: row.status, scheduledFor: null },
    message: `RSS campaign is active: it runs ${row.rss!.schedule.frequency} at ${row.rss!.schedule.time} (${row.rss!.schedule.timezone})`,
  };
}

/** Pause (SCHEDULED → PAUSED) or resume (PAUSED → SCHEDULED) an RSS campaign's Schedule. */
async function toggleRss(ctx: AppContext, c: CampaignRow, pause: boolean) {
  const [from, to] = pause ? (['SCHEDULED', 'PAUSED'] as const) : (['PAUSED', 'SCHEDULED'] as const);
  const row = await moveRssCampaign(ctx.deps.knex, c.project_id, c.id, [from], to);
  if (!row) throw conflict(`Only a ${from} RSS campaign can be ${pause ? 'paused' : 'resumed'}; this one is ${c.status}`, { details: { status: c.status } });
  await setRssSchedulePaused(ctx.deps.temporal, c.id, pause);
  return row;
}

export default [
  route({
    ...common,
    method: 'get',
    path: '/campaigns',
    summary: 'List campaigns (page pagination, status filter, search on name, subject and sender address)',
    query: CampaignListQuery,
    responses: { 200: { description: 'a page of campaigns', schema: CampaignPage } },
    async handler(ctx, { query, project }) {
      const { rows, total, totalPages } = await listCampaigns(ctx.deps.knex, project.id, query);
      return { data: rows.map(presentCampaign), page: query.page, pageSize: query.pageSize, total, totalPages };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/campaigns',
    audit: 'campaign.create',
    summary: 'Create a campaign in DRAFT (sender domain verified, audience fields valid)',
    body: CampaignBody,
    // With `kind: "RSS"` the RSS body (api/schemas/rssCampaigns.ts); otherwise the regular one, unchanged.
    bodyFor: () => CampaignOrRssBody as unknown as typeof CampaignBody,
    responses: {
      201: { description: 'created', schema: CampaignEnvelope },
      403: { description: 'sender domain not verified (code INTERNAL_SERVER_ERROR)' },
      422: { description: 'validation failed; an audience condition problem names the path of the bad node' },
    },
    async handler(ctx, { body: input, project }) {
      const waived = senderCheckWaived(ctx.deps.config);
      const body = input as CampaignBody | RssCampaignBody;
      const fields = 'kind' in body && body.kind === 'RSS' ? null : await checkedCampaignFields(ctx.deps.knex, project.id, body as CampaignBody, waived);
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => (fields ? createCampaign(trx, project.id, fields) : createRssCampaign(trx, project.id, body as RssCampaignBody, waived)),
        (c) => ({ projectId: project.id, action: 'campaign.create', target: { type: 'campaign', id: c.id }, details: { name: c.name } }),
      );
      ctx.status = 201;
      return { success: true, data: presentCampaign(row) };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/campaigns/:id',
    summary: 'One campaign',
    params: IdParams,
    responses: { 200: { description: 'the campaign', schema: CampaignOut } },
    async handler(ctx, { params, project }) {
      return presentCampaign(await loadCampaign(ctx, project.id, params.id));
    },
  }),
  route({
    ...common,
    method: 'put',
    path: '/campaigns/:id',
    audit: 'campaign.update',
    summary: 'Replace content and audience (same body as create); only while DRAFT or SCHEDULED',
    params: IdParams,
    body: CampaignBody,
    responses: {
      200: { description: 'the replaced campaign', schema: CampaignOut },
      409: { description: 'the campaign is SENDING, PAUSED, SENT or CANCELLED, or it is an RSS campaign (cancel it and create another)' },
    },
    async handler(ctx, { params, body, project }) {
      const current = await loadCampaign(ctx, project.id, params.id);
      if (current.kind === 'RSS')
        throw conflict('An RSS campaign is not replaced with PUT: cancel it and create another', { details: { status: current.status } });
      const fields = await checkedCampaignFields(ctx.deps.knex, project.id, body, senderCheckWaived(ctx.deps.config));
      const replaced = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => replaceCampaign(trx, project.id, params.id, fields),
        (r) => r && 'row' in r && { projectId: project.id, action: 'campaign.update', target: { type: 'campaign', id: params.id } },
      );
      if (replaced && 'missingSegment' in replaced) throw missingSegment();
      const row = guarded(replaced, (s) => `A ${s} campaign can no longer be changed`);
      return presentCampaign(row);
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/campaigns/:id',
    audit: 'campaign.update',
    summary: 'Change the settings that may change in any status: `archive` (shown in the public archive once SENT)',
    params: IdParams,
    body: CampaignPatchBody,
    responses: { 200: { description: 'the campaign', schema: CampaignOut } },
    async handler(ctx, { params, body, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => setCampaignArchive(trx, project.id, params.id, body.archive),
        (r) => r && { projectId: project.id, action: 'campaign.update', target: { type: 'campaign', id: params.id }, details: { archive: body.archive } },
      );
      if (!row) throw notFound('Campaign');
      return presentCampaign(row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/campaigns/:id',
    audit: 'campaign.delete',
    summary: 'Delete a campaign; refused while it is SCHEDULED, SENDING or PAUSED (its workflow is active: cancel it first)',
    params: IdParams,
    responses: { 204: { description: 'deleted' }, 409: { description: 'the campaign has an active execution' } },
    async handler(ctx, { params, project }) {
      const result = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteCampaign(trx, project.id, params.id),
        (r) => r && 'deleted' in r && { projectId: project.id, action: 'campaign.delete', target: { type: 'campaign', id: params.id } },
      );
      if (!result) throw notFound('Campaign');
      if ('conflict' in result)
        throw conflict(`The campaign is ${result.conflict} and has an active execution; cancel it first`, { details: { status: result.conflict } });
      ctx.status = 204;
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/campaigns/:id/duplicate',
    audit: 'campaign.create',
    summary: 'Copy a campaign into a new DRAFT named "<name> (copy)"; the original is unchanged',
    params: IdParams,
    responses: { 201: { description: 'the new campaign', schema: CampaignOut } },
    async handler(ctx, { params, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => duplicateCampaign(trx, project.id, params.id),
        (c) =>
          c && { projectId: project.id, action: 'campaign.create', target: { type: 'campaign', id: c.id }, details: { name: c.name, duplicateOf: params.id } },
      );
      if (!row) throw notFound('Campaign');
      ctx.status = 201;
      return presentCampaign(row);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/campaigns/:id/test',
    summary: 'Send one test email of the campaign to an address (subject prefixed "[Test] "); counters do not move',
    params: IdParams,
    body: CampaignTestBody,
    responses: {
      200: { description: 'the test email was queued for delivery', schema: CampaignTestOut },
      403: { description: 'sender domain not verified (code INTERNAL_SERVER_ERROR)' },
    },
    async handler(ctx, { params, body, project }) {
      const { emailId, to } = await sendCampaignTest(ctx.deps, await loadCampaign(ctx, project.id, params.id), body.email);
      return { success: true, data: { emailId, to }, message: `Test email sent to ${to}` };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/campaigns/:id/send',
    audit: 'campaign.send',
    summary: 'Send a DRAFT campaign now, or schedule it with scheduledFor',
    params: IdParams,
    body: CampaignSendBody,
    responses: {
      200: { description: 'sending (SENDING) or scheduled (SCHEDULED)', schema: CampaignSendOut },
      400: { description: 'scheduledFor is not a date' },
      403: { description: 'sender domain not verified (code INTERNAL_SERVER_ERROR)' },
      409: { description: 'the campaign is not a DRAFT' },
    },
    async handler(ctx, { params, body, project }) {
      const rss = await loadCampaign(ctx, project.id, params.id);
      if (rss.kind === 'RSS') return activateRss(ctx, rss);
      const localSchedule = body.recipientTimezone ? parseLocalSchedule(body.scheduledFor) : null;
      const scheduledFor = localSchedule ? null : parseSchedule(body.scheduledFor);
      const current = await loadCampaign(ctx, project.id, params.id);
      // The domain may have been removed since the campaign was written.
      await assertVerifiedSender(ctx.deps.knex, project.id, current.from, senderCheckWaived(ctx.deps.config));
      // The audit entry commits with the status change, before the workflow starts: the workflow reads the committed row.
      const sent = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => requestSend(trx, project.id, params.id, scheduledFor, localSchedule),
        (r) =>
          r &&
          'row' in r && {
            projectId: project.id,
            action: 'campaign.send',
            target: { type: 'campaign', id: params.id },
            details: { status: r.row.status, scheduledFor: r.row.scheduled_for ?? localSchedule },
          },
      );
      const row = guarded(sent, (s) => `Only a DRAFT campaign can be sent; this one is ${s}`);
      await start(ctx.deps.temporal, campaignSendStart, { campaign: row, config: ctx.deps.config });
      const campaign = presentCampaign(row);
      return {
        success: true,
        data: { id: campaign.id, name: campaign.name, status: campaign.status, scheduledFor: campaign.scheduledFor },
        message: localSchedule
          ? `Campaign is being sent at ${localSchedule} in each recipient's time zone`
          : scheduledFor
            ? `Campaign scheduled for ${campaign.scheduledFor}`
            : 'Campaign is being sent now',
      };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/campaigns/:id/cancel',
    audit: 'campaign.cancel',
    summary: 'Cancel a SCHEDULED, SENDING or PAUSED campaign: no further batch goes out; emails already handed over stay sent',
    params: IdParams,
    responses: {
      200: { description: 'the cancelled campaign', schema: CampaignOut },
      409: { description: 'the campaign is not SCHEDULED, SENDING or PAUSED' },
    },
    async handler(ctx, { params, project }) {
      const row = guarded(
        await audited(
          ctx.deps.knex,
          requestAuditor(ctx),
          (trx) => cancelCampaign(trx, project.id, params.id),
          (r) => r && 'row' in r && { projectId: project.id, action: 'campaign.cancel', target: { type: 'campaign', id: params.id } },
        ),
        (s) => `Only a SCHEDULED, SENDING or PAUSED campaign can be cancelled; this one is ${s}`,
      );
      if (row.kind === 'RSS') await deleteRssSchedule(ctx.deps.temporal, row.id);
      else await cancelCampaignWorkflow(ctx.deps.temporal, row.id);
      return presentCampaign(row);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/campaigns/:id/unschedule',
    audit: 'campaign.unschedule',
    summary: 'Take a SCHEDULED campaign back to DRAFT (extension of the spec), to edit it or send it another time',
    params: IdParams,
    responses: {
      200: { description: 'the campaign, now a DRAFT without a scheduled time', schema: CampaignOut },
      409: { description: 'the campaign is not SCHEDULED, its time is less than 5 seconds away, or it is an RSS campaign' },
    },
    async handler(ctx, { params, project }) {
      const current = await loadCampaign(ctx, project.id, params.id);
      if (current.kind === 'RSS')
        throw conflict('An RSS campaign has no scheduled time to take back: pause it (POST /campaigns/:id/pause) or cancel it', {
          details: { status: current.status },
        });
      const row = guarded(
        await audited(
          ctx.deps.knex,
          requestAuditor(ctx),
          (trx) => unscheduleCampaign(trx, project.id, params.id),
          (r) => r && 'row' in r && { projectId: project.id, action: 'campaign.unschedule', target: { type: 'campaign', id: params.id } },
        ),
        (s) =>
          s === 'SCHEDULED'
            ? 'The campaign is about to start sending and can no longer be unscheduled'
            : `Only a SCHEDULED campaign can be unscheduled; this one is ${s}`,
      );
      await endUnscheduledCampaignWorkflow(ctx.deps.temporal, row.id);
      return presentCampaign(row);
    },
  }),
  ...(['pause', 'resume'] as const).map((action) => {
    const [from, to] = action === 'pause' ? (['SENDING', 'PAUSED'] as const) : (['PAUSED', 'SENDING'] as const);
    return route({
      ...common,
      method: 'post',
      path: `/campaigns/:id/${action}`,
      summary:
        action === 'pause'
          ? 'Pause a SENDING campaign (extension of the spec): no further batch is handed over; batches in flight finish'
          : 'Resume a PAUSED campaign (extension of the spec): sending continues with the recipients not yet handed over',
      params: IdParams,
      responses: {
        200: { description: `the campaign, now ${to}`, schema: CampaignOut },
        409: { description: `the campaign is not ${from}, or its workflow refused` },
      },
      async handler(ctx, { params, project }) {
        const row = await loadCampaign(ctx, project.id, params.id);
        if (row.kind === 'RSS') return presentCampaign(await toggleRss(ctx, row, action === 'pause'));
        const refuse = (why: string) => conflict(`Only a ${from} campaign can be ${action}d; ${why}`, { details: { status: row.status } });
        if (row.status !== from) throw refuse(`this one is ${row.status}`);
        // The workflow decides (a Temporal Update with a validator) and writes the row before answering.
        const outcome = await setCampaignPaused(ctx.deps.temporal, row.id, action === 'pause');
        if ('refused' in outcome) throw refuse(outcome.refused);
        return presentCampaign(await loadCampaign(ctx, project.id, params.id));
      },
    });
  }),
  route({
    ...common,
    method: 'post',
    path: '/campaigns/:id/run',
    audit: 'campaign.send',
    summary: '"Send now" of an RSS campaign: one run at once (new feed items → one email to the audience; none → nothing sent); see GET /campaigns/:id/runs',
    params: IdParams,
    responses: {
      202: { description: 'the run started', schema: RssRunNowOut },
      409: { description: 'not an RSS campaign, or it is CANCELLED' },
    },
    async handler(ctx, { params, project }) {
      const c = await loadCampaign(ctx, project.id, params.id);
      if (c.kind !== 'RSS' || c.status === 'CANCELLED')
        throw conflict(c.kind !== 'RSS' ? 'Only an RSS campaign runs; send this one with POST /campaigns/:id/send' : 'The RSS campaign is CANCELLED', {
          details: { status: c.status },
        });
      await assertVerifiedSender(ctx.deps.knex, project.id, c.from, senderCheckWaived(ctx.deps.config));
      const runId = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        async () => startRssRunNow(ctx.deps.temporal, c),
        (id) => ({ projectId: project.id, action: 'campaign.send', target: { type: 'campaign', id: c.id }, details: { run: id } }),
      );
      ctx.status = 202;
      return { success: true, data: { runId }, message: 'The RSS campaign runs now' };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/campaigns/:id/runs',
    summary: "An RSS campaign's runs, newest first (at most 100): what each found and the campaign it sent",
    params: IdParams,
    responses: { 200: { description: 'the runs', schema: RssRunsOut } },
    async handler(ctx, { params, project }) {
      await loadCampaign(ctx, project.id, params.id);
      const runs = await listRuns(ctx.deps.knex, project.id, params.id);
      return {
        data: runs.map((r) => ({
          id: r.id,
          status: r.status,
          itemCount: r.item_count,
          items: r.items,
          sentCampaignId: r.sent_campaign_id,
          emailsSent: r.emails_sent,
          error: r.error,
          startedAt: r.started_at.toISOString(),
          finishedAt: r.finished_at ? r.finished_at.toISOString() : null,
        })),
      };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/campaigns/:id/stats',
    summary: 'Send, delivery, open, click, bounce, complaint and unsubscribe counts with rates (shares of sent, 0 to 1)',
    params: IdParams,
    responses: { 200: { description: 'counts and rates', schema: CampaignStatsOut } },
    async handler(ctx, { params, project }) {
      return await campaignStats(ctx.deps.knex, await loadCampaign(ctx, project.id, params.id), ctx.deps.config.email.sendRatePerSecond);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/campaigns/:id/audience',
    summary: 'How many contacts the campaign would go to if it started now (what a send confirmation names); sending snapshots the audience again',
    params: IdParams,
    responses: {
      200: { description: 'the count', schema: CampaignAudienceOut },
      422: { description: "the audience condition no longer compiles against the project's fields" },
    },
    async handler(ctx, { params, project }) {
      const c = await loadCampaign(ctx, project.id, params.id);
      try {
        return presentCount(await audienceCountOrEstimate(ctx.deps.knex, c, { threshold: ctx.deps.config.countEstimateThreshold }));
      } catch (err) {
        if (err instanceof FilterError) throw invalidAudience(err);
        throw err;
      }
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/campaigns/:id/timeseries',
    summary: "The campaign's emails sent, first opened and first clicked per UTC hour or day (the report's chart; at most 90 days and 2000 buckets)",
    params: IdParams,
    query: CampaignTimeseriesQuery,
    responses: { 200: { description: 'one point per bucket, empty buckets included', schema: CampaignTimeseriesOut } },
    async handler(ctx, { params, query, project }) {
      const c = await loadCampaign(ctx, project.id, params.id);
      const fallback = campaignSeriesWindow(query.from ?? c.started_at ?? c.created_at, query.to);
      const window = { from: query.from ?? fallback.from, to: query.to ?? fallback.to, interval: query.interval ?? fallback.interval };
      const problem = seriesWindowProblem(window.from, window.to, window.interval);
      // A bad query value is a 400, as the router answers one (and GET /analytics/timeseries this same problem).
      if (problem) throw badRequest(`Invalid query: ${problem}`, { errors: [{ field: 'from', code: 'custom', message: problem }] });
      const points = await campaignTimeseries(ctx.deps.knex, { projectId: project.id, campaignId: c.id, ...window });
      const total = (k: 'sent' | 'opened' | 'clicked') => points.reduce((sum, p) => sum + p[k], 0);
      return {
        interval: window.interval,
        from: window.from.toISOString(),
        to: window.to.toISOString(),
        totals: { sent: total('sent'), opened: total('opened'), clicked: total('clicked') },
        points: points.map((p) => ({ ...p, t: new Date(p.t).toISOString() })),
      };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/campaigns/:id/links',
    summary: "Clicks per link of the campaign's emails (first-party click tracking), most clicked first; machines' clicks are not counted",
    params: IdParams,
    responses: { 200: { description: 'one entry per original URL', schema: CampaignLinksOut } },
    async handler(ctx, { params, project }) {
      return await campaignLinks(ctx.deps.knex, (await loadCampaign(ctx, project.id, params.id)).id);
    },
  }),
];
