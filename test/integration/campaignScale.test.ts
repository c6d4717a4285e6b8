import crypto from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain } from '../helpers/fixtures';
import { campaignActivities } from '../../activities/campaigns';
import { loadConfig } from '../../lib/config';
import { beginSending } from '../../db/campaignTransitions';
import { campaignEmailId, recipientPage } from '../../db/campaignEmails';
import { dueDeferredPage } from '../../db/campaignDeferrals';

let h: Harness;
let sink: SendgridSink;

const DOMAIN = 'mail.example.com';

const sinkEnv = () => ({ EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url });

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: sinkEnv() });
});
// Each test reads only its own campaign's deliveries; an empty sink keeps those reads cheap.
beforeEach(() => sink.clear());
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

interface Seeded {
  id: string;
  email: string;
  subscribed: boolean;
  plan: string;
}

/** Contacts written straight to the table in multi-row inserts (the API path is not what is measured here). */
async function seed(projectId: string, n: number, shape: (i: number) => { subscribed: boolean; plan: string }): Promise<Seeded[]> {
  const tag = crypto.randomBytes(3).toString('hex');
  const rows: Seeded[] = Array.from({ length: n }, (_, i) => ({
    id: `cnt_${tag}${String(i).padStart(6, '0')}`,
    email: `r${i}-${tag}@example.org`,
    ...shape(i),
  }));
  for (let i = 0; i < rows.length; i += 1000) {
    await h.deps
      .knex('contacts')
      .insert(
        rows
          .slice(i, i + 1000)
          .map((r) => ({ id: r.id, project_id: projectId, email: r.email, subscribed: r.subscribed, data: JSON.stringify({ plan: r.plan, n: i }) })),
      );
  }
  return rows;
}

async function project(): Promise<ProjectFixture> {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  return fx;
}

async function createCampaign(fx: ProjectFixture, body: Record<string, unknown>): Promise<string> {
  const res = await h.http
    .post('/campaigns')
    .set(bearer(fx.secretKey))
    .send({ name: 'Big one', subject: 'For {{ email }}', body: '<p>Plan {{ plan }}</p><a href="{{ unsubscribeUrl }}">u</a>', from: `news@${DOMAIN}`, ...body });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const campaignRow = (id: string) => h.deps.knex('campaigns').where({ id }).first();
const waitSent = (id: string) => eventually(async () => ((await campaignRow(id)).status === 'SENT' ? campaignRow(id) : null), 120_000, 250);

/** Sink recipients of one campaign, counted per address. */
function deliveries(campaignId: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of sink.recipients()) if (r.customArgs.campaign_id === campaignId) counts.set(r.email, (counts.get(r.email) ?? 0) + 1);
  return counts;
}

/** Most `sendCampaignBatch` activities scheduled and not yet closed at any point of the workflow's (last run's) history. */
async function mostBatchesInFlight(campaignId: string): Promise<number> {
  const history = await (await h.deps.temporal.client()).workflow.getHandle(`campaign-${campaignId}`).fetchHistory();
  const batches = new Set<string>();
  let inFlight = 0;
  let most = 0;
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'sendCampaignBatch') {
      batches.add(String(e.eventId));
      most = Math.max(most, ++inFlight);
    }
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (closed && batches.has(String(closed.scheduledEventId))) inFlight--;
  }
  return most;
}

/** The one statement `read` runs whose SQL names `table`, captured as knex sends it. */
async function statementOf(table: string, read: () => Promise<unknown>): Promise<{ sql: string; bindings: unknown[] }> {
  const statements: Array<{ sql: string; bindings: unknown[] }> = [];
  const capture = (q: { sql: string; bindings: unknown[] }) => statements.push(q);
  h.deps.knex.on('query', capture);
  try {
    await read();
  } finally {
    h.deps.knex.removeListener('query', capture);
  }
  return statements.find((q) => q.sql.includes(table))!;
}

/** The plan nodes of `statement`, run under EXPLAIN ANALYZE, that read `emails` or `contacts`. */
async function contactAndEmailReads(statement: { sql: string; bindings: unknown[] }) {
  type Node = { 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: Node[] };
  const conn = await h.deps.knex.client.acquireConnection();
  try {
    const { rows } = await conn.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, statement.bindings);
    const reads: Node[] = [];
    const walk = (n: Node) => {
      if (n['Relation Name'] === 'emails' || n['Relation Name'] === 'contacts') reads.push(n);
      for (const child of n.Plans ?? []) walk(child);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return reads;
  } finally {
    await h.deps.knex.client.releaseConnection(conn);
  }
}

/** One probe per recipient of the page into each table, a row at most each. */
function expectProbes(reads: Awaited<ReturnType<typeof contactAndEmailReads>>, page: number) {
  expect(reads.map((n) => n['Relation Name']).sort()).toEqual(['contacts', 'emails']);
  for (const n of reads) {
    expect(n['Actual Loops']).toBe(page);
    expect(n['Actual Rows']).toBeLessThanOrEqual(1);
  }
}

