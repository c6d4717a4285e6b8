import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startWebhookReceiver, WebhookReceiver, ReceivedCall } from '../helpers/webhookReceiver';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { recordEvents } from '../../db/events';
import { stalledWebhookEndpoints } from '../../db/webhookEndpoints';
import { webhookAttempts } from '../../lib/metrics';
import { wakeWebhookEndpoints } from '../../services/webhooks/handOff';

/**
 * Outbound event webhooks end to end: the real API, Postgres, Temporal dev server and worker, and
 * a receiver on loopback that checks every call with the `standardwebhooks` library. Time runs
 * 10,000× faster (a day lasts 8.64 s); the retry window is 36 scaled hours (13 s).
 */

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;
let rx: WebhookReceiver;
let sink: SendgridSink;
const DOMAIN = 'hooks.example.com';

beforeAll(async () => {
  rx = await startWebhookReceiver();
  sink = await startSendgridSink();
  h = await startHarness({
    worker: true,
    env: {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKFLOW_TIME_SCALE: '0.0001',
      WEBHOOK_RETRY_HOURS: '36',
      WEBHOOK_ENDPOINT_RATE_PER_SECOND: '5000',
      EMAIL_TRANSPORT: 'sendgrid',
      SENDGRID_API_KEY: 'SG.test-key',
      SENDGRID_API_URL: sink.url,
    },
  });
  [p, other] = [await createProjectFixture(h), await createProjectFixture(h, 'Other')];
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await rx?.stop();
  await sink?.stop();
});

const api = (key = p.secretKey) => ({
  create: (body: unknown) =>
    h.http
      .post('/webhook-endpoints')
      .set(bearer(key))
      .send(body as object),
  get: (id: string) => h.http.get(`/webhook-endpoints/${id}`).set(bearer(key)),
  patch: (id: string, body: unknown) =>
    h.http
      .patch(`/webhook-endpoints/${id}`)
      .set(bearer(key))
      .send(body as object),
  del: (id: string) => h.http.delete(`/webhook-endpoints/${id}`).set(bearer(key)),
  test: (id: string) => h.http.post(`/webhook-endpoints/${id}/test`).set(bearer(key)),
  rotate: (id: string) => h.http.post(`/webhook-endpoints/${id}/rotate-secret`).set(bearer(key)),
  deliveries: (id: string, query = '') => h.http.get(`/webhook-endpoints/${id}/deliveries${query}`).set(bearer(key)),
  retry: (id: string, deliveryId: string) => h.http.post(`/webhook-endpoints/${id}/deliveries/${deliveryId}/retry`).set(bearer(key)),
});

let pathSeq = 0;
/** A fresh endpoint on its own receiver path. */
async function endpoint(events: string[], behaviour?: Parameters<WebhookReceiver['url']>[1], key = p.secretKey) {
  const path = `/hook-${++pathSeq}`;
  const res = await api(key).create({ url: rx.url(path, behaviour), events });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, secret: res.body.secret as string, path };
}

/** Throws when the call does not verify with this secret. */
const verify = (secret: string, call: Pick<ReceivedCall, 'body' | 'headers'>) => new Webhook(secret).verify(call.body, call.headers);
const verifies = (secret: string, call: ReceivedCall) => {
  try {
    verify(secret, call);
    return true;
  } catch {
    return false;
  }
};

const deliveryRow = (id: string) => h.deps.knex('webhook_deliveries').where({ id }).first();

