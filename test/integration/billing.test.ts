import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';

let h: Harness;
let p: ProjectFixture;
let q: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  [p, q] = await Promise.all([createProjectFixture(h, 'billed'), createProjectFixture(h, 'neighbour')]);
  await verifiedDomain(h, p.projectId, 'mail.example.com');
});
afterAll(() => h?.stop());

const api = (path: string, f: ProjectFixture = p) => `/users/@me/projects/${f.projectId}/${path}`;
const send = (to: string[]) => h.http.post('/v1/send').set(bearer(p.secretKey)).send({ from: 'hi@mail.example.com', to, subject: 'Hi', body: '<p>Hi</p>' });
const emailCount = async (projectId = p.projectId) => Number((await h.deps.knex('emails').where({ project_id: projectId }).count({ n: '*' }))[0].n);

describe('billing off (the default)', () => {
  it('says so in /config, refuses checkout and portal with 404, lists no invoices, has no webhook', async () => {
    expect((await h.http.get('/config')).body.billing).toEqual({ enabled: false });
    for (const path of ['checkout', 'billing-portal']) {
      const res = await h.http.post(api(path)).set('Cookie', p.cookie);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'BILLING_DISABLED', message: 'Billing is not enabled on this server' });
    }
    const invoices = await h.http.get(api('billing-invoices')).set('Cookie', p.cookie);
    expect(invoices.status).toBe(200);
    expect(invoices.body).toEqual([]);
    const hook = await h.http.post('/webhooks/incoming/stripe').send({ id: 'evt_1', type: 'x', data: { object: {} } });
    expect(hook.status).toBe(404);
  });
});

describe('consumption and limits', () => {
  it('counts this calendar month’s emails and the current contacts, per project', async () => {
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1) - 1000);
    await h.deps.knex('emails').insert({
      id: crypto.randomUUID(),
      project_id: p.projectId,
      to_email: 'old@example.org',
      from_email: 'hi@mail.example.com',
      subject: 's',
      body: 'b',
      status: 'SENT',
      created_at: lastMonth,
    });
    expect((await send([uniqueEmail(), uniqueEmail()])).status).toBe(200);
    const res = await h.http.get(api('billing-consumption')).set('Cookie', p.cookie);
    expect(res.status).toBe(200);
    const contacts = Number((await h.deps.knex('contacts').where({ project_id: p.projectId }).count({ n: '*' }))[0].n);
    expect(res.body).toEqual({
      period: { start: expect.stringMatching(/-01T00:00:00\.000Z$/), end: expect.stringMatching(/-01T00:00:00\.000Z$/) },
      emails: { used: (await emailCount()) - 1, limit: null },
      contacts: { used: contacts, limit: null },
    });
    const theirs = await h.http.get(api('billing-consumption', q)).set('Cookie', q.cookie);
    expect(theirs.body.emails.used).toBe(0);
    expect(theirs.body.contacts.used).toBe(0);
  });

  it('stops a send that would pass the email cap before any recipient is processed, with 403 BILLING_LIMIT_REACHED', async () => {
    const used = (await h.http.get(api('billing-consumption')).set('Cookie', p.cookie)).body.emails.used;
    const set = await h.http
      .put(api('billing-limits'))
      .set('Cookie', p.cookie)
      .send({ emails: used + 2 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ emails: used + 2, contacts: null });
    expect((await h.http.get(api('billing-limits')).set('Cookie', p.cookie)).body).toEqual({ emails: used + 2, contacts: null });

    expect((await send([uniqueEmail()])).status).toBe(200);
    const before = await emailCount();
    const [x, y] = [uniqueEmail(), uniqueEmail()];
    const refused = await send([x, y]);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'BILLING_LIMIT_REACHED', details: { category: 'emails', limit: used + 2, used: used + 1, requested: 2 } });
    expect(await emailCount()).toBe(before);
    expect(await h.deps.knex('contacts').whereIn('email', [x, y])).toHaveLength(0);

    // The neighbour's cap is its own.
    expect((await h.http.get(api('billing-limits', q)).set('Cookie', q.cookie)).body).toEqual({ emails: null, contacts: null });

    // Leaving a category out keeps its cap; null lifts it.
    await h.http.put(api('billing-limits')).set('Cookie', p.cookie).send({ contacts: 10_000 });
    expect((await h.http.get(api('billing-limits')).set('Cookie', p.cookie)).body).toEqual({ emails: used + 2, contacts: 10_000 });
    await h.http.put(api('billing-limits')).set('Cookie', p.cookie).send({ emails: null });
    expect((await send([x, y])).status).toBe(200);
  });

  it.each([[{}], [{ emails: -1 }], [{ emails: 1.5 }], [{ emails: 'ten' }], [{ other: 1 }], [[]], [{ contacts: 1e12 }]])(
    'PUT billing-limits %j → 422',
    async (body) => {
      const res = await h.http
        .put(api('billing-limits'))
        .set('Cookie', p.cookie)
        .send(body as object);
      expect(res.status).toBe(422);
    },
  );
});

