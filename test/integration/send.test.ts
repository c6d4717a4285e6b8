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

const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  h.http
    .post('/v1/send')
    .set(bearer(p.secretKey))
    .set(headers)
    .send({ from: 'hello@mail.example.com', subject: 'Hi', body: '<p>Hi</p>', ...body });

const sinkFor = (email: string) => sink.messages.filter((m) => m.body.personalizations[0].to[0].email === email);
const emailRow = (id: string) => h.deps.knex('emails').where({ id }).first();
const sentRow = (id: string) => eventually(async () => ((await emailRow(id))?.status === 'SENT' ? emailRow(id) : null));

describe('POST /v1/send', () => {
  it('sends to three recipient forms at once, rendering each body through the real SendGrid client', async () => {
    const [a, b, c] = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
    const res = await send({
      to: [a, { name: 'Bea', email: b }, { email: c }],
      subject: 'Hello {{ plan }}',
      body: '<p>Hi {{ first name ?? "there" }}, plan {{ plan }}</p>',
      data: { plan: 'pro', 'first name': 'Ann' },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.emails).toHaveLength(3);
    expect(res.body.data.emails.map((e: any) => e.contact.email)).toEqual([a, b, c]);
    for (const e of res.body.data.emails) {
      expect(e.contact.id).toMatch(/^cnt_/);
      expect(e.email).toMatch(/^[0-9a-f-]{36}$/);
      await sentRow(e.email);
    }
    for (const [addr, name] of [
      [a, undefined],
      [b, 'Bea'],
      [c, undefined],
    ] as const) {
      const got = sinkFor(addr);
      expect(got).toHaveLength(1);
      const msg = got[0].body;
      expect(got[0].authorization).toBe('Bearer SG.test-key');
      expect(msg.personalizations[0].to[0]).toEqual(name ? { email: addr, name } : { email: addr });
      expect(msg.from).toEqual({ email: 'hello@mail.example.com' });
      expect(msg.subject).toBe('Hello pro');
      expect(msg.content).toEqual([
        { type: 'text/plain', value: 'Hi Ann, plan pro' },
        { type: 'text/html', value: '<p>Hi Ann, plan pro</p>' },
      ]);
    }
    const row = await emailRow(res.body.data.emails[1].email);
    expect(row.provider_message_id).toBe(sinkFor(b)[0].messageId);
  });

  it('answers in request order and does not deadlock when requests name the same recipients in opposite orders', async () => {
    // Request order is the reverse of address order on purpose.
    const [x, y, z] = [uniqueEmail('z'), uniqueEmail('y'), uniqueEmail('x')];
    const orders = Array.from({ length: 16 }, (_, i) => (i % 2 ? [x, y, z] : [z, y, x]));
    const results = await Promise.all(orders.map((to) => send({ to, data: { n: 1 } })));
    results.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.body.data.emails.map((e: any) => e.contact.email)).toEqual(orders[i]);
    });
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId }).whereIn('email', [x, y, z]).count<{ count: number }[]>('* as count')).toEqual([
      { count: 3 },
    ]);
  });

  it('creates new contacts unsubscribed, stores data by the rules, renders one-off values without storing them', async () => {
    const to = uniqueEmail();
    const res = await send({
      to,
      body: '<p>{{ code }} {{ name ?? "friend" }}|{{ empty ?? "fb" }}|{{ gone ?? "fb" }}</p>',
      data: { code: { value: 'X-42', persistent: false }, email: 'evil@x.com', empty: '', gone: null, kept: 1 },
    });
    expect(res.status).toBe(200);
    const row = await sentRow(res.body.data.emails[0].email);
    expect(row.rendered_body).toBe('<p>X-42 friend||fb</p>');
    const contact = await h.deps.knex('contacts').where({ id: res.body.data.emails[0].contact.id }).first();
    expect(contact.subscribed).toBe(false);
    expect(contact.email).toBe(to);
    expect(contact.data).toEqual({ kept: 1 });
  });

  it('uses a template with request fields overriding it, and marks marketing mail with one-click unsubscribe headers', async () => {
    const tpl = await h.http.post('/templates').set(bearer(p.secretKey)).send({
      name: 'welcome',
      subject: 'Welcome {{ name }}',
      body: '<a href="{{ unsubscribeUrl }}">u</a>',
      from: 'team@mail.example.com',
      fromName: 'Team',
      type: 'MARKETING',
    });
    expect(tpl.status).toBe(201);
    const to = uniqueEmail();
    const res = await h.http
      .post('/v1/send')
      .set(bearer(p.secretKey))
      .send({ to, template: tpl.body.id, subject: 'Override {{ name }}', data: { name: 'Zed' } });
    expect(res.status).toBe(200);
    await sentRow(res.body.data.emails[0].email);
    const msg = sinkFor(to)[0].body;
    expect(msg.subject).toBe('Override Zed');
    expect(msg.from).toEqual({ email: 'team@mail.example.com', name: 'Team' });
    // A marketing template's mail carries the open pixel by default (docs/tracking.md); the unsubscribe link is never rewritten.
    expect(msg.content.find((c: any) => c.type === 'text/html').value).toMatch(
      /^<a href="http:\/\/localhost:\d+\/unsubscribe\/[\w.-]+">u<\/a><img src="http:\/\/[^"]+\/t\/o\/[\w.-]+"[^>]*>$/,
    );
    expect(msg.headers['List-Unsubscribe']).toMatch(/^<http:\/\/localhost:\d+\/unsubscribe\/[\w.-]+>$/);
    expect(msg.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
  });

  it('uses the deprecated name only for a string from, and passes reply-to, headers and attachments', async () => {
    const to = uniqueEmail();
    const content = Buffer.from('hello attachment').toString('base64');
    const res = await send({
      to,
      name: 'Old Name',
      reply: 'replies@example.org',
      headers: { 'X-Campaign': 'abc' },
      attachments: [{ filename: 'a.txt', content, contentType: 'text/plain' }],
    });
    expect(res.status).toBe(200);
    await sentRow(res.body.data.emails[0].email);
    const msg = sinkFor(to)[0].body;
    expect(msg.from).toEqual({ email: 'hello@mail.example.com', name: 'Old Name' });
    expect(msg.reply_to).toEqual({ email: 'replies@example.org' });
    expect(msg.headers['X-Campaign']).toBe('abc');
    expect(msg.attachments).toEqual([{ filename: 'a.txt', content, type: 'text/plain', disposition: 'attachment' }]);
  });

  it('refuses an unverified sender domain with 403 INTERNAL_SERVER_ERROR and sends nothing', async () => {
    const to = uniqueEmail();
    const res = await send({ to, from: 'x@unverified.example.net' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(res.body.error.message).toMatch(/unverified\.example\.net.*not verified/);
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email: to }).first()).toBeUndefined();
  });

  it.each([
    ['header injection in a value', { headers: { 'X-A': 'ok\r\nBcc: victim@example.org' } }, 'headers.X-A'],
    ['header injection in a name', { headers: { 'X-A\r\nBcc': 'v' } }, 'headers'],
    ['a header value over 998 characters', { headers: { 'X-A': 'v'.repeat(999) } }, 'headers.X-A'],
    ['a subject with a newline', { subject: 'a\nb' }, 'subject'],
    ['a subject over 998 characters', { subject: 's'.repeat(999) }, 'subject'],
    ['11 attachments', { attachments: Array.from({ length: 11 }, (_, i) => ({ filename: `${i}.txt`, content: 'aGk=' })) }, 'attachments'],
    ['attachments over 10 MB', { attachments: [{ filename: 'big.bin', content: 'A'.repeat(14 * 1024 * 1024) }] }, 'attachments'],
    ['no subject and no template', { subject: undefined }, 'subject'],
    ['a broken Liquid body', { body: '{% if %}' }, 'body'],
    ['an unknown template', { template: '00000000-0000-4000-8000-000000000000' }, 'template'],
    ['a bad recipient', { to: 'not-an-email' }, 'to'],
  ])('answers %s with 422 and sends nothing', async (_name, patch, field) => {
    const before = sink.messages.length;
    const res = await send({ to: uniqueEmail(), ...patch });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors.map((e: any) => e.field).join(' ')).toContain(field);
    expect(sink.messages.length).toBe(before);
  });

  it('keeps the envelope of its content errors: a broken template is "Template could not be parsed", a missing template the generic summary, each naming its field', async () => {
    const broken = await send({ to: uniqueEmail(), body: '{% if %}' });
    expect(broken.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Template could not be parsed' });
    expect(broken.body.error.errors).toEqual([expect.objectContaining({ field: 'body', message: expect.stringMatching(/^body is not a valid template/) })]);
    const missing = await send({ to: uniqueEmail(), template: '00000000-0000-4000-8000-000000000000' });
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Request validation failed' });
    expect(missing.body.error.errors).toEqual([expect.objectContaining({ field: 'template', message: 'Template not found in this project' })]);
  });

  it('refuses headers that add recipients, change the sender, rebuild or vouch for the message, in any case, naming each; writes nothing', async () => {
    const to = uniqueEmail();
    const hidden = uniqueEmail('hidden');
    const before = sink.messages.length;
    const refused = {
      Bcc: hidden,
      cc: hidden,
      TO: hidden,
      'reply-to': hidden,
      'Return-Path': hidden,
      SENDER: hidden,
      'Resent-Bcc': hidden,
      'content-Type': 'text/plain',
      'DKIM-Signature': 'v=1',
      'List-Unsubscribe': '<https://evil.example>',
      'Message-Id': '<x@y>',
      'X-SES-Configuration-Set': 'other',
    };
    const res = await send({ to, headers: { ...refused, 'X-Campaign': 'fine', 'In-Reply-To': '<a@b>' } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.errors.map((e: any) => e.field).sort();
    expect(fields).toEqual(
      Object.keys(refused)
        .map((name) => `headers.${name}`)
        .sort(),
    );
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId }).whereIn('email', [to, hidden])).toEqual([]);
    expect(sink.messages.length).toBe(before);
  });

  it('lets threading headers through to the provider', async () => {
    const to = uniqueEmail();
    const res = await send({ to, headers: { 'In-Reply-To': '<order-1@shop.example>', References: '<order-1@shop.example>' } });
    expect(res.status).toBe(200);
    await sentRow(res.body.data.emails[0].email);
    expect(sinkFor(to)[0].body.headers).toEqual({ 'In-Reply-To': '<order-1@shop.example>', References: '<order-1@shop.example>' });
  });

  it('refuses the public key with 401 INVALID_API_KEY', async () => {
    const res = await h.http.post('/v1/send').set(bearer(p.publicKey)).send({});
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('performs exactly one of 20 concurrent requests sharing an Idempotency-Key; 19 get 409 with details', async () => {
    const to = uniqueEmail();
    const key = `idem-${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 20 }, () => send({ to }, { 'Idempotency-Key': key })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 409);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(19);
    for (const r of refused) {
      expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(r.body.error.details).toMatchObject({ key, originalRequest: { method: 'POST', path: '/v1/send' }, originalRequestAt: expect.any(String) });
      expect([null, 200]).toContain(r.body.error.details.originalStatusCode);
    }
    await sentRow(ok[0].body.data.emails[0].email);
    expect(await h.deps.knex('emails').where({ project_id: p.projectId, to_email: to }).count({ n: '*' }).first()).toEqual({ n: 1 });
    const later = await send({ to: uniqueEmail() }, { 'Idempotency-Key': key });
    expect(later.status).toBe(409);
    expect(later.body.error.details.originalStatusCode).toBe(200);
    const invalid = await send({ to }, { 'Idempotency-Key': 'x'.repeat(256) });
    expect(invalid.status).toBe(422);
  });

  it('retries a provider 5xx and delivers once', async () => {
    const to = uniqueEmail();
    sink.failNext(2, 503);
    const res = await send({ to });
    await sentRow(res.body.data.emails[0].email);
    expect(sinkFor(to)).toHaveLength(1);
  });

  it('delivers an email queued while the worker is down exactly once after it restarts', async () => {
    await h.stopWorker();
    const to = uniqueEmail();
    const res = await send({ to });
    expect(res.status).toBe(200);
    const id = res.body.data.emails[0].email;
    expect((await emailRow(id)).status).toBe('QUEUED');
    await h.startWorker();
    await sentRow(id);
    const event = await eventually(() => h.deps.knex('events').where({ name: 'email.sent', contact_id: res.body.data.emails[0].contact.id }).first());
    expect(event.data).toEqual({ emailId: id });
    expect(sinkFor(to)).toHaveLength(1);
  });

  it('commits a send whose workflows Temporal cannot take now, answers 200, and keeps the key spent', async () => {
    // Same database and project, but a Temporal address nothing listens on.
    const down = await startHarness({
      temporalAddress: '127.0.0.1:1',
      env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url },
    });
    try {
      const to = uniqueEmail();
      const key = `down-${Date.now()}`;
      const res = await down.http
        .post('/v1/send')
        .set(bearer(p.secretKey))
        .set('Idempotency-Key', key)
        .send({ from: 'hello@mail.example.com', subject: 'Hi', body: '<p>Hi</p>', to });
      expect(res.status).toBe(200);
      const row = await emailRow(res.body.data.emails[0].email);
      // Queued for the maintenance sweep, which starts `email-<id>` once Temporal answers.
      expect(row.status).toBe('QUEUED');
      const again = await down.http
        .post('/v1/send')
        .set(bearer(p.secretKey))
        .set('Idempotency-Key', key)
        .send({ from: 'hello@mail.example.com', subject: 'Hi', body: '<p>Hi</p>', to });
      expect(again.status).toBe(409);
    } finally {
      await down.stop();
    }
  }, 60_000);

  it('uses the deprecated name only when from is a string', async () => {
    const a = uniqueEmail();
    const b = uniqueEmail();
    await sentRow((await send({ to: a, from: { email: 'hello@mail.example.com' }, name: 'Old' })).body.data.emails[0].email);
    await sentRow((await send({ to: b, from: { name: 'New', email: 'hello@mail.example.com' }, name: 'Old' })).body.data.emails[0].email);
    expect(sinkFor(a)[0].body.from).toEqual({ email: 'hello@mail.example.com' });
    expect(sinkFor(b)[0].body.from).toEqual({ email: 'hello@mail.example.com', name: 'New' });
  });

  it("keeps an existing contact's subscription unless given, and a change records one event", async () => {
    const email = uniqueEmail();
    const created = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email });
    expect(created.body.subscribed).toBe(true);
    await send({ to: email });
    expect((await h.deps.knex('contacts').where({ id: created.body.id }).first()).subscribed).toBe(true);
    await send({ to: email, subscribed: false });
    expect((await h.deps.knex('contacts').where({ id: created.body.id }).first()).subscribed).toBe(false);
    expect(await h.deps.knex('events').where({ contact_id: created.body.id, name: 'contact.unsubscribed' })).toHaveLength(1);
  });

  it("falls back to the template's reply-to and lets reply override it", async () => {
    const tpl = await h.http
      .post('/templates')
      .set(bearer(p.secretKey))
      .send({ name: 'rt', subject: 'S', body: '<p>B</p>', from: 'team@mail.example.com', replyTo: 'r@example.org', type: 'TRANSACTIONAL' });
    const [a, b] = [uniqueEmail(), uniqueEmail()];
    await sentRow((await h.http.post('/v1/send').set(bearer(p.secretKey)).send({ to: a, template: tpl.body.id })).body.data.emails[0].email);
    await sentRow(
      (await h.http.post('/v1/send').set(bearer(p.secretKey)).send({ to: b, template: tpl.body.id, reply: 'x@example.org' })).body.data.emails[0].email,
    );
    expect(sinkFor(a)[0].body.reply_to).toEqual({ email: 'r@example.org' });
    expect(sinkFor(b)[0].body.reply_to).toEqual({ email: 'x@example.org' });
  });

  it('holds the Idempotency-Key of a request a domain rule refused (an unverified sender, 403): reuse is 409, not a second try', async () => {
    const key = `refused-${Date.now()}`;
    const refused = await send({ to: uniqueEmail(), from: 'hello@unverified.example.net' }, { 'Idempotency-Key': key });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: expect.stringMatching(/unverified\.example\.net is not verified/) });
    const again = await send({ to: uniqueEmail() }, { 'Idempotency-Key': key });
    expect(again.status).toBe(409);
    expect(again.body.error.details.originalStatusCode).toBe(403);
  });

  it('releases the Idempotency-Key of a request that failed with a 5xx, and the failed request left nothing behind', async () => {
    const subject = `boom-${Date.now()}`;
    const fn = `svc_test_boom_${Date.now()}`;
    // A test-only trigger makes the email insert fail for this one subject.
    await h.deps.knex.raw(
      `CREATE FUNCTION ${fn}() RETURNS trigger AS $$ BEGIN IF NEW.subject = '${subject}' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await h.deps.knex.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON emails FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    const key = `release-${Date.now()}`;
    const to = uniqueEmail();
    try {
      const failed = await send({ to, subject }, { 'Idempotency-Key': key });
      expect(failed.status).toBe(500);
      // One transaction for all recipients: the contact upsert rolled back with the email.
      expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email: to }).first()).toBeUndefined();
    } finally {
      await h.deps.knex.raw(`DROP TRIGGER ${fn} ON emails`);
      await h.deps.knex.raw(`DROP FUNCTION ${fn}()`);
    }
    const retried = await send({ to, subject }, { 'Idempotency-Key': key });
    expect(retried.status).toBe(200);
  });
});
