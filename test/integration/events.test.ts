import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { filterOn, seedCampaign, seedContacts, seedEvents, seedSegment, SeededContact, seedWorkflow } from '../helpers/feedFixtures';

let h: Harness;
let p: ProjectFixture;
let q: ProjectFixture;
let alice: SeededContact;
let bob: SeededContact;
let qContact: SeededContact;
const tag = crypto.randomBytes(3).toString('hex');
const Q_ONLY = `q-only-${tag}`;
const now = Date.now();
const ago = (ms: number) => new Date(now - ms);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  h = await startHarness();
  [p, q] = await Promise.all([createProjectFixture(h, 'events p'), createProjectFixture(h, 'events q')]);
  [alice, bob] = await seedContacts(h.deps.knex, p.projectId, [{ email: uniqueEmail('alice') }, { email: uniqueEmail('bob') }]);
  [qContact] = await seedContacts(h.deps.knex, q.projectId, [{ email: uniqueEmail('q') }]);
  await seedEvents(h.deps.knex, p.projectId, [
    { name: 'signup', contactId: alice.id, at: ago(40 * DAY), data: { plan: 'free' } },
    { name: 'signup', contactId: bob.id, at: ago(5 * HOUR) },
    { name: 'purchase', contactId: alice.id, at: ago(4 * HOUR), data: { amount: 10 } },
    { name: 'purchase', contactId: alice.id, at: ago(3 * HOUR), data: { amount: 20 } },
    { name: 'purchase', contactId: bob.id, at: ago(2 * HOUR) },
    { name: 'email.sent', contactId: bob.id, at: ago(1 * HOUR) },
  ]);
  // Same names plus one of its own in the other project: none of it may show through p's key.
  await seedEvents(h.deps.knex, q.projectId, [
    { name: 'signup', contactId: qContact.id, at: ago(HOUR) },
    { name: 'purchase', contactId: qContact.id, at: ago(HOUR) },
    { name: Q_ONLY, contactId: qContact.id, at: ago(HOUR) },
  ]);
});
afterAll(() => h?.stop());

const get = (path: string, key = p.secretKey) => h.http.get(path).set(bearer(key));