// ───────────────────────────── billing on ─────────────────────────────

const WEBHOOK_SECRET = 'whsec_test_secret';

function signed(payload: string, { secret = WEBHOOK_SECRET, t = Math.floor(Date.now() / 1000) } = {}) {
  const sig = crypto.createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex');
  return `t=${t},v1=${sig}`;
}
const event = (type: string, object: Record<string, unknown>) =>
  JSON.stringify({ id: `evt_${crypto.randomBytes(8).toString('hex')}`, object: 'event', type, data: { object } }, null, 2);

describe('billing on (Stripe)', () => {
  let stub: http.Server;
  const calls: Array<{ path: string; auth?: string; form: URLSearchParams }> = [];
  let failNext = false;
  let b: Harness;

  beforeAll(async () => {
    stub = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        calls.push({ path: req.url!, auth: req.headers.authorization, form: new URLSearchParams(body) });
        if (failNext) {
          failNext = false;
          res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: 'No such price' } }));
          return;
        }
        const url = req.url === '/v1/checkout/sessions' ? 'https://checkout.stripe.test/c/pay/cs_1' : 'https://billing.stripe.test/p/session/bps_1';
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id: 'sess_1', url }));
      });
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    b = await startHarness({
      env: {
        STRIPE_SECRET_KEY: 'sk_test_123',
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_PRICE_ID: 'price_123',
        STRIPE_API_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
      },
    });
  });
  afterAll(async () => {
    await b?.stop();
    await new Promise((r) => stub.close(r));
  });

  const hook = (payload: string, signature?: string) => {
    const req = b.http.post('/webhooks/incoming/stripe').set('Content-Type', 'application/json; charset=utf-8');
    return (signature ? req.set('Stripe-Signature', signature) : req).send(payload);
  };

  it('is announced by /config', async () => {
    expect((await b.http.get('/config')).body.billing).toEqual({ enabled: true });
  });

  it('accepts only events signed with the secret, over the exact bytes, within five minutes', async () => {
    const payload = event('ping', {});
    const ok = await hook(payload, signed(payload));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ received: true, outcome: 'ignored' });

    const now = Math.floor(Date.now() / 1000);
    const refusals: Array<[string, string | undefined, string]> = [
      ['no header', undefined, payload],
      ['wrong secret', signed(payload, { secret: 'whsec_other' }), payload],
      ['re-serialised body', signed(payload), JSON.stringify(JSON.parse(payload))],
      ['tampered body', signed(payload), payload.replace('ping', 'pong')],
      ['six minutes old', signed(payload, { t: now - 360 }), payload],
      ['six minutes ahead', signed(payload, { t: now + 360 }), payload],
      ['no v1', `t=${now}`, payload],
      ['garbage', 'nonsense', payload],
    ];
    for (const [why, header, body] of refusals) {
      const res = await hook(body, header);
      expect([why, res.status, res.body.error?.code]).toEqual([why, 400, 'INVALID_SIGNATURE']);
    }
    // While a secret is rolled, Stripe sends one v1 per secret.
    const fresh = event('ping', {});
    const both = `${signed(fresh)},v1=${'0'.repeat(64)}`;
    expect((await hook(fresh, both)).status).toBe(200);
    // A correctly signed body that is not an event is still refused.
    expect((await hook('[1,2]', signed('[1,2]'))).status).toBe(400);
    expect((await hook('{"a":', signed('{"a":'))).status).toBe(400);
  });

  it('treats a redelivered event as a no-op', async () => {
    const payload = event('ping', {});
    await hook(payload, signed(payload));
    const again = await hook(payload, signed(payload));
    expect(again.body).toEqual({ received: true, outcome: 'duplicate' });
  });

  it('starts a checkout for the project and opens the portal once Stripe reported the customer', async () => {
    const portalBefore = await b.http.post(api('billing-portal')).set('Cookie', p.cookie);
    expect(portalBefore.status).toBe(409);

    const res = await b.http.post(api('checkout')).set('Cookie', p.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: 'https://checkout.stripe.test/c/pay/cs_1' });
    const call = calls.find((c) => c.path === '/v1/checkout/sessions')!;
    expect(call.auth).toBe('Bearer sk_test_123');
    expect(call.form.get('client_reference_id')).toBe(p.projectId);
    expect(call.form.get('line_items[0][price]')).toBe('price_123');
    expect(call.form.get('customer_email')).toBe(p.email);

    const completed = event('checkout.session.completed', { id: 'cs_1', client_reference_id: p.projectId, customer: 'cus_P', subscription: 'sub_P' });
    expect((await hook(completed, signed(completed))).body.outcome).toBe('applied');
    const updated = event('customer.subscription.updated', { id: 'sub_P', customer: 'cus_P', status: 'active', current_period_end: 1_900_000_000 });
    expect((await hook(updated, signed(updated))).body.outcome).toBe('applied');
    expect(await h.deps.knex('billing_accounts').where({ project_id: p.projectId }).first()).toMatchObject({
      customer_id: 'cus_P',
      subscription_id: 'sub_P',
      subscription_status: 'active',
      current_period_end: new Date(1_900_000_000 * 1000),
    });

    const portal = await b.http.post(api('billing-portal')).set('Cookie', p.cookie);
    expect(portal.status).toBe(200);
    expect(portal.body.url).toBe('https://billing.stripe.test/p/session/bps_1');
    expect(calls.find((c) => c.path === '/v1/billing_portal/sessions')!.form.get('customer')).toBe('cus_P');

    failNext = true;
    const failed = await b.http.post(api('checkout')).set('Cookie', p.cookie);
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('BILLING_PROVIDER_ERROR');
  });

  it("lists a project's invoices from Stripe's events, never another project's", async () => {
    const linkQ = event('checkout.session.completed', { client_reference_id: q.projectId, customer: 'cus_Q', subscription: 'sub_Q' });
    await hook(linkQ, signed(linkQ));
    const invoice = (id: string, customer: string, status: string) =>
      event('invoice.paid', {
        id,
        customer,
        number: `N-${id}`,
        status,
        amount_due: 1900,
        amount_paid: 1900,
        currency: 'eur',
        hosted_invoice_url: `https://pay.stripe.test/${id}`,
        invoice_pdf: null,
        period_start: 1_800_000_000,
        period_end: 1_802_592_000,
        created: 1_802_592_000,
      });
    for (const e of [invoice('in_P1', 'cus_P', 'open'), invoice('in_P1', 'cus_P', 'paid'), invoice('in_Q1', 'cus_Q', 'paid')])
      expect((await hook(e, signed(e))).status).toBe(200);

    const mine = await b.http.get(api('billing-invoices')).set('Cookie', p.cookie);
    expect(mine.body).toEqual([
      {
        id: 'in_P1',
        number: 'N-in_P1',
        status: 'paid',
        amountDue: 1900,
        amountPaid: 1900,
        currency: 'eur',
        hostedInvoiceUrl: 'https://pay.stripe.test/in_P1',
        invoicePdf: null,
        periodStart: new Date(1_800_000_000_000).toISOString(),
        periodEnd: new Date(1_802_592_000_000).toISOString(),
        createdAt: new Date(1_802_592_000_000).toISOString(),
      },
    ]);
    const theirs = await b.http.get(api('billing-invoices', q)).set('Cookie', q.cookie);
    expect(theirs.body.map((i: any) => i.id)).toEqual(['in_Q1']);
    // And not through our project's id with their cookie.
    expect((await b.http.get(api('billing-invoices')).set('Cookie', q.cookie)).status).toBe(404);
  });

  it('refuses non-JSON bodies and oversized ones without reading them as events', async () => {
    const text = await b.http.post('/webhooks/incoming/stripe').set('Content-Type', 'text/plain').set('Stripe-Signature', signed('x')).send('x');
    expect(text.status).toBe(415);
    const big = JSON.stringify({ a: 'x'.repeat(1024 * 1024 + 10) });
    expect((await hook(big, signed(big))).status).toBe(413);
  });
});
