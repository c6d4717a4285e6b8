import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { reopenForWaits } from '../../db/events';
import { routeEvents } from '../../activities/eventBatch';
import { campaignActivities } from '../../activities/campaigns';
import { replaceCampaign } from '../../db/campaigns';

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;

const DOMAIN = 'mail.example.com';

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const base = {
  name: 'Spring news',
  subject: 'Hi {{ name ?? "there" }}',
  body: '<p>Hello {{ name ?? "friend" }}</p><a href="{{ unsubscribeUrl }}">unsubscribe</a>',
  from: `news@${DOMAIN}`,
  audienceType: 'ALL',
};
// `fx` is resolved per call: the default project only exists once beforeAll ran.
const key = (fx?: ProjectFixture) => bearer((fx ?? p).secretKey);
const api = (fx?: ProjectFixture) => ({
  create: (body: Record<string, unknown> = {}) =>
    h.http
      .post('/campaigns')
      .set(key(fx))
      .send({ ...base, ...body }),
  get: (id: string) => h.http.get(`/campaigns/${id}`).set(key(fx)),
  list: (query: Record<string, string | number> = {}) => h.http.get('/campaigns').query(query).set(key(fx)),
  put: (id: string, body: Record<string, unknown>) => h.http.put(`/campaigns/${id}`).set(key(fx)).send(body),
  del: (id: string) => h.http.delete(`/campaigns/${id}`).set(key(fx)),
  post: (id: string, action: string, body: Record<string, unknown> = {}) => h.http.post(`/campaigns/${id}/${action}`).set(key(fx)).send(body),
  stats: (id: string) => h.http.get(`/campaigns/${id}/stats`).set(key(fx)),
});
const c = api();

async function created(body: Record<string, unknown> = {}, fx?: ProjectFixture): Promise<any> {
  const res = await api(fx).create(body);
  expect(res.status).toBe(201);
  return res.body.data;
}

/** A project of its own (so "ALL" means exactly these contacts) with a verified domain. */
async function projectWith(contacts: Array<{ email: string; subscribed?: boolean; data?: Record<string, unknown> }>) {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  for (const ct of contacts) {
    const res = await h.http
      .post('/contacts')
      .set(key(fx))
      .send({ subscribed: true, ...ct });
    expect([200, 201]).toContain(res.status);
  }
  return fx;
}

const waitStatus = (fx: ProjectFixture, id: string, status: string) =>
  eventually(async () => {
    const res = await api(fx).get(id);
    return res.body.status === status ? res.body : null;
  });

const sinkFor = (email: string) => sink.recipients().filter((r) => r.email === email);

