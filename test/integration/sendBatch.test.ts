import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'mail.example.com');
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const item = (to: string, extra: Record<string, unknown> = {}) => ({ from: 'hello@mail.example.com', subject: 'Hi', body: '<p>Hi</p>', to, ...extra });
const batch = (body: unknown, headers: Record<string, string> = {}) =>
  h.http
    .post('/v1/send/batch')
    .set(bearer(p.secretKey))
    .set(headers)
    .send(body as object);
const sinkFor = (email: string) => sink.messages.filter((m) => m.body.personalizations[0].to[0].email === email);
const statusOf = async (id: string) => (await h.deps.knex('emails').where({ id }).first())?.status;

describe('POST /v1/send/batch', () => {
  it('answers per item in order: good items are sent, each bad one gets its own error', async () => {
    const [a, b, c] = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
    const res = await batch({
      emails: [
        item(a),
        { to: b, from: 'hello@mail.example.com' }, // no subject or body
        item(uniqueEmail('x'), { from: 'me@unverified.example.net' }),
        item(c, { sendAt: new Date(Date.now() + 600_000).toISOString() }),
        'not an email',
      ],
    });
    expect(res.status).toBe(200);
    const { results } = res.body.data;
    expect(results).toHaveLength(5);
    expect(results[0].emails[0].contact.email).toBe(a);
    expect(results[1].error.code).toBe('VALIDATION_ERROR');
    expect(results[1].error.details.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(['subject', 'body']));
    expect(results[2].error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(results[2].error.message).toMatch(/not verified/);
    expect(results[3].emails[0].contact.email).toBe(c);
    expect(results[4].error.code).toBe('VALIDATION_ERROR');
    await eventually(async () => (await statusOf(results[0].emails[0].email)) === 'SENT');
    expect(sinkFor(a)).toHaveLength(1);
    expect(await statusOf(results[3].emails[0].email)).toBe('SCHEDULED');
    expect(sinkFor(b)).toHaveLength(0);
  });

  it('replays the same results for a repeated Idempotency-Key, sending nothing twice', async () => {
    const to = uniqueEmail('idem');
    const key = `batch-${Date.now()}`;
    const first = await batch({ emails: [item(to), { to }] }, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    await eventually(async () => (await statusOf(first.body.data.results[0].emails[0].email)) === 'SENT');
    const again = await batch({ emails: [item(to), { to }] }, { 'Idempotency-Key': key });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await h.deps.knex('emails').where({ project_id: p.projectId, to_email: to }).count<{ count: number }[]>('* as count')).toEqual([{ count: 1 }]);
    // The key is the batch route's: /v1/send refuses it as before.
    const send = await h.http.post('/v1/send').set(bearer(p.secretKey)).set('Idempotency-Key', key).send(item(to));
    expect(send.status).toBe(409);
    expect(send.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it("words each refused item's field sentences in the request's language (Accept-Language)", async () => {
    const bad = { to: uniqueEmail('fr'), from: 'hello@mail.example.com' }; // no subject or body
    const messages = async (headers: Record<string, string>) => {
      const res = await batch({ emails: [bad] }, headers);
      expect(res.status).toBe(200);
      return Object.fromEntries(res.body.data.results[0].error.details.errors.map((e: any) => [e.field, e.message]));
    };
    expect(await messages({})).toEqual({ subject: 'subject is required when no template is given', body: 'body is required when no template is given' });
    expect(await messages({ 'Accept-Language': 'fr' })).toEqual({
      subject: 'Le champ « Objet » est obligatoire quand aucun modèle n’est indiqué',
      body: 'Le champ « Corps » est obligatoire quand aucun modèle n’est indiqué',
    });
  });

  it('refuses more than 100 items, an empty list and a bare array as a whole', async () => {
    const over = await batch({ emails: Array.from({ length: 101 }, () => item(uniqueEmail())) });
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('VALIDATION_ERROR');
    expect(over.body.error.errors[0].field).toBe('emails');
    expect((await batch({ emails: [] })).status).toBe(422);
    expect((await batch([item(uniqueEmail())])).status).toBe(422);
  });
});