describe('webhook endpoint routes', () => {
  it('creates an endpoint with a whsec_ secret shown only on creation, and keeps it to its project', async () => {
    const created = await api().create({ url: 'https://receiver.example.com/hooks?token=x', events: ['email.*', 'purchase'], description: 'CRM' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: 'https://receiver.example.com/hooks?token=x',
      events: ['email.*', 'purchase'],
      description: 'CRM',
      enabled: true,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body.id;

    const got = await api().get(id);
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    const listed = await h.http.get('/webhook-endpoints').set(bearer(p.secretKey));
    expect(listed.body.map((e: { id: string }) => e.id)).toContain(id);
    expect(listed.body.every((e: object) => !('secret' in e))).toBe(true);

    // Another project's key sees nothing and changes nothing.
    const stranger = api(other.secretKey);
    for (const res of [
      await stranger.get(id),
      await stranger.patch(id, { enabled: false }),
      await stranger.test(id),
      await stranger.rotate(id),
      await stranger.deliveries(id),
      await stranger.retry(id, crypto.randomUUID()),
      await stranger.del(id),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await h.http.get('/webhook-endpoints').set(bearer(other.secretKey))).body).toEqual([]);
    expect((await api().get(id)).body).toMatchObject({ enabled: true, description: 'CRM' });

    const patched = await api().patch(id, { events: ['*'], description: null });
    expect(patched.body).toMatchObject({ events: ['*'], description: null });
    expect((await api().del(id)).status).toBe(204);
    expect((await api().get(id)).status).toBe(404);
  });

  it.each([
    [{ url: 'ftp://example.com/x', events: ['*'] }, 'url'],
    [{ url: 'not a url', events: ['*'] }, 'url'],
    [{ url: 'https://example.com', events: [] }, 'events'],
    [{ url: 'https://example.com', events: ['email*'] }, 'events.0'],
    [{ url: 'https://example.com', events: ['*.delivered'] }, 'events.0'],
    [{ url: 'https://example.com', events: ['ok', 'a.*.b'] }, 'events.1'],
  ])('refuses %j with 422 naming %s', async (body, field) => {
    const res = await api().create(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('refuses a cursor it did not hand out', async () => {
    const { id } = await endpoint(['never.sent']);
    const res = await api().deliveries(id, '?cursor=bm9wZQ');
    expect(res.status).toBe(400);
  });
});

describe('delivery', () => {
  it('signs every call per Standard Webhooks; a tampered body fails verification', async () => {
    const e = await endpoint(['*']);
    const queued = await api().test(e.id);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ type: 'webhook.test', status: 'PENDING', messageId: expect.stringMatching(/^msg_/) });
    const [call] = await eventually(async () => rx.calls(e.path).length > 0 && rx.calls(e.path));
    expect(call.headers['webhook-id']).toBe(queued.body.messageId);
    expect(call.headers['content-type']).toBe('application/json');
    expect(verify(e.secret, call)).toMatchObject({ type: 'webhook.test', timestamp: expect.any(String), data: { endpointId: e.id } });
    expect(() => verify(e.secret, { ...call, body: call.body.replace('test', 'tost') })).toThrow();
    expect(() => verify(e.secret, { ...call, headers: { ...call.headers, 'webhook-id': 'msg_other' } })).toThrow();
    await eventually(async () => (await deliveryRow(queued.body.id)).status === 'DELIVERED');

    // With nothing pending, the endpoint's workflow sleeps on a signal instead of polling.
    const handle = (await h.deps.temporal.client()).workflow.getHandle(`webhook-${e.id}`);
    const settled = await eventually(async () => {
      const a = (await handle.describe()).historyLength;
      await new Promise((r) => setTimeout(r, 300));
      return a === (await handle.describe()).historyLength && a;
    });
    await new Promise((r) => setTimeout(r, 1000));
    const described = await handle.describe();
    expect(described.historyLength).toBe(settled);
    // Operators see which endpoint it serves in the Web UI; its input is the endpoint id alone.
    expect(await described.staticSummary()).toBe(`Webhook deliveries to ${new URL(rx.url(e.path)).host} (endpoint ${e.id})`);
    expect(described.searchAttributes.ProjectId).toEqual([p.projectId]);
  });

  it('retries with the same webhook-id until the receiver takes it (fourth attempt)', async () => {
    const attempts = async (result: 'delivered' | 'failed') => (await webhookAttempts.get()).values.find((v) => v.labels.result === result)?.value ?? 0;
    const before = { delivered: await attempts('delivered'), failed: await attempts('failed') };
    const e = await endpoint(['*'], [500, 503, 500, 204]);
    const queued = await api().test(e.id);
    const delivered = await eventually(async () => {
      const row = await deliveryRow(queued.body.id);
      return row.status === 'DELIVERED' && row;
    });
    expect(delivered).toMatchObject({ attempts: 4, last_status_code: 204, last_error: null });
    const calls = rx.calls(e.path);
    expect(calls.map((c) => c.answered)).toEqual([500, 503, 500, 204]);
    expect(new Set(calls.map((c) => c.headers['webhook-id']))).toEqual(new Set([queued.body.messageId]));
    expect(new Set(calls.map((c) => c.body)).size).toBe(1);
    for (const c of calls) expect(verifies(e.secret, c)).toBe(true);
    // The worker runs in this process: its counters saw three failed calls and one delivered (other tests' calls only add).
    expect((await attempts('failed')) - before.failed).toBeGreaterThanOrEqual(3);
    expect((await attempts('delivered')) - before.delivered).toBeGreaterThanOrEqual(1);

    // The log, a page at a time; a manual retry sends the same message again.
    await api().test(e.id);
    await eventually(async () => rx.calls(e.path).length === 5);
    const first = await api().deliveries(e.id, '?limit=1');
    expect(first.body).toMatchObject({ hasMore: true, data: [{ type: 'webhook.test' }] });
    const second = await api().deliveries(e.id, `?limit=1&cursor=${first.body.cursor}`);
    expect(second.body).toMatchObject({ hasMore: false, cursor: null, data: [{ id: queued.body.id, status: 'DELIVERED', attempts: 4, lastStatusCode: 204 }] });
    const retried = await api().retry(e.id, queued.body.id);
    expect(retried.status).toBe(202);
    await eventually(async () => rx.calls(e.path).length === 6);
    expect(rx.calls(e.path)[5].headers['webhook-id']).toBe(queued.body.messageId);
  });

  it('marks a message FAILED once a receiver that never answers has used up the retry window', async () => {
    const e = await endpoint(['*'], 'hang');
    const queued = await api().test(e.id);
    const failed = await eventually(
      async () => {
        const row = await deliveryRow(queued.body.id);
        return row.status === 'FAILED' && row;
      },
      60_000,
      250,
    );
    // 10 s per attempt against a 13 s window: the second attempt is the last.
    expect(failed.attempts).toBe(2);
    expect(failed.last_error).toMatch(/no complete answer within 10 s/);
    expect(failed.next_attempt_at).toBeNull();
    expect(rx.calls(e.path)).toHaveLength(2);
    // Later tests' events would keep it busy for 10 s each.
    expect((await api().del(e.id)).status).toBe(204);
  }, 90_000);

  it('signs with both secrets during a rotation, and with the new one only after it', async () => {
    const e = await endpoint(['*']);
    const rotated = await api().rotate(e.id);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(e.secret);
    await api().test(e.id);
    const [during] = await eventually(async () => rx.calls(e.path).length === 1 && rx.calls(e.path));
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifies(e.secret, during)).toBe(true);
    expect(verifies(fresh, during)).toBe(true);

    // The overlap is 24 scaled hours: 8.64 s here.
    const until = Date.parse(rotated.body.previousSecretExpiresAt);
    await eventually(async () => Date.now() > until + 50, 20_000, 200);
    await api().test(e.id);
    const after = await eventually(async () => rx.calls(e.path).length === 2 && rx.calls(e.path)[1]);
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verifies(fresh, after)).toBe(true);
    expect(verifies(e.secret, after)).toBe(false);
  }, 40_000);

  it('disables an endpoint failing for 5 days straight and tells the others with webhook.disabled', async () => {
    const failing = await endpoint(['*'], 500);
    const watcher = await endpoint(['webhook.*']);
    await api().test(failing.id);
    await eventually(async () => (await h.deps.knex('webhook_endpoints').where({ id: failing.id }).first()).failing_since);
    expect((await api().get(failing.id)).body.enabled).toBe(true);
    // The streak began 6 scaled days ago (5 days = 43.2 s here).
    await h.deps
      .knex('webhook_endpoints')
      .where({ id: failing.id })
      .update({ failing_since: h.deps.knex.raw("now() - interval '52 seconds'") });
    await api().test(failing.id);
    await eventually(async () => (await api().get(failing.id)).body.enabled === false);
    const [notice] = await eventually(async () => rx.calls(watcher.path).length > 0 && rx.calls(watcher.path));
    expect(verify(watcher.secret, notice)).toMatchObject({ type: 'webhook.disabled', data: { endpointId: failing.id } });
    expect((await api().test(failing.id)).status).toBe(409);
    const log = await api().deliveries(failing.id);
    expect(log.body.data.every((d: { status: string }) => d.status !== 'PENDING')).toBe(true);
  });
});

describe('patterns', () => {
  it('sends email.* the transactional and campaign email events, and no tracked events', async () => {
    const emailHook = await endpoint(['email.*']);
    const campaignHook = await endpoint(['campaign.*']);
    const purchaseHook = await endpoint(['purchase']);

    // Transactional: email.sent.
    const to = uniqueEmail('tx');
    const sent = await h.http
      .post('/v1/send')
      .set(bearer(p.secretKey))
      .send({ to, from: `hi@${DOMAIN}`, subject: 'Hi', body: '<p>Hi</p>' });
    expect(sent.status).toBeLessThan(300);
    // Campaign: the provider reports the campaign email delivered.
    const member = uniqueEmail('cm');
    await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email: member });
    const seg = await h.http
      .post('/segments')
      .set(bearer(p.secretKey))
      .send({ name: `wh-${crypto.randomBytes(3).toString('hex')}`, type: 'STATIC' });
    await h.http
      .post(`/segments/${seg.body.id}/members`)
      .set(bearer(p.secretKey))
      .send({ emails: [member] });
    const campaign = await h.http
      .post('/campaigns')
      .set(bearer(p.secretKey))
      .send({ name: 'hooks', subject: 'News', body: '<p>News</p>', from: `news@${DOMAIN}`, audienceType: 'SEGMENT', segmentId: seg.body.id });
    const campaignId = campaign.body.data.id;
    await h.http.post(`/campaigns/${campaignId}/send`).set(bearer(p.secretKey)).send({});
    await eventually(async () => (await h.deps.knex('campaigns').where({ id: campaignId }).first()).status === 'SENT');
    const recipient = sink.recipients().find((r) => r.email === member)!;
    const provider = await h.http
      .post('/webhooks/sendgrid')
      .set('Content-Type', 'application/json')
      .send(
        JSON.stringify([
          {
            email: member,
            timestamp: Math.floor(Date.now() / 1000),
            event: 'delivered',
            sg_event_id: crypto.randomUUID(),
            sg_message_id: `${recipient.messageId}.f`,
            email_id: recipient.customArgs.email_id,
            project_id: p.projectId,
          },
        ]),
      );
    expect(provider.status).toBeLessThan(300);
    // Tracked.
    expect(
      (
        await h.http
          .post('/v1/track')
          .set(bearer(p.publicKey))
          .send({ email: member, event: 'purchase', data: { total: 12 } })
      ).status,
    ).toBeLessThan(300);

    const [purchase] = await eventually(async () => rx.calls(purchaseHook.path).length > 0 && rx.calls(purchaseHook.path));
    expect(verify(purchaseHook.secret, purchase)).toMatchObject({ type: 'purchase', data: { contact: { email: member }, data: { total: 12 } } });
    const emailCalls = await eventually(async () => rx.calls(emailHook.path).length >= 2 && rx.calls(emailHook.path));
    const bodies = emailCalls.map((c) => verify(emailHook.secret, c) as { type: string; data: Record<string, any> });
    expect(bodies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'email.sent',
          data: expect.objectContaining({ contact: expect.objectContaining({ email: to }), emailId: expect.any(String) }),
        }),
        expect.objectContaining({
          type: 'email.delivered',
          data: expect.objectContaining({ campaignId, emailId: recipient.customArgs.email_id, contact: expect.objectContaining({ email: member }) }),
        }),
      ]),
    );
    expect(bodies.every((b) => b.type.startsWith('email.'))).toBe(true);
    const [ended] = await eventually(async () => rx.calls(campaignHook.path).length > 0 && rx.calls(campaignHook.path));
    expect(verify(campaignHook.secret, ended)).toMatchObject({ type: 'campaign.sent', data: { campaignId, status: 'SENT', totalRecipients: 1 } });
    expect(rx.calls(campaignHook.path)).toHaveLength(1);
  });
});