describe('a page of the audience', () => {
  // Statistics from before the campaign had a recipient, a deferral or an email row, as autovacuum
  // leaves them when a campaign begins; then two thirds of the campaign sent. The joins these
  // statistics planned read all the campaign's emails per page (sorted for a merge join) or, with
  // a few campaigns in the table, once per recipient.
  async function campaignUnderWay(rows: 'campaign_recipients' | 'campaign_deferrals') {
    const fx = await project();
    const contacts = await seed(fx.projectId, 3000, () => ({ plan: 'pro', subscribed: true }));
    const id = await createCampaign(fx, { audienceType: 'ALL' });
    await h.deps.knex.raw(`ANALYZE ${rows}, emails`);
    const due = new Date(Date.now() - 60_000);
    for (let i = 0; i < contacts.length; i += 1000) {
      const slice = contacts.slice(i, i + 1000);
      await h.deps
        .knex(rows)
        .insert(
          slice.map((c) => (rows === 'campaign_recipients' ? { campaign_id: id, contact_id: c.id } : { campaign_id: id, contact_id: c.id, due_at: due })),
        );
      if (i < 2000)
        await h.deps.knex('emails').insert(
          slice.map((c) => ({
            id: campaignEmailId(id, c.id),
            project_id: fx.projectId,
            contact_id: c.id,
            campaign_id: id,
            type: 'MARKETING',
            to_email: c.email,
            from_email: `news@${DOMAIN}`,
            subject: '',
            body: '',
            status: 'SENT',
          })),
        );
    }
    return { c: { id, project_id: fx.projectId }, contacts };
  }

  it("probes each recipient's contact and email by key, even when the statistics predate the campaign", async () => {
    const { c, contacts } = await campaignUnderWay('campaign_recipients');
    let page: Awaited<ReturnType<typeof recipientPage>> = [];
    const statement = await statementOf('campaign_recipients', async () => {
      page = await recipientPage(h.deps.knex, c, '', 1000);
    });
    expect(page.map((r) => r.contact_id)).toEqual(contacts.slice(0, 1000).map((x) => x.id));
    expect(page.every((r) => r.email_status === 'SENT' && r.email !== null)).toBe(true);
    expectProbes(await contactAndEmailReads(statement), 1000);
  });

  it('reads a page of due deferred recipients the same way', async () => {
    const { c, contacts } = await campaignUnderWay('campaign_deferrals');
    let page: Awaited<ReturnType<typeof dueDeferredPage>> = [];
    const statement = await statementOf('campaign_deferrals', async () => {
      page = await dueDeferredPage(h.deps.knex, c, new Date(), '', 1000);
    });
    expect(page.map((r) => r.contact_id)).toEqual(contacts.slice(0, 1000).map((x) => x.id));
    expect(page.every((r) => r.email_status === 'SENT' && r.email !== null)).toBe(true);
    expectProbes(await contactAndEmailReads(statement), 1000);
  });
});