describe('campaign resource', () => {
  it('creates a DRAFT campaign with type MARKETING by default and returns it in { success, data }', async () => {
    const res = await c.create({ description: 'internal', fromName: 'News', replyTo: 'reply@example.org' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(d).toMatchObject({
      name: 'Spring news',
      description: 'internal',
      subject: base.subject,
      body: base.body,
      from: base.from,
      fromName: 'News',
      replyTo: 'reply@example.org',
      type: 'MARKETING',
      status: 'DRAFT',
      audienceType: 'ALL',
      audienceCondition: null,
      segmentId: null,
      scheduledFor: null,
      totalRecipients: 0,
      sentCount: 0,
      deliveredCount: 0,
      openedCount: 0,
      clickedCount: 0,
      bouncedCount: 0,
      projectId: p.projectId,
      sentAt: null,
    });
    expect(d.id).toMatch(/^[0-9a-f-]{36}$/);
    const got = await c.get(d.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(d);
  });

  it.each([
    ['no name', { name: undefined }, 'name'],
    ['no subject', { subject: undefined }, 'subject'],
    ['no body', { body: undefined }, 'body'],
    ['no from', { from: undefined }, 'from'],
    ['no audienceType', { audienceType: undefined }, 'audienceType'],
    ['an unknown audienceType', { audienceType: 'SOME' }, 'audienceType'],
    ['an unknown type', { type: 'PROMO' }, 'type'],
    ['a bad replyTo', { replyTo: 'nope' }, 'replyTo'],
    ['a subject with a line break', { subject: 'a\nb' }, 'subject'],
    ['a body that is not valid Liquid', { body: '{% if %}' }, 'body'],
    ['SEGMENT without segmentId', { audienceType: 'SEGMENT' }, 'segmentId'],
    ['SEGMENT with a segment that does not exist', { audienceType: 'SEGMENT', segmentId: '00000000-0000-4000-8000-000000000000' }, 'segmentId'],
    ['FILTERED without audienceCondition', { audienceType: 'FILTERED' }, 'audienceCondition'],
    [
      'FILTERED with an unknown operator',
      { audienceType: 'FILTERED', audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'isAbout', value: 'x' }] }] } },
      'audienceCondition.groups.0.filters.0.operator',
    ],
  ])('refuses %s with 422 naming the field', async (_name, patch, field) => {
    const res = await c.create(patch);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors.map((e: any) => e.field)).toContain(field);
  });

  it('compiles the audience condition against the project field types and names the bad node', async () => {
    const fx = await projectWith([{ email: uniqueEmail(), data: { age: 31 } }]);
    const tree = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'data.age', operator: 'within', value: 3, unit: 'days' },
          ],
        },
      ],
    };
    const res = await api(fx).create({ audienceType: 'FILTERED', audienceCondition: tree });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0].field).toBe('audienceCondition.groups.0.filters.1.operator');
  });

  it('refuses a sender on an unverified domain with 403 and a segment of another project with 422', async () => {
    const res = await c.create({ from: 'x@unverified.example.net' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    const other = await createProjectFixture(h);
    const seg = await h.http.post('/segments').set(bearer(other.secretKey)).send({ name: 'theirs', type: 'STATIC' });
    expect(seg.status).toBe(201);
    const cross = await c.create({ audienceType: 'SEGMENT', segmentId: seg.body.id });
    expect(cross.status).toBe(422);
    expect(cross.body.error.errors[0].field).toBe('segmentId');
  });

  it('lists with page pagination, a status filter (unknown status → 400), search on name, subject and sender, and sorting', async () => {
    const fx = await projectWith([]);
    const a = await created({ name: 'Alpha launch', subject: 'First' }, fx);
    const b = await created({ name: 'beta', subject: 'Second BIG news' }, fx);
    const g = await created({ name: 'Gamma', subject: 'Third', from: `promo@${DOMAIN}` }, fx);
    const all = await api(fx).list({ pageSize: 2 });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, pageSize: 2, total: 3, totalPages: 2 });
    expect(all.body.data.map((x: any) => x.id)).toEqual([g.id, b.id]);
    expect((await api(fx).list({ page: 2, pageSize: 2 })).body.data.map((x: any) => x.id)).toEqual([a.id]);

    const byName = await api(fx).list({ sort: 'name', dir: 'asc' });
    expect(byName.body.data.map((x: any) => x.name)).toEqual(['Alpha launch', 'beta', 'Gamma']);
    const fallback = await api(fx).list({ sort: 'bogus', dir: 'sideways' });
    expect(fallback.status).toBe(200);
    expect(fallback.body.data.map((x: any) => x.id)).toEqual([g.id, b.id, a.id]);

    expect((await api(fx).list({ search: 'LAUNCH' })).body.data.map((x: any) => x.id)).toEqual([a.id]);
    expect((await api(fx).list({ search: 'big news' })).body.data.map((x: any) => x.id)).toEqual([b.id]);
    expect((await api(fx).list({ search: 'PROMO@' })).body.data.map((x: any) => x.id)).toEqual([g.id]);
    expect((await api(fx).list({ search: '%' })).body.total).toBe(0);

    await api(fx).post(a.id, 'send', { scheduledFor: '2999-01-01T00:00:00Z' });
    expect((await api(fx).list({ status: 'SCHEDULED' })).body.data.map((x: any) => x.id)).toEqual([a.id]);
    expect((await api(fx).list({ status: 'DRAFT' })).body.total).toBe(2);
    const bad = await api(fx).list({ status: 'ARCHIVED' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    await api(fx).post(a.id, 'cancel');
  });

  it('replaces a DRAFT or SCHEDULED campaign with PUT and refuses other statuses with 409', async () => {
    const draft = await created();
    const replaced = await c.put(draft.id, { ...base, name: 'Renamed', subject: 'New subject', type: 'TRANSACTIONAL', description: 'x' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: draft.id, name: 'Renamed', subject: 'New subject', type: 'TRANSACTIONAL', description: 'x', status: 'DRAFT' });
    // Full replace: what is left out goes back to its default.
    const again = await c.put(draft.id, base);
    expect(again.body).toMatchObject({ name: base.name, type: 'MARKETING', description: null });
    expect((await c.put(draft.id, { name: 'only a name' })).status).toBe(422);

    await c.post(draft.id, 'send', { scheduledFor: '2999-01-01T00:00:00Z' });
    const scheduled = await c.put(draft.id, { ...base, name: 'Scheduled edit' });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toMatchObject({ name: 'Scheduled edit', status: 'SCHEDULED' });

    await c.post(draft.id, 'cancel');
    const refused = await c.put(draft.id, base);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect((await c.put('00000000-0000-4000-8000-000000000000', base)).status).toBe(404);
  });

  it("refuses to point a campaign at a segment that is not (or no longer) the project's, also past the route's own check", async () => {
    const draft = await created();
    const other = await createProjectFixture(h);
    const foreign = (await h.http.post('/segments').set(bearer(other.secretKey)).send({ name: 'theirs', type: 'STATIC' })).body.id;
    const res = await c.put(draft.id, { ...base, audienceType: 'SEGMENT', segmentId: foreign });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0].field).toBe('segmentId');
    // What the write itself decides when a segment vanishes between the route's check and the write.
    const fields = { ...base, audienceType: 'SEGMENT', segmentId: foreign } as any;
    expect(await replaceCampaign(h.deps.knex, p.projectId, draft.id, fields)).toEqual({ missingSegment: true });
    expect((await c.get(draft.id)).body.audienceType).toBe('ALL');
  });

  it('duplicates any campaign into a new DRAFT and leaves the original unchanged', async () => {
    const tree = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };
    const original = await created({ audienceType: 'FILTERED', audienceCondition: tree });
    await c.post(original.id, 'send', { scheduledFor: '2999-01-01T00:00:00Z' });
    const copy = await c.post(original.id, 'duplicate');
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({
      name: `${base.name} (copy)`,
      status: 'DRAFT',
      audienceType: 'FILTERED',
      audienceCondition: tree,
      scheduledFor: null,
      subject: base.subject,
    });
    expect(copy.body.id).not.toBe(original.id);
    expect((await c.get(original.id)).body).toMatchObject({ status: 'SCHEDULED', name: base.name });
    await c.post(original.id, 'cancel');
  });

  it('deletes a DRAFT, refuses a campaign with an active execution (scheduled) with 409, and deletes it once cancelled', async () => {
    const draft = await created();
    expect((await c.del(draft.id)).status).toBe(204);
    expect((await c.get(draft.id)).status).toBe(404);
    const scheduled = await created();
    await c.post(scheduled.id, 'send', { scheduledFor: '2999-01-01T00:00:00Z' });
    const refused = await c.del(scheduled.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect((await c.post(scheduled.id, 'cancel')).status).toBe(200);
    expect((await c.del(scheduled.id)).status).toBe(204);
    // SENDING counts as active too; a SENT campaign is history and may go.
    const sending = await created();
    await h.deps.knex('campaigns').where({ id: sending.id }).update({ status: 'SENDING' });
    expect((await c.del(sending.id)).status).toBe(409);
    await h.deps.knex('campaigns').where({ id: sending.id }).update({ status: 'SENT' });
    expect((await c.del(sending.id)).status).toBe(204);
  });

  it("never reaches another project's campaign", async () => {
    const mine = await created();
    const other = api(await createProjectFixture(h));
    expect((await other.get(mine.id)).status).toBe(404);
    expect((await other.put(mine.id, base)).status).toBe(404);
    expect((await other.del(mine.id)).status).toBe(404);
    expect((await other.post(mine.id, 'send')).status).toBe(404);
    expect((await other.post(mine.id, 'duplicate')).status).toBe(404);
    expect((await other.stats(mine.id)).status).toBe(404);
    expect((await other.list()).body.total).toBe(0);
    expect((await c.get(mine.id)).body.status).toBe('DRAFT');
  });
});

