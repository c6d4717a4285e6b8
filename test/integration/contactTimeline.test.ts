import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { sendgridEnv, startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { insertInboundMessage } from '../../db/inbound';

/**
 * GET /contacts/:id/timeline: one person's emails, events, workflow runs, segment and topic changes,
 * consent records and inbound mail, newest first, through the real API and worker (a SendGrid
 * stand-in receives the email); the inbound message is written by the inbound server's own writer.
 */

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;
let sink: SendgridSink;
const DOMAIN = 'timeline.example.com';

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: sendgridEnv(sink, crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey) });
  p = await createProjectFixture(h, 'Timeline');
  other = await createProjectFixture(h, 'Elsewhere');
  await verifiedDomain(h, p.projectId, DOMAIN);
}, 120_000);
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const timeline = (contactId: string, query: Record<string, string | number> = {}, key = p.secretKey) =>
  h.http.get(`/contacts/${contactId}/timeline`).query(query).set(bearer(key));

/** Every page, following the cursor. */
async function allPages(contactId: string, query: Record<string, string | number>) {
  const items: any[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await timeline(contactId, { ...query, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    items.push(...res.body.data);
    if (!res.body.hasMore) {
      expect(res.body.cursor).toBeNull();
      return items;
    }
    cursor = res.body.cursor;
  }
  throw new Error('too many pages');
}

const keyOf = (i: { kind: string; id: string }) => `${i.kind}:${i.id}`;

describe('GET /contacts/:id/timeline', () => {
  let contactId: string;
  let emailId: string;
  const address = uniqueEmail('person');

  beforeAll(async () => {
    const wf = workflowApi(h, p);
    const built = await wf.build('signed_up', { exit: { type: 'EXIT' } }, [['trigger', 'exit']], { enabled: true, name: 'Onboarding' });
    const auth = bearer(p.secretKey);

    // An email (its contact is created by the send), delivered through the sink.
    const sent = await h.http
      .post('/v1/send')
      .set(auth)
      .send({ from: `hello@${DOMAIN}`, to: address, subject: 'Welcome {{ email }}', body: '<p>Hi</p>' });
    expect(sent.status).toBe(200);
    emailId = sent.body.data.emails[0].email;
    contactId = sent.body.data.emails[0].contact.id;
    await eventually(async () => (await h.deps.knex('emails').where({ id: emailId }).first())?.status === 'SENT', 60_000);

    // An event that also starts a workflow run.
    expect((await wf.track(address, 'signed_up', { plan: 'pro' })).status).toBe(200);
    await eventually(async () => (await h.deps.knex('workflow_executions').where({ workflow_id: built.id, contact_id: contactId }).first()) ?? null, 60_000);

    // A static segment's list, a topic choice and the global subscription.
    const segment = await h.http.post('/segments').set(auth).send({ name: 'VIP', type: 'STATIC' });
    expect(segment.status).toBe(201);
    expect(
      (
        await h.http
          .post(`/segments/${segment.body.id ?? segment.body.data?.id}/members`)
          .set(auth)
          .send({ emails: [address] })
      ).body.added,
    ).toBe(1);
    const topic = await h.http.post('/topics').set(auth).send({ name: 'Product news' });
    expect(topic.status).toBe(201);
    expect(
      (
        await h.http
          .patch(`/contacts/${contactId}`)
          .set(auth)
          .send({ topics: { 'product-news': true } })
      ).status,
    ).toBe(200);
    expect((await h.http.patch(`/contacts/${contactId}`).set(auth).send({ subscribed: true })).status).toBe(200);

    // A reply, as the inbound server records it.
    await insertInboundMessage(h.deps.knex, {
      id: crypto.randomUUID(),
      project_id: p.projectId,
      kind: 'MESSAGE',
      email_id: emailId,
      contact_id: contactId,
      mail_from: address,
      rcpt_to: [`reply@${DOMAIN}`],
      from_address: address,
      subject: 'Re: Welcome',
      message_id: '<r1@example.org>',
      in_reply_to: null,
      status: null,
      diagnostic: null,
      auth: null,
      remote_address: '127.0.0.1',
      size: 10,
      raw: Buffer.from('Subject: Re: Welcome\r\n\r\nThanks'),
    });
  }, 180_000);

  it('shows every kind, newest first, each with a title in words and the ids it names', async () => {
    const res = await timeline(contactId, { limit: 100 });
    expect(res.status).toBe(200);
    const items = res.body.data as any[];
    expect(new Set(items.map((i) => i.kind))).toEqual(new Set(['email', 'event', 'workflow', 'segment', 'topic', 'consent', 'inbound']));
    const times = items.map((i) => Date.parse(i.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const email = items.find((i) => i.kind === 'email');
    expect(email).toMatchObject({ id: emailId, title: `Email “Welcome ${address}” sent`, links: { emailId }, email: { status: 'SENT' } });
    expect(email.email.story.map((s: any) => s.step)).toEqual(['sent']);
    expect(items.find((i) => i.kind === 'event')).toMatchObject({ title: 'Event signed_up', event: { name: 'signed_up', data: { plan: 'pro' } } });
    expect(items.find((i) => i.kind === 'workflow').title).toMatch(/^Workflow “Onboarding” started, /);
    expect(items.find((i) => i.kind === 'segment')).toMatchObject({ title: 'Entered segment “VIP”', detail: 'the list was changed' });
    expect(items.find((i) => i.kind === 'topic')).toMatchObject({ title: 'Subscribed to topic “Product news”', detail: 'by api' });
    expect(items.find((i) => i.kind === 'inbound')).toMatchObject({ title: 'Replied: “Re: Welcome”', links: { emailId } });

    // The parts each sentence is made of, for the dashboard to say it in a person's language.
    expect(email.email).toMatchObject({ type: 'TRANSACTIONAL', origin: null, error: null });
    const run = items.find((i) => i.kind === 'workflow');
    expect(run.workflow).toEqual({ id: run.links.workflowId, name: 'Onboarding', status: expect.any(String), error: null });
    const segment = items.find((i) => i.kind === 'segment');
    expect(segment.segment).toEqual({ id: segment.links.segmentId, name: 'VIP', change: 'entered', cause: 'list' });
    const topic = items.find((i) => i.kind === 'topic');
    expect(topic.topic).toEqual({ id: topic.links.topicId, slug: 'product-news', name: 'Product news', subscribed: true, source: 'api' });
    // The send created the contact subscribed=false (a consent record by 'send'); the PATCH subscribed it.
    expect(items.filter((i) => i.kind === 'consent').map((i) => i.consent)).toContainEqual({ subscribed: true, source: 'api' });
    expect(items.find((i) => i.kind === 'inbound').inbound).toEqual({ kind: 'MESSAGE', subject: 'Re: Welcome', from: address });
    // Each kind carries its own parts only.
    for (const i of items) {
      const parts = ['email', 'event', 'workflow', 'segment', 'topic', 'consent', 'inbound'].filter((k) => i[k] !== undefined);
      expect(parts).toEqual([i.kind]);
    }
    // The lifecycle events other kinds tell are not told twice as events.
    expect(items.filter((i) => i.kind === 'event').map((i) => i.event.name)).toEqual(['signed_up']);

    // The email's rendered content is one request away, in this project only.
    const content = await h.http.get(`/emails/${emailId}/content`).set(bearer(p.secretKey));
    expect(content.status).toBe(200);
    expect(content.body).toMatchObject({ subject: `Welcome ${address}`, gone: false });
    expect(content.body.html).toContain('Hi');
    expect(content.body.html).not.toMatch(/\/t\/o\//);
    expect((await h.http.get(`/emails/${emailId}/content`).set(bearer(other.secretKey))).status).toBe(404);
  });

  it('filters by kind, one or several', async () => {
    const topics = await timeline(contactId, { kind: 'topic' });
    expect(topics.body.data.map((i: any) => i.kind)).toEqual(['topic']);
    const two = await timeline(contactId, { kind: 'email,inbound' });
    expect(new Set(two.body.data.map((i: any) => i.kind))).toEqual(new Set(['email', 'inbound']));
    expect(two.body.data).toHaveLength(2);
    const bad = await timeline(contactId, { kind: 'email,nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message ?? bad.body.error).toBeTruthy();
  });

  it('pages by cursor without duplicates or gaps, also across kinds at the same instant', async () => {
    // Ties: events, consent records and segment changes written at one and the same microsecond.
    const at = new Date();
    const knex = h.deps.knex;
    await knex('events').insert(
      Array.from({ length: 7 }, (_, i) => ({
        id: crypto.randomUUID(),
        project_id: p.projectId,
        contact_id: contactId,
        name: `tie_${i}`,
        data: {},
        created_at: at,
      })),
    );
    await knex('consent_records').insert(
      Array.from({ length: 5 }, () => ({ project_id: p.projectId, contact_id: contactId, scope: 'global', value: true, source: 'test', at })),
    );
    await knex('segment_membership_changes').insert(
      Array.from({ length: 4 }, () => ({
        id: crypto.randomUUID(),
        project_id: p.projectId,
        contact_id: contactId,
        segment_id: crypto.randomUUID(),
        segment_name: 'Tied',
        change: 'entry',
        source: 'list',
        created_at: at,
      })),
    );
    const whole = (await timeline(contactId, { limit: 100 })).body.data as any[];
    expect(whole.length).toBeGreaterThan(20);
    for (const limit of [1, 3, 7]) {
      const paged = await allPages(contactId, { limit });
      expect(paged.map(keyOf)).toEqual(whole.map(keyOf));
    }
    const events = await allPages(contactId, { limit: 2, kind: 'event' });
    expect(events.map(keyOf)).toEqual(whole.filter((i) => i.kind === 'event').map(keyOf));
  });

  it('answers a forged cursor with 400 and an unknown contact with 404', async () => {
    expect((await timeline(contactId, { cursor: 'not-a-cursor' })).status).toBe(400);
    const forged = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000Z', 'consent', 'x'])).toString('base64url');
    expect((await timeline(contactId, { cursor: forged })).status).toBe(400);
    expect((await timeline('cnt_doesnotexist')).status).toBe(404);
  });

  it("never reaches another project's contact", async () => {
    const res = await timeline(contactId, {}, other.secretKey);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain(address);
  });
});