describe('campaign sending at scale', () => {
  it('sends one email to every subscribed contact of a 5,000-contact FILTERED audience and none to the others', async () => {
    const fx = await project();
    // 5,000 on plan "pro" (every tenth unsubscribed), 1,000 on "free".
    const contacts = await seed(fx.projectId, 6000, (i) => ({ plan: i < 5000 ? 'pro' : 'free', subscribed: i % 10 !== 0 }));
    const id = await createCampaign(fx, {
      audienceType: 'FILTERED',
      audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
    });
    const send = await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({});
    expect(send.status).toBe(200);
    const row = await waitSent(id);

    const got = deliveries(id);
    const expected = contacts.filter((c) => c.plan === 'pro' && c.subscribed);
    expect(expected).toHaveLength(4500);
    expect(got.size).toBe(expected.length);
    for (const c of expected) expect(got.get(c.email)).toBe(1);
    for (const c of contacts.filter((x) => !(x.plan === 'pro' && x.subscribed))) expect(got.has(c.email)).toBe(false);
    expect(row.total_recipients).toBe(4500);
    expect(row.sent_count).toBe(4500);
    expect(row.failed_count).toBe(0);
    // Default batches hold 1000 recipients: one provider call each.
    const calls = new Set(
      sink
        .recipients()
        .filter((r) => r.customArgs.campaign_id === id)
        .map((r) => r.messageId),
    );
    expect(calls.size).toBe(5);
    const [{ count }] = await h.deps.knex('emails').where({ campaign_id: id, status: 'SENT' }).count<{ count: number }[]>('* as count');
    expect(Number(count)).toBe(4500);
    // Five batches, planned up front and sent several at a time, never more than the lanes.
    expect(await mostBatchesInFlight(id)).toBe(Math.min(loadConfig({}).campaigns.batchLanes, 5));
  });

  it('still sends exactly one email per recipient when the worker is stopped mid-campaign and started again', async () => {
    const fx = await project();
    const contacts = await seed(fx.projectId, 5000, () => ({ plan: 'pro', subscribed: true }));
    const id = await createCampaign(fx, { audienceType: 'ALL' });
    // Small batches and short runs: many batches in flight over time, several continueAsNew.
    const small = await startHarness({ worker: true, env: { ...sinkEnv(), CAMPAIGN_BATCH_SIZE: '100', CAMPAIGN_BATCHES_PER_RUN: '10' } });
    try {
      sink.delay(150);
      expect((await small.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
      const client = await h.deps.temporal.client();
      const firstRun = await eventually(async () => (await client.workflow.getHandle(`campaign-${id}`).describe()).runId);
      await eventually(async () => [...deliveries(id).values()].length >= 1500, 60_000, 50);
      await small.stopWorker();
      const stopped = await campaignRow(id);
      expect(stopped.status).toBe('SENDING');
      expect(stopped.sent_count).toBeLessThan(5000);
      sink.delay(0);
      await small.startWorker();
      const row = await waitSent(id);

      const got = deliveries(id);
      expect(got.size).toBe(5000);
      for (const c of contacts) expect(got.get(c.email)).toBe(1);
      expect(row).toMatchObject({ total_recipients: 5000, sent_count: 5000, failed_count: 0 });
      const finalRun = (await client.workflow.getHandle(`campaign-${id}`).describe()).runId;
      expect(finalRun).not.toBe(firstRun);
    } finally {
      sink.delay(0);
      await small.stop();
    }
  });

  it('stops sending further batches when cancelled mid-send; what was handed over stays sent', async () => {
    const fx = await project();
    await seed(fx.projectId, 2000, () => ({ plan: 'pro', subscribed: true }));
    const id = await createCampaign(fx, { audienceType: 'ALL' });
    const small = await startHarness({ worker: true, env: { ...sinkEnv(), CAMPAIGN_BATCH_SIZE: '100' } });
    try {
      sink.delay(100);
      expect((await small.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
      await eventually(async () => deliveries(id).size >= 300, 60_000, 50);
      const res = await h.http.post(`/campaigns/${id}/cancel`).set(bearer(fx.secretKey)).send({});
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('CANCELLED');
      const client = await h.deps.temporal.client();
      // Closed either as cancelled, or as completed when its next batch saw the CANCELLED status first.
      await eventually(async () => (await client.workflow.getHandle(`campaign-${id}`).describe()).status.name !== 'RUNNING');
      // The batch in flight when the cancel came finishes its hand-over; nothing after it starts.
      await eventually(async () => !(await h.deps.knex('emails').where({ campaign_id: id }).whereIn('status', ['QUEUED', 'SENDING']).first()));
      const settled = deliveries(id).size;
      sink.delay(0);
      const row = await campaignRow(id);
      expect(row.status).toBe('CANCELLED');
      expect(row.total_recipients).toBe(2000);
      expect(settled).toBeLessThan(2000);
      expect(row.sent_count).toBe(settled);
      expect([...deliveries(id).values()].every((n) => n === 1)).toBe(true);
      expect((await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).status).toBe(409);
    } finally {
      sink.delay(0);
      await small.stop();
    }
  });

  it('fails rather than re-sends a recipient whose hand-over was interrupted, and re-offers recorded ones never handed over', async () => {
    const fx = await project();
    const contacts = await seed(fx.projectId, 3, () => ({ plan: 'pro', subscribed: true }));
    const id = await createCampaign(fx, { audienceType: 'ALL' });
    await h.deps.knex('campaigns').where({ id }).update({ status: 'SENDING' });
    await beginSending(h.deps.knex, id);
    // What a crashed attempt leaves: contact 0 offered to the provider (outcome unknown), contact 1 recorded only.
    const base = {
      project_id: fx.projectId,
      campaign_id: id,
      type: 'MARKETING',
      from_email: `news@${DOMAIN}`,
      subject: 's',
      body: 'b',
      rendered_subject: 's',
      rendered_body: 'b',
    };
    await h.deps.knex('emails').insert([
      { ...base, id: campaignEmailId(id, contacts[0].id), contact_id: contacts[0].id, to_email: contacts[0].email, status: 'SENDING' },
      { ...base, id: campaignEmailId(id, contacts[1].id), contact_id: contacts[1].id, to_email: contacts[1].email, status: 'QUEUED' },
    ]);
    const activities = campaignActivities(h.deps);
    const result = await new MockActivityEnvironment().run(activities.sendCampaignBatch, { campaignId: id, after: '', batchSize: 100 });
    expect(result).toMatchObject({ done: true, handedOver: 2, failed: 1 });
    const got = deliveries(id);
    expect(got.has(contacts[0].email)).toBe(false);
    expect(got.get(contacts[1].email)).toBe(1);
    expect(got.get(contacts[2].email)).toBe(1);
    const first = await h.deps
      .knex('emails')
      .where({ id: campaignEmailId(id, contacts[0].id) })
      .first();
    expect(first.status).toBe('FAILED');
    expect(first.error).toMatch(/outcome unknown/);
    // The same batch again hands nothing over twice.
    const again = await new MockActivityEnvironment().run(activities.sendCampaignBatch, { campaignId: id, after: '', batchSize: 100 });
    expect(again).toMatchObject({ handedOver: 0, failed: 0 });
    expect([...deliveries(id).values()]).toEqual([1, 1]);
    expect(await campaignRow(id)).toMatchObject({ sent_count: 2, failed_count: 1, total_recipients: 3 });
  });
});
