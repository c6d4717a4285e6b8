import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { pruneRound } from '../../services/retention';
import type { RetentionReport } from '../../temporal/workflows/retention';

/**
 * Retention (docs/privacy.md "Retention"): the hourly sweep, run here as its Schedule would run it on
 * this file's worker. WORKFLOW_TIME_SCALE makes a day a second; rows are backdated by hours, and
 * the limits (600 "days" = 10 minutes) leave the rows a test just made alone however slow the machine.
 */

let h: Harness;
let sink: SendgridSink;
const DOMAIN = 'retention.example.com';
const SCALE = 1 / 86_400;
const LIMIT_DAYS = 600;
const LONG_AGO = () => new Date(Date.now() - 6 * 3600_000);

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url, WORKFLOW_TIME_SCALE: String(SCALE) },
  });
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

async function sweep(): Promise<RetentionReport> {
  const client = await h.deps.temporal.client();
  return client.workflow.execute('retention', { taskQueue: h.taskQueue, workflowId: `retention-test-${crypto.randomUUID()}` });
}

const settings = (fx: ProjectFixture, body: Record<string, unknown>) => h.http.patch('/settings').set(bearer(fx.secretKey)).send(body);

async function event(fx: ProjectFixture, contactId: string | null, name: string, at: Date, routed = true) {
  const id = crypto.randomUUID();
  await h.deps.knex('events').insert({ id, project_id: fx.projectId, contact_id: contactId, name, data: '{}', created_at: at, routed_at: routed ? at : null });
  return id;
}

async function inbound(fx: ProjectFixture, at: Date) {
  const id = crypto.randomUUID();
  await h.deps
    .knex('inbound_messages')
    .insert({ id, project_id: fx.projectId, kind: 'MESSAGE', rcpt_to: ['in@x.example'], size: 3, raw: Buffer.from('raw'), created_at: at });
  return id;
}

describe('retention settings', () => {
  it('default to keeping everything; a patch changes only the keys sent; bad values are 422s', async () => {
    const fx = await createProjectFixture(h);
    expect((await h.http.get('/settings').set(bearer(fx.secretKey))).body.retention).toEqual({ emailBodiesDays: null, eventsDays: null, inboundDays: null });
    const set = await settings(fx, { retention: { eventsDays: 30, inboundDays: 7 } });
    expect(set.status).toBe(200);
    expect(set.body.retention).toEqual({ emailBodiesDays: null, eventsDays: 30, inboundDays: 7 });
    expect((await settings(fx, { retention: { inboundDays: null } })).body.retention).toEqual({ emailBodiesDays: null, eventsDays: 30, inboundDays: null });
    for (const bad of [{ eventsDays: 0 }, { eventsDays: 1.5 }, { eventsDays: '30' }, { eventsDays: 4000 }, { forever: true }]) {
      const res = await settings(fx, { retention: bad });
      expect([JSON.stringify(bad), res.status, res.body.error?.code]).toEqual([JSON.stringify(bad), 422, 'VALIDATION_ERROR']);
    }
    expect((await h.http.get('/settings').set(bearer(fx.secretKey))).body.retention).toEqual({ emailBodiesDays: null, eventsDays: 30, inboundDays: null });
    const logged = await h.deps.knex('audit_log').where({ project_id: fx.projectId, action: 'settings.update' }).pluck('details');
    expect(logged).toEqual([{ changed: ['retention'] }, { changed: ['retention'] }]);
  });
});