describe('POST /events/track', () => {
  it('records like /v1/track with the secret key: same body, same answer, same contact rules', async () => {
    const email = uniqueEmail('track');
    const res = await h.http
      .post('/events/track')
      .set(bearer(p.secretKey))
      .send({ email, event: 'dashboard.test', data: { plan: 'pro', once: { value: 1, persistent: false } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { contact: expect.stringMatching(/^cnt_/), event: expect.any(String), timestamp: expect.any(String) } });
    const contact = await h.deps.knex('contacts').where({ id: res.body.data.contact }).first();
    expect(contact).toMatchObject({ project_id: p.projectId, email, subscribed: true, data: { plan: 'pro' } });
    const event = await h.deps.knex('events').where({ id: res.body.data.event }).first();
    expect(event).toMatchObject({ project_id: p.projectId, name: 'dashboard.test', data: { plan: 'pro', once: 1 } });
  });

  it.each([
    'email.delivered',
    'contact.subscribed',
    'contact.created',
    'segment.vip.entry',
    'campaign.sent',
    'campaign.cancelled',
    'webhook.disabled',
    'webhook.test',
    'WEBHOOK.Test',
  ])('refuses %s, a name in a family the service emits, and records nothing', async (event) => {
    const email = uniqueEmail();
    const res = await h.http.post('/events/track').set(bearer(p.secretKey)).send({ email, event });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'event', code: 'reserved_event' })]);
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email }).first()).toBeUndefined();
  });

  it('refuses the public key, reserved names, bad bodies and a reused Idempotency-Key', async () => {
    const email = uniqueEmail();
    const pub = await h.http.post('/events/track').set(bearer(p.publicKey)).send({ email, event: 'x' });
    expect(pub.status).toBe(401);
    expect(pub.body.error.code).toBe('INVALID_API_KEY');
    const reserved = await h.http.post('/events/track').set(bearer(p.secretKey)).send({ email, event: 'email.opened' });
    expect(reserved.status).toBe(422);
    expect(reserved.body.error.errors).toEqual([expect.objectContaining({ field: 'event', code: 'reserved_event' })]);
    // Lookalikes of reserved names: compared after NFKC, invisible characters refused.
    for (const event of ['campaign\u200b.sent', '\uff43ampaign.sent']) {
      const lookalike = await h.http.post('/events/track').set(bearer(p.secretKey)).send({ email, event });
      expect(lookalike.status).toBe(422);
      expect(lookalike.body.error.errors).toEqual([expect.objectContaining({ field: 'event', code: 'reserved_event' })]);
    }
    expect((await h.http.post('/events/track').set(bearer(p.secretKey)).send({ event: 'x' })).status).toBe(422);
    const key = `idem-${tag}`;
    const first = await h.http.post('/events/track').set(bearer(p.secretKey)).set('Idempotency-Key', key).send({ email, event: 'once' });
    expect(first.status).toBe(200);
    const again = await h.http.post('/events/track').set(bearer(p.secretKey)).set('Idempotency-Key', key).send({ email, event: 'once' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('GET /events', () => {
  it('pages newest first with a cursor, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/events?limit=2&name=purchase${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.cursor;
      expect(res.body.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    const rows = await h.deps.knex('events').where({ project_id: p.projectId, name: 'purchase' }).orderBy('created_at', 'desc').pluck('id');
    expect(seen).toEqual(rows);
  });

  it('filters by contact and time window and shows the contact email', async () => {
    const res = await get(`/events?contactId=${alice.id}&from=${ago(30 * DAY).toISOString()}&to=${ago(3.5 * HOUR).toISOString()}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: expect.any(String),
        name: 'purchase',
        contactId: alice.id,
        contactEmail: alice.email,
        data: { amount: 10 },
        createdAt: ago(4 * HOUR).toISOString(),
      },
    ]);
  });

  it('rejects bad queries with 400', async () => {
    for (const query of ['limit=0', 'limit=abc', 'cursor=garbage', 'from=yesterday', 'contactId=nope', 'name=%00']) {
      const res = await get(`/events?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    }
  });
});

describe('GET /events/stats and /events/names', () => {
  it('counts per name over the window, most frequent first', async () => {
    const res = await get('/events/stats?days=30');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: expect.any(Number), uniqueContacts: expect.any(Number) });
    const byName = Object.fromEntries(res.body.data.map((r: { name: string; count: number; uniqueContacts: number }) => [r.name, [r.count, r.uniqueContacts]]));
    expect(byName.purchase).toEqual([3, 2]);
    expect(byName.signup).toEqual([1, 1]);
    expect(res.body.data[0].name).toBe('purchase');
    const longer = await get('/events/stats?days=60');
    expect(longer.body.data.find((r: { name: string }) => r.name === 'signup').count).toBe(2);
    for (const days of ['0', '366', 'x']) expect((await get(`/events/stats?days=${days}`)).status).toBe(400);
  });

  it('lists distinct names with their windowed count, last occurrence and whether they are reserved', async () => {
    const res = await get('/events/names?days=30');
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.data.map((r: any) => [r.name, r]));
    expect(byName.signup).toEqual({ name: 'signup', count: 1, lastSeen: ago(5 * HOUR).toISOString(), reserved: false });
    expect(byName.purchase).toMatchObject({ count: 3, lastSeen: ago(2 * HOUR).toISOString() });
    expect(byName['email.sent'].reserved).toBe(true);
    const names = res.body.data.map((r: { name: string }) => r.name);
    expect(names).toEqual([...names].sort());
    expect((await get('/events/names?limit=1')).body.data).toHaveLength(1);
    expect((await get('/events/names?days=-1')).status).toBe(400);
  });
});

describe('GET /events/contact/:contactId', () => {
  it("pages one contact's events and 404s another project's contact", async () => {
    const res = await get(`/events/contact/${alice.id}?limit=10`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { name: string }) => e.name)).toEqual(['purchase', 'purchase', 'signup']);
    expect(res.body.hasMore).toBe(false);
    const foreign = await get(`/events/contact/${qContact.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toMatch(/Contact/);
    expect((await get('/events/contact/not-a-contact')).status).toBe(404);
    expect((await get(`/events/contact/${alice.id}?cursor=bad`)).status).toBe(400);
  });
});

describe('GET /events/:eventName/usage', () => {
  it('finds segment and audience filters, workflow triggers, waits and conditions naming the event, in this project only', async () => {
    const name = `usage.${tag}`;
    const eventFilter = filterOn(`event.${name}`, 'triggered', true);
    const seg = await seedSegment(h.deps.knex, p.projectId, 'Did it', eventFilter);
    await seedSegment(h.deps.knex, p.projectId, 'Other event', filterOn(`event.${name}.more`, 'triggered', true));
    const camp = await seedCampaign(h.deps.knex, p.projectId, { name: 'Did it campaign', audienceCondition: eventFilter });
    const trigger = await seedWorkflow(h.deps.knex, p.projectId, { name: 'A trigger', eventName: name });
    const waits = await seedWorkflow(h.deps.knex, p.projectId, {
      name: 'B waits',
      eventName: 'other',
      steps: [{ type: 'WAIT_FOR_EVENT', config: { eventName: name } }],
    });
    const both = await seedWorkflow(h.deps.knex, p.projectId, {
      name: 'C both',
      eventName: name,
      steps: [{ type: 'CONDITION', config: { condition: eventFilter } }],
    });
    await seedWorkflow(h.deps.knex, p.projectId, { name: 'D unrelated', eventName: `${name}x` });
    await seedSegment(h.deps.knex, q.projectId, 'Q did it', eventFilter);
    await seedWorkflow(h.deps.knex, q.projectId, { name: 'Q trigger', eventName: name });

    const res = await get(`/events/${encodeURIComponent(name)}/usage`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      event: name,
      segments: [{ id: seg, name: 'Did it' }],
      campaigns: [{ id: camp, name: 'Did it campaign' }],
      workflows: [
        { id: trigger, name: 'A trigger', references: ['trigger'] },
        { id: waits, name: 'B waits', references: ['waitForEvent'] },
        { id: both, name: 'C both', references: ['trigger', 'condition'] },
      ],
    });
    expect((await get(`/events/never-${tag}/usage`)).body).toEqual({ event: `never-${tag}`, segments: [], campaigns: [], workflows: [] });
    expect((await get(`/events/${'x'.repeat(256)}/usage`)).status).toBe(404);
  });
});

describe('DELETE /events/:eventName', () => {
  it("deletes every event of the name in batches, only in the key's project", async () => {
    const name = `bulk.${tag}`;
    await seedEvents(
      h.deps.knex,
      p.projectId,
      Array.from({ length: 1205 }, () => ({ name, contactId: alice.id })),
    );
    await seedEvents(h.deps.knex, q.projectId, [{ name, contactId: qContact.id }]);
    const res = await h.http.delete(`/events/${encodeURIComponent(name)}`).set(bearer(p.secretKey));
    expect(res.status).toBe(204);
    expect(await h.deps.knex('events').where({ project_id: p.projectId, name }).count<{ count: number }[]>('* as count')).toEqual([{ count: 0 }]);
    expect(await h.deps.knex('events').where({ project_id: q.projectId, name }).count<{ count: number }[]>('* as count')).toEqual([{ count: 1 }]);
    expect((await get('/events/names')).body.data.map((r: { name: string }) => r.name)).not.toContain(name);
    expect((await h.http.delete(`/events/${encodeURIComponent(name)}`).set(bearer(p.secretKey))).status).toBe(204);
  });

  it('refuses the names the service emits with 422 reserved_event, deleting nothing', async () => {
    for (const name of ['email.sent', 'contact.unsubscribed', 'segment.vip.entry']) {
      const res = await h.http.delete(`/events/${encodeURIComponent(name)}`).set(bearer(p.secretKey));
      expect(res.status).toBe(422);
      expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'eventName', code: 'reserved_event' })]);
    }
    expect(await h.deps.knex('events').where({ project_id: p.projectId, name: 'email.sent' }).count<{ count: number }[]>('* as count')).toEqual([{ count: 1 }]);
  });

  it('deletes a lookalike of a reserved name tracked before names were compared after NFKC', async () => {
    const name = '\uff43ampaign.sent';
    await seedEvents(h.deps.knex, p.projectId, [{ name, contactId: alice.id }]);
    const names = (await get('/events/names')).body.data;
    expect(names.find((r: { name: string }) => r.name === name)).toMatchObject({ reserved: true });
    expect((await h.http.delete(`/events/${encodeURIComponent(name)}`).set(bearer(p.secretKey))).status).toBe(204);
    expect(await h.deps.knex('events').where({ project_id: p.projectId, name }).count<{ count: number }[]>('* as count')).toEqual([{ count: 0 }]);
  });
});

describe('isolation', () => {
  it("never shows another project's events through any listing", async () => {
    for (const path of [
      '/events?limit=100',
      '/events/stats',
      '/events/names',
      `/events/contact/${alice.id}`,
      `/events?contactId=${qContact.id}`,
      `/events?name=${Q_ONLY}`,
    ]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 200]);
      const body = JSON.stringify(res.body);
      expect(body).not.toContain(Q_ONLY);
      expect(body).not.toContain(qContact.id);
    }
    const stats = await get('/events/stats');
    expect(stats.body.data.find((r: { name: string }) => r.name === 'signup').count).toBe(1);
  });
});