describe('sending', () => {
  it.each([
    ['an unparseable string', 'next tuesday-ish'],
    ['an empty string', ''],
    ['an object', { at: 1 }],
    ['a boolean', true],
  ])('answers scheduledFor as %s with 400 and leaves the campaign a DRAFT', async (_name, scheduledFor) => {
    const draft = await created();
    const res = await c.post(draft.id, 'send', { scheduledFor });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect((await c.get(draft.id)).body.status).toBe('DRAFT');
  });

  it('schedules with any date a parser accepts, states it in the message, and a cancel before the time sends nothing', async () => {
    const email = uniqueEmail('sched');
    const fx = await projectWith([{ email }]);
    const draft = await created({}, fx);
    const res = await api(fx).post(draft.id, 'send', { scheduledFor: 'Fri, 01 Jan 2999 10:00:00 GMT' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { id: draft.id, name: draft.name, status: 'SCHEDULED', scheduledFor: '2999-01-01T10:00:00.000Z' },
      message: expect.stringContaining('2999-01-01T10:00:00.000Z'),
    });
    expect((await api(fx).post(draft.id, 'send')).status).toBe(409);
    const cancelled = await api(fx).post(draft.id, 'cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    const client = await h.deps.temporal.client();
    await eventually(async () => (await client.workflow.getHandle(`campaign-${draft.id}`).describe()).status.name === 'CANCELLED');
    expect(sinkFor(email)).toHaveLength(0);
    expect((await api(fx).get(draft.id)).body).toMatchObject({ status: 'CANCELLED', sentCount: 0, totalRecipients: 0 });
    expect((await api(fx).post(draft.id, 'cancel')).status).toBe(409);
  });

  it('sends a scheduled campaign once its time has passed', async () => {
    const email = uniqueEmail('soon');
    const fx = await projectWith([{ email, data: { name: 'Ann' } }]);
    const draft = await created({}, fx);
    const at = new Date(Date.now() + 2000).toISOString();
    const res = await api(fx).post(draft.id, 'send', { scheduledFor: at });
    expect(res.body.data.status).toBe('SCHEDULED');
    const sent = await waitStatus(fx, draft.id, 'SENT');
    expect(sent).toMatchObject({ totalRecipients: 1, sentCount: 1, scheduledFor: at });
    expect(sent.sentAt).not.toBeNull();
    expect(new Date(sent.sentAt).getTime()).toBeGreaterThanOrEqual(new Date(at).getTime());
    const got = sinkFor(email);
    expect(got).toHaveLength(1);
    expect(got[0].subject).toBe('Hi Ann');
  });

  it('sends a MARKETING campaign now to subscribed contacts only, rendered per recipient, with one-click unsubscribe headers', async () => {
    const [ann, bob, off] = [uniqueEmail('ann'), uniqueEmail('bob'), uniqueEmail('off')];
    const fx = await projectWith([{ email: ann, data: { name: 'Ann' } }, { email: bob }, { email: off, subscribed: false }]);
    const draft = await created({ fromName: 'News', replyTo: 'reply@example.org' }, fx);
    const res = await api(fx).post(draft.id, 'send', { scheduledFor: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'SENDING', scheduledFor: null });
    expect(res.body.message).toMatch(/now/);
    const sent = await waitStatus(fx, draft.id, 'SENT');
    expect(sent).toMatchObject({ totalRecipients: 2, sentCount: 2 });

    const [a] = sinkFor(ann);
    const [b] = sinkFor(bob);
    expect(sinkFor(off)).toHaveLength(0);
    expect(a.subject).toBe('Hi Ann');
    expect(b.subject).toBe('Hi there');
    // Marketing mail carries the open pixel by default (docs/tracking.md); the unsubscribe link is never rewritten.
    expect(a.html).toMatch(
      /^<p>Hello Ann<\/p><a href="http:\/\/localhost:\d+\/unsubscribe\/[\w.-]+">unsubscribe<\/a><img src="http:\/\/localhost:\d+\/t\/o\/[\w.-]+"[^>]*>$/,
    );
    expect(b.html).toMatch(/^<p>Hello friend<\/p>/);
    expect(a.headers['List-Unsubscribe']).toBe(`<${a.html.match(/href="([^"]+)"/)![1]}>`);
    expect(a.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(a.headers['List-Unsubscribe']).not.toBe(b.headers['List-Unsubscribe']);
    expect(a.customArgs).toMatchObject({ project_id: fx.projectId, campaign_id: draft.id });
    // Both went in one provider call, one personalization each.
    expect(a.messageId).toBe(b.messageId);
    const message = sink.messages.find((m) => m.messageId === a.messageId)!.body;
    expect(message.personalizations).toHaveLength(2);
    expect(message.from).toEqual({ email: base.from, name: 'News' });
    expect(message.reply_to).toEqual({ email: 'reply@example.org' });

    const row = await h.deps.knex('emails').where({ id: a.customArgs.email_id }).first();
    expect(row).toMatchObject({ campaign_id: draft.id, status: 'SENT', to_email: ann, rendered_subject: 'Hi Ann', provider_message_id: a.messageId });
    expect((await api(fx).post(draft.id, 'send')).status).toBe(409);
  });

  it('records every campaign email like a transactional one: a `sent` activity item and a routed `email.sent` event each', async () => {
    const emails = [uniqueEmail('feed1'), uniqueEmail('feed2'), uniqueEmail('feed3')];
    const fx = await projectWith(emails.map((email) => ({ email })));
    const draft = await created({}, fx);
    expect((await api(fx).post(draft.id, 'send', { scheduledFor: null })).status).toBe(200);
    await waitStatus(fx, draft.id, 'SENT');

    const rows = await h.deps.knex('emails').where({ campaign_id: draft.id }).select('id', 'contact_id', 'to_email');
    expect(rows).toHaveLength(3);
    const feed = await h.http.get('/activity?type=sent&limit=100').set(key(fx));
    expect(feed.status).toBe(200);
    const fed = JSON.stringify(feed.body.data);
    expect(feed.body.data).toHaveLength(3);
    for (const r of rows) expect(fed).toContain(r.id);

    // Routed through the batched hand-off, so workflows can trigger on them.
    const events = await eventually(async () => {
      const found = await h.deps.knex('events').where({ project_id: fx.projectId, name: 'email.sent' });
      return found.length === 3 && found.every((e) => e.routed_at) ? found : null;
    });
    expect(events.map((e) => [e.contact_id, e.data.emailId]).sort()).toEqual(rows.map((r) => [r.contact_id, r.id]).sort());
  });

  it('writes the email.sent nobody listens to already routed, and routes it where a workflow, a webhook endpoint or a waiting execution listens', async () => {
    const sentEvents = async (fx: ProjectFixture) =>
      h.deps
        .knex('events as e')
        .join('emails as m', 'm.id', h.deps.knex.raw("(e.data->>'emailId')::uuid"))
        .where({ 'e.project_id': fx.projectId, 'e.name': 'email.sent' })
        .select('e.id', 'e.contact_id', 'e.routed_at', 'm.sent_at', 'm.to_email');
    const sendToAll = async (fx: ProjectFixture) => {
      const draft = await created({}, fx);
      expect((await api(fx).post(draft.id, 'send')).status).toBe(200);
      await waitStatus(fx, draft.id, 'SENT');
    };

    // Nobody listens: routed by the statement that wrote it (its routed_at is the email's sent_at), no routing pass.
    const quiet = await projectWith([{ email: uniqueEmail('quiet1') }, { email: uniqueEmail('quiet2') }]);
    await sendToAll(quiet);
    const settled = await sentEvents(quiet);
    expect(settled).toHaveLength(2);
    for (const e of settled) expect(new Date(e.routed_at).getTime()).toBe(new Date(e.sent_at).getTime());

    // A contact's execution waits for email.sent (a workflow on another event): its event goes through routing and resumes it.
    const [waiter, other] = [uniqueEmail('waiter'), uniqueEmail('other')];
    const waiting = await projectWith([{ email: waiter }, { email: other }]);
    const flows = workflowApi(h, waiting);
    const wf = await flows.waitThenMark('joined', 'email.sent', { mailed: true });
    const waitingExecution = (email: string) => flows.waitingExecution(wf.id, email, 'joined');
    const execution = await waitingExecution(waiter);
    await sendToAll(waiting);
    expect((await flows.until(wf.id, execution.id, ['COMPLETED', 'EXITED', 'FAILED'])).status).toBe('COMPLETED');
    const byTo = new Map((await sentEvents(waiting)).map((e) => [e.to_email, e]));
    expect(new Date(byTo.get(waiter)!.routed_at).getTime()).toBeGreaterThan(new Date(byTo.get(waiter)!.sent_at).getTime());
    // The other contact waits for nothing, and the project has no listener of its own: settled at once.
    expect(new Date(byTo.get(other)!.routed_at).getTime()).toBe(new Date(byTo.get(other)!.sent_at).getTime());

    // A wait that commits while the hand-over's statement runs: that statement wrote the event routed;
    // the check after its commit reopens it (and only it), and routing then resumes the execution.
    const late = uniqueEmail('late');
    const lateExecution = await waitingExecution(late);
    const lateId = lateExecution.contactId;
    const written = crypto.randomUUID();
    await h.deps
      .knex('events')
      .insert({ id: written, project_id: waiting.projectId, contact_id: lateId, name: 'email.sent', data: {}, routed_at: h.deps.knex.fn.now() });
    const reopened = await reopenForWaits(h.deps.knex, [written, byTo.get(other)!.id]);
    expect(reopened.map((e) => e.id)).toEqual([written]);
    const routedAt = async (id: string) => (await h.deps.knex('events').where({ id }).first()).routed_at;
    expect(await routedAt(written)).toBeNull();
    expect(await routedAt(byTo.get(other)!.id)).not.toBeNull();
    await routeEvents(h.deps, [written]);
    expect((await flows.until(wf.id, lateExecution.id, ['COMPLETED', 'EXITED', 'FAILED'])).status).toBe('COMPLETED');

    // A workflow triggered by email.sent, or a webhook endpoint for email.* (a family): every event is routed.
    for (const listen of ['workflow', 'endpoint'] as const) {
      const fx = await projectWith([{ email: uniqueEmail(listen) }]);
      let endpointId: string | undefined;
      if (listen === 'workflow')
        await workflowApi(h, fx).build('email.sent', { mark: { type: 'UPDATE_CONTACT', config: { data: { seen: true } } } }, [['trigger', 'mark']], {
          enabled: true,
        });
      else {
        const made = await h.http
          .post('/webhook-endpoints')
          .set(key(fx))
          .send({ url: 'https://hooks.example.test/sent', events: ['email.*'] });
        expect(made.status).toBe(201);
        endpointId = made.body.id;
      }
      await sendToAll(fx);
      const [e] = await eventually(async () => {
        const found = await sentEvents(fx);
        return found.length === 1 && found[0].routed_at ? found : null;
      });
      expect(new Date(e.routed_at).getTime()).toBeGreaterThan(new Date(e.sent_at).getTime());
      if (listen === 'workflow') await eventually(async () => (await h.deps.knex('contacts').where({ id: e.contact_id }).first()).data?.seen === true);
      else {
        expect(await h.deps.knex('webhook_deliveries').where({ event_id: e.id })).toHaveLength(1);
        // Its delivery to an address that does not resolve would retry for the rest of the run.
        expect((await h.http.delete(`/webhook-endpoints/${endpointId}`).set(key(fx))).status).toBe(204);
      }
    }
  });

  it('sends a TRANSACTIONAL campaign to unsubscribed contacts too, without unsubscribe headers', async () => {
    const [on, off] = [uniqueEmail('on'), uniqueEmail('off')];
    const fx = await projectWith([{ email: on }, { email: off, subscribed: false }]);
    const draft = await created({ type: 'TRANSACTIONAL', body: '<p>Receipt</p>' }, fx);
    await api(fx).post(draft.id, 'send');
    expect(await waitStatus(fx, draft.id, 'SENT')).toMatchObject({ totalRecipients: 2, sentCount: 2 });
    for (const email of [on, off]) {
      const got = sinkFor(email);
      expect(got).toHaveLength(1);
      expect(got[0].headers['List-Unsubscribe']).toBeUndefined();
    }
    // Every recipient had the same body: it went as the message content, without substitutions.
    const message = sink.messages.find((m) => m.messageId === sinkFor(on)[0].messageId)!.body;
    expect(message.content.find((c: any) => c.type === 'text/html').value).toBe('<p>Receipt</p>');
    expect(message.personalizations[0].substitutions).toBeUndefined();
  });

  it('sends a SEGMENT campaign to the members of a static segment only', async () => {
    const [inA, inB, out] = [uniqueEmail('in'), uniqueEmail('in'), uniqueEmail('out')];
    const fx = await projectWith([{ email: inA }, { email: inB }, { email: out }]);
    const seg = await h.http.post('/segments').set(key(fx)).send({ name: 'VIP', type: 'STATIC' });
    expect(seg.status).toBe(201);
    const members = await h.http
      .post(`/segments/${seg.body.id}/members`)
      .set(key(fx))
      .send({ emails: [inA, inB] });
    expect(members.status).toBe(200);
    const draft = await created({ audienceType: 'SEGMENT', segmentId: seg.body.id }, fx);
    expect(draft.segmentId).toBe(seg.body.id);
    await api(fx).post(draft.id, 'send');
    expect(await waitStatus(fx, draft.id, 'SENT')).toMatchObject({ totalRecipients: 2, sentCount: 2 });
    expect(sinkFor(inA)).toHaveLength(1);
    expect(sinkFor(inB)).toHaveLength(1);
    expect(sinkFor(out)).toHaveLength(0);
  });

  it('starts the workflow of a campaign left SENDING without one (the sweep after a crash between commit and start)', async () => {
    const email = uniqueEmail('orphan');
    const fx = await projectWith([{ email }]);
    const draft = await created({}, fx);
    await h.deps.knex('campaigns').where({ id: draft.id }).update({ status: 'SENDING' });
    await campaignActivities(h.deps).resumeCampaigns();
    expect(await waitStatus(fx, draft.id, 'SENT')).toMatchObject({ totalRecipients: 1, sentCount: 1 });
    expect(sinkFor(email)).toHaveLength(1);
  });

  it('refuses to send when the sender domain is no longer verified', async () => {
    const fx = await projectWith([{ email: uniqueEmail() }]);
    const draft = await created({}, fx);
    await h.deps.knex('domains').where({ project_id: fx.projectId }).del();
    const res = await api(fx).post(draft.id, 'send');
    expect(res.status).toBe(403);
    expect((await api(fx).get(draft.id)).body.status).toBe('DRAFT');
  });

  describe('when the provider misbehaves', () => {
    const campaignTo = async (n: number) => {
      const emails = Array.from({ length: n }, () => uniqueEmail('pv'));
      const fx = await projectWith(emails.map((email) => ({ email })));
      return { fx, emails, draft: await created({}, fx) };
    };

    it('retries a batch the provider answered 500, and still sends each email once', async () => {
      const { fx, emails, draft } = await campaignTo(3);
      sink.failNext(1, 500);
      await api(fx).post(draft.id, 'send');
      expect(await waitStatus(fx, draft.id, 'SENT')).toMatchObject({ totalRecipients: 3, sentCount: 3 });
      for (const email of emails) expect(sinkFor(email)).toHaveLength(1);
    });

    it('fails the batch the provider refused with 400 and still finishes the campaign', async () => {
      const { fx, emails, draft } = await campaignTo(2);
      sink.failNext(1, 400);
      await api(fx).post(draft.id, 'send');
      expect(await waitStatus(fx, draft.id, 'SENT')).toMatchObject({ totalRecipients: 2, sentCount: 0 });
      for (const email of emails) expect(sinkFor(email)).toHaveLength(0);
      expect((await api(fx).stats(draft.id)).body).toMatchObject({ sent: 0, failed: 2 });
      const rows = await h.deps.knex('emails').where({ campaign_id: draft.id });
      expect(rows.map((r) => r.status)).toEqual(['FAILED', 'FAILED']);
      expect(rows[0].error).toMatch(/400/);
    });

    it('never offers a batch twice when the provider took it but its answer was lost (at most once)', async () => {
      const { fx, emails, draft } = await campaignTo(2);
      sink.loseAnswers(1);
      await api(fx).post(draft.id, 'send');
      expect(await waitStatus(fx, draft.id, 'SENT')).toMatchObject({ totalRecipients: 2, sentCount: 0 });
      for (const email of emails) expect(sinkFor(email)).toHaveLength(1);
      expect((await api(fx).stats(draft.id)).body).toMatchObject({ sent: 0, failed: 2 });
    });
  });

  it('sends a test email through the delivery path without moving the counters', async () => {
    const known = uniqueEmail('known');
    const fx = await projectWith([{ email: known, data: { name: 'Kim' } }]);
    const draft = await created({}, fx);
    const res = await api(fx).post(draft.id, 'test', { email: known.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { to: known } });
    const stranger = uniqueEmail('stranger');
    expect((await api(fx).post(draft.id, 'test', { email: stranger })).status).toBe(200);
    const [k] = await eventually(async () => (sinkFor(known).length ? sinkFor(known) : null));
    expect(k.subject).toBe('[Test] Hi Kim');
    expect(k.html).toMatch(/Hello Kim/);
    expect(k.headers['List-Unsubscribe']).toMatch(/unsubscribe/);
    const [s] = await eventually(async () => (sinkFor(stranger).length ? sinkFor(stranger) : null));
    expect(s.subject).toBe('[Test] Hi there');
    expect(await h.deps.knex('contacts').where({ project_id: fx.projectId, email: stranger }).first()).toBeUndefined();
    expect((await api(fx).get(draft.id)).body).toMatchObject({ status: 'DRAFT', sentCount: 0 });
    expect((await api(fx).post(draft.id, 'test', { email: 'nope' })).status).toBe(422);
  });

  it('answers a test send whose delivery Temporal cannot take now with 200 and leaves the email queued for the sweep', async () => {
    const draft = await created();
    const down = await startHarness({ temporalAddress: '127.0.0.1:1' });
    try {
      const res = await down.http
        .post(`/campaigns/${draft.id}/test`)
        .set(key())
        .send({ email: uniqueEmail('down') });
      expect(res.status).toBe(200);
      expect((await h.deps.knex('emails').where({ id: res.body.data.emailId }).first()).status).toBe('QUEUED');
    } finally {
      await down.stop();
    }
  }, 60_000);

  it('reports stats with counts and rates', async () => {
    const emails = [uniqueEmail('s1'), uniqueEmail('s2')];
    const fx = await projectWith(emails.map((email) => ({ email })));
    const draft = await created({}, fx);
    const before = await api(fx).stats(draft.id);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      totalRecipients: 0,
      sent: 0,
      delivered: 0,
      opened: 0,
      clicked: 0,
      bounced: 0,
      complained: 0,
      unsubscribed: 0,
      failed: 0,
      pending: 0,
      capped: 0,
      openRate: 0,
      clickRate: 0,
      bounceRate: 0,
      // No rate of the project's own and none of the campaign's: the configured default holds it.
      pacing: { ratePerSecond: h.config.email.sendRatePerSecond, source: 'project' },
      engagement: { opens: 0, clicks: 0, machineOpens: 0, machineClicks: 0 },
    });
    await api(fx).post(draft.id, 'send');
    await waitStatus(fx, draft.id, 'SENT');
    await h.deps.knex('campaigns').where({ id: draft.id }).update({ opened_count: 1, clicked_count: 1 });
    const after = await api(fx).stats(draft.id);
    expect(after.body).toMatchObject({ totalRecipients: 2, sent: 2, opened: 1, clicked: 1, openRate: 0.5, clickRate: 0.5, bounceRate: 0 });
  });
});

describe('campaignSend workflow changes', () => {
  // Histories recorded (encoded History protos) from the workflow as it was before batch lanes, one
  // batch at a time each finding the next cursor: a run that continued as new, and the run after
  // it that finished. Replaying them with today's code must take the same path (patched()).
  it.each(['campaignSend-v1-continued', 'campaignSend-v1-finished'])('replays %s, a run started before batch lanes, without nondeterminism', async (name) => {
    const history = temporal.api.history.v1.History.decode(fs.readFileSync(path.join(__dirname, '..', 'fixtures', `${name}.history.bin`)));
    expect(history.events.length).toBeGreaterThan(10);
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, history, 'campaign-replay-fixture');
  });
});
