import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { startWebhookReceiver } from '../helpers/webhookReceiver';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { SvcMail, SvcError } from '../../packages/sdk/src';

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;
let server: http.Server;
let rx: Awaited<ReturnType<typeof startWebhookReceiver>>;
let sdk: SvcMail;

beforeAll(async () => {
  sink = await startSendgridSink();
  rx = await startWebhookReceiver();
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'mail.example.com');
  server = http.createServer(h.built.app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sdk = new SvcMail({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, secretKey: p.secretKey, publicKey: p.publicKey });
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.stop();
  await sink?.stop();
  await rx?.stop();
});

const mail = (to: string) => ({ from: 'hello@mail.example.com', subject: 'Hi', body: '<p>Hi</p>', to });
const statusOf = async (id: string) => (await h.deps.knex('emails').where({ id }).first())?.status;

describe('@svc-mail/sdk against the running server', () => {
  it('sends, sends a batch and reads an email back', async () => {
    const to = uniqueEmail('sdk');
    const sent = await sdk.emails.send(mail(to));
    expect(sent.emails[0].contact.email).toBe(to);
    await eventually(async () => (await statusOf(sent.emails[0].email)) === 'SENT');
    const email = await sdk.emails.get(sent.emails[0].email);
    expect(email).toMatchObject({ id: sent.emails[0].email, to, status: 'SENT' });

    const batch = await sdk.emails.sendBatch([mail(uniqueEmail('b1')), { to: uniqueEmail('b2'), from: 'hello@mail.example.com' } as any]);
    expect(batch.results).toHaveLength(2);
    expect('emails' in batch.results[0]).toBe(true);
    expect('error' in batch.results[1] && batch.results[1].error.code).toBe('VALIDATION_ERROR');
  });

  it('cancels a scheduled email', async () => {
    const sent = await sdk.emails.send({ ...mail(uniqueEmail('later')), sendAt: new Date(Date.now() + 3_600_000).toISOString() });
    const cancelled = await sdk.emails.cancel(sent.emails[0].email);
    expect(cancelled.status).toBe('CANCELLED');
    const again = await sdk.emails.cancel(sent.emails[0].email).catch((e) => e);
    expect(again).toBeInstanceOf(SvcError);
    expect(again.status).toBe(409);
  });

  it('tracks an event and manages a contact', async () => {
    const email = uniqueEmail('track');
    const tracked = await sdk.events.track({ email, event: 'signed_up', data: { plan: 'pro' } });
    expect(tracked.success).toBe(true);
    const created = await sdk.contacts.create({ email: uniqueEmail('contact'), data: { plan: 'free' } });
    const got = await sdk.contacts.get(created.id);
    expect(got.email).toBe(created.email);
    const updated = await sdk.contacts.update(created.id, { data: { plan: 'pro' } });
    expect(updated.data).toMatchObject({ plan: 'pro' });
    const listed = await sdk.contacts.list({ search: created.email });
    expect(listed.data.map((c: { id: string }) => c.id)).toContain(created.id);
    await sdk.contacts.delete(created.id);
    const gone = await sdk.contacts.get(created.id).catch((e) => e);
    expect(gone).toBeInstanceOf(SvcError);
    expect(gone.status).toBe(404);
  });

  it('throws a typed error with the code, the request id and the field errors', async () => {
    const err = await sdk.emails.send({ to: 'not an address', from: 'hello@mail.example.com', subject: 'x', body: 'y' }).catch((e) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect(err.status).toBe(422);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.requestId).toMatch(/\S+/);
    expect(err.errors.map((e: { field: string }) => e.field)).toContain('to');
  });

  it('verifies a real webhook call with the endpoint secret, and refuses a forged one', async () => {
    const created = await h.http
      .post('/webhook-endpoints')
      .set(bearer(p.secretKey))
      .send({ url: rx.url('/sdk'), events: ['email.sent'] });
    expect(created.status).toBe(201);
    expect((await h.http.post(`/webhook-endpoints/${created.body.id}/test`).set(bearer(p.secretKey))).status).toBeLessThan(300);
    const call = await eventually(async () => rx.calls('/sdk')[0]);
    const payload = sdk.webhooks.verify<{ type: string }>(call.body, call.headers, created.body.secret);
    expect(typeof payload.type).toBe('string');
    expect(() => sdk.webhooks.verify(call.body.replace('"', ' "'), call.headers, created.body.secret)).toThrow();
  });
});