describe('a worker kill during a burst', () => {
  it('loses none of 5,000 events, and every repeat carries its message id and body', async () => {
    // A project of its own: the other tests' `*` endpoints would get the burst too.
    const own = await createProjectFixture(h, 'Burst');
    const e = await endpoint(['burst'], undefined, own.secretKey);
    const contact = await h.http
      .post('/contacts')
      .set(bearer(own.secretKey))
      .send({ email: uniqueEmail('burst') });
    const events = await recordEvents(
      h.deps.knex,
      Array.from({ length: 5000 }, (_, i) => ({ projectId: own.projectId, contactId: contact.body.id, name: 'burst', data: { i } })),
    );
    h.deps.runtime.events.queue(events);
    await eventually(async () => rx.calls(e.path).length >= 500, 60_000);
    await h.stopWorker();
    const atKill = rx.calls(e.path).length;
    await h.startWorker();
    await eventually(
      async () => Number((await h.deps.knex('webhook_deliveries').where({ endpoint_id: e.id, status: 'DELIVERED' }).count({ n: '*' }))[0].n) === 5000,
      120_000,
      500,
    );

    // A worker killed outright (no graceful stop) leaves sent messages unrecorded: the same state
    // as these 200 rows put back to PENDING. The sweep's wake-up sends them again.
    const unrecorded = await h.deps.knex('webhook_deliveries').where({ endpoint_id: e.id }).orderBy('id').limit(200).pluck('id');
    await h.deps
      .knex('webhook_deliveries')
      .whereIn('id', unrecorded)
      .update({ status: 'PENDING', next_attempt_at: new Date(0) });
    const before = rx.calls(e.path).length;
    await wakeWebhookEndpoints(h.deps.temporal, await stalledWebhookEndpoints(h.deps.knex, 0, 10));
    await eventually(async () => rx.calls(e.path).length >= before + 200, 60_000);

    const calls = rx.calls(e.path);
    expect(atKill).toBeLessThan(5000);
    const byId = new Map<string, Set<string>>();
    for (const c of calls) byId.set(c.headers['webhook-id'], (byId.get(c.headers['webhook-id']) ?? new Set()).add(c.body));
    expect(byId.size).toBe(5000);
    // A repeat is the same message: deduplicable by webhook-id alone.
    expect([...byId.values()].every((bodies) => bodies.size === 1)).toBe(true);
    expect(calls.length).toBeGreaterThanOrEqual(5200);
    const seen = new Set([...byId.values()].map((b) => JSON.parse([...b][0]).data.data.i as number));
    expect(seen.size).toBe(5000);
    for (const c of calls.slice(0, 50)) expect(verifies(e.secret, c)).toBe(true);
  }, 240_000);
});