describe('the retention sweep', () => {
  it('prunes what is past each limit, keeps the rest, leaves campaign stats as they were, and reports what it removed', async () => {
    const fx = await createProjectFixture(h);
    const untouched = await createProjectFixture(h); // no retention: keeps everything, however old
    await verifiedDomain(h, fx.projectId, DOMAIN);
    const key = bearer(fx.secretKey);

    // A real campaign to three contacts, sent by the worker.
    const contacts = [];
    for (let i = 0; i < 3; i++)
      contacts.push(
        (
          await h.http
            .post('/contacts')
            .set(key)
            .send({ email: uniqueEmail('r'), subscribed: true, data: { plan: 'pro' } })
        ).body,
      );
    const campaign = await h.http
      .post('/campaigns')
      .set(key)
      .send({ name: 'old news', subject: 'News', body: '<p>Hello {{ contact.email }}</p>', from: `news@${DOMAIN}`, audienceType: 'ALL' });
    expect(campaign.status).toBe(201);
    const campaignId = campaign.body.data.id;
    expect((await h.http.post(`/campaigns/${campaignId}/send`).set(key).send({})).status).toBe(200);
    await eventually(async () => (await h.http.get(`/campaigns/${campaignId}`).set(key)).body.status === 'SENT');
    // One recipient leaves; the campaign's `unsubscribed` figure counts that event.
    expect((await h.http.patch(`/contacts/${contacts[0].id}`).set(key).send({ subscribed: false })).status).toBe(200);
    await eventually(async () => (await h.http.get(`/campaigns/${campaignId}/stats`).set(key)).body.unsubscribed === 1);
    const campaignEmails = await h.deps.knex('emails').where({ campaign_id: campaignId }).pluck('id');
    expect(campaignEmails).toHaveLength(3);
    // Make the whole story old: the emails, and every event so far (sent, unsubscribed, …).
    await h.deps.knex('emails').where({ project_id: fx.projectId }).update({ created_at: LONG_AGO() });
    await eventually(async () => !(await h.deps.knex('events').where({ project_id: fx.projectId }).whereNull('routed_at').first()));
    await h.deps.knex('events').where({ project_id: fx.projectId }).update({ created_at: LONG_AGO() });
    await h.deps
      .knex('email_attachments')
      .insert({ email_id: campaignEmails[1], filename: 'a.txt', content_type: 'text/plain', content: Buffer.from('attached') });
    const statsBefore = (await h.http.get(`/campaigns/${campaignId}/stats`).set(key)).body;

    // A queued email keeps its content however old: it has not been handed over yet.
    const queued = crypto.randomUUID();
    await h.deps.knex('emails').insert({
      id: queued,
      project_id: fx.projectId,
      type: 'TRANSACTIONAL',
      to_email: uniqueEmail(),
      from_email: `a@${DOMAIN}`,
      subject: 's',
      body: '<p>queued</p>',
      status: 'QUEUED',
      created_at: LONG_AGO(),
    });

    // Events: old and routed (pruned), old but unrouted (kept for routing), recent (kept).
    const oldPurchase = await event(fx, contacts[0].id, 'purchase', LONG_AGO());
    const unrouted = await event(fx, contacts[1].id, 'purchase', LONG_AGO(), false);
    const recentPurchase = await event(fx, contacts[2].id, 'purchase', new Date());
    const oldInbound = await inbound(fx, LONG_AGO());
    const recentInbound = await inbound(fx, new Date());
    const theirs = { event: await event(untouched, null, 'purchase', LONG_AGO()), inbound: await inbound(untouched, LONG_AGO()) };

    // Segments: one on contact data (unchanged by pruning), one on events (sees only what is kept).
    const segment = async (name: string, filters: object[]) =>
      (
        await h.http
          .post('/segments')
          .set(key)
          .send({ name, condition: { logic: 'AND', groups: [{ filters }] } })
      ).body.id;
    const byData = await segment('pros', [{ field: 'data.plan', operator: 'equals', value: 'pro' }]);
    const byEvent = await segment('buyers', [{ field: 'event.purchase', operator: 'triggered' }]);
    const count = async (id: string) => (await h.http.post(`/segments/${id}/refresh`).set(key)).body.memberCount;
    expect([await count(byData), await count(byEvent)]).toEqual([3, 3]);

    const eventsBefore = await h.deps.knex('events').where({ project_id: fx.projectId }).count<{ n: number }[]>('* as n');
    expect((await settings(fx, { retention: { emailBodiesDays: LIMIT_DAYS, eventsDays: LIMIT_DAYS, inboundDays: LIMIT_DAYS } })).status).toBe(200);
    // In a whole run, other files' maintenance sweeps (resumeOrphans) share this database and route any event
    // unrouted for two minutes, this old one too: it is made unrouted again just before this sweep, which is what is judged.
    await h.deps.knex('events').where({ id: unrouted }).update({ routed_at: null });
    const report = await sweep();

    // Emails: the rows stay with their status; their content is gone.
    const emails = await h.deps
      .knex('emails')
      .whereIn('id', campaignEmails)
      .select('status', 'body', 'rendered_body', 'rendered_text', 'variables', 'content_pruned_at', 'to_email');
    expect(
      emails.every(
        (e: any) => e.body === '' && e.rendered_body === null && e.rendered_text === null && JSON.stringify(e.variables) === '{}' && e.content_pruned_at,
      ),
    ).toBe(true);
    expect(emails.every((e: any) => e.status === 'SENT' && e.to_email)).toBe(true);
    expect(await h.deps.knex('email_attachments').where({ email_id: campaignEmails[1] }).first()).toBeUndefined();
    expect((await h.deps.knex('emails').where({ id: queued }).first()).body).toBe('<p>queued</p>');
    expect((await h.http.get(`/campaigns/${campaignId}/stats`).set(key)).body).toEqual(statsBefore);

    // Events: old routed ones went, except contact.unsubscribed; unrouted and recent ones stay.
    const left = await h.deps.knex('events').where({ project_id: fx.projectId }).select('id', 'name');
    expect(left.map((e: any) => e.name).sort()).toEqual(['contact.unsubscribed', 'purchase', 'purchase']);
    expect(left.map((e: any) => e.id)).toEqual(expect.arrayContaining([unrouted, recentPurchase]));
    expect(left.map((e: any) => e.id)).not.toContain(oldPurchase);
    // The data segment is unchanged; the event segment sees the kept events only: the contact whose
    // only purchase was pruned leaves it (docs/privacy.md says so), the unrouted one still counts.
    expect([await count(byData), await count(byEvent)]).toEqual([3, 2]);

    expect(await h.deps.knex('inbound_messages').where({ project_id: fx.projectId }).pluck('id')).toEqual([recentInbound]);
    expect(oldInbound).toBeDefined();
    // A project without retention keeps its old rows.
    expect(await h.deps.knex('events').where({ id: theirs.event }).first()).toBeDefined();
    expect(await h.deps.knex('inbound_messages').where({ id: theirs.inbound }).first()).toBeDefined();

    // What went is in the result and in the project's audit log, by the system.
    const removedEvents = Number(eventsBefore[0].n) - left.length;
    const entries = await h.deps.knex('audit_log').where({ project_id: fx.projectId, action: 'retention.prune' }).select('actor', 'details', 'ip');
    expect(entries).toEqual([{ actor: 'system', ip: null, details: { removed: { emailBodies: 3, events: removedEvents, inbound: 1 } } }]);
    expect(report.emailBodies).toBeGreaterThanOrEqual(3);
    expect(report.events).toBeGreaterThanOrEqual(removedEvents);
    expect(report.inbound).toBeGreaterThanOrEqual(1);
    expect(report.projects).toBeGreaterThanOrEqual(1);

    // A second sweep finds nothing due here and logs nothing.
    await sweep();
    expect(await h.deps.knex('audit_log').where({ project_id: fx.projectId, action: 'retention.prune' }).count<{ n: number }[]>('* as n')).toEqual([{ n: 1 }]);
  });

  it('prunes in batches: a round removes at most its batch of each kind and says when more is due', async () => {
    const fx = await createProjectFixture(h);
    for (let i = 0; i < 5; i++) await event(fx, null, 'page.view', LONG_AGO());
    await settings(fx, { retention: { eventsDays: LIMIT_DAYS } });
    const rounds = [];
    for (let more = true; more; ) {
      const r = await pruneRound(h.deps.knex, fx.projectId, { batch: 2, timeScale: SCALE });
      rounds.push(r.events);
      more = r.more;
    }
    // 2 + 2 + 1: the last round is short, so no fourth round is asked for.
    expect(rounds).toEqual([2, 2, 1]);
    expect(await h.deps.knex('audit_log').where({ project_id: fx.projectId, action: 'retention.prune' }).count<{ n: number }[]>('* as n')).toEqual([{ n: 3 }]);
  });
});
