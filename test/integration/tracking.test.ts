import { simpleParser } from 'mailparser';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { uniqueEmail, verifiedDomain } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { providerEvents } from '../../services/providerEvents';
import { signTrackingToken } from '../../services/trackingTokens';
import { startWebhookReceiver, WebhookReceiver } from '../helpers/webhookReceiver';

/**
 * First-party open and click tracking end to end (docs/tracking.md): mail goes through the real
 * worker and the real SMTP transport into the local SMTP server; the pixel and links found in the
 * received HTML are fetched from the real app; what that records is read back through the API,
 * the database and a workflow waiting on `email.opened` / `email.clicked`.
 */

let h: Harness;
let p: ProjectFixture;
let sink: SmtpSink;
let rx: WebhookReceiver;
const DOMAIN = 'mail.example.com';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const SCANNER = 'Mozilla/5.0 (compatible; Barracuda Sentinel)';

beforeAll(async () => {
  sink = await startSmtpSink();
  rx = await startWebhookReceiver();
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, TRACKING_URL: 'https://t.example.net', WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
  await rx?.stop();
});

const key = (fx: ProjectFixture = p) => bearer(fx.secretKey);

async function receivedHtml(to: string): Promise<string> {
  return (await received(to)).html;
}

async function received(to: string): Promise<{ html: string; text: string }> {
  const [mail] = await eventually(async () => (sink.mailsTo(to).length ? sink.mailsTo(to) : null));
  const parsed = await simpleParser(mail.raw);
  return { html: String(parsed.html), text: String(parsed.text) };
}

/** The tracking URLs of a received body, as paths on the app (TRACKING_URL is a CNAME to it). */
function trackingPaths(html: string) {
  const path = (u: string) => new URL(u.replace(/&amp;/g, '&')).pathname;
  const pixels = [...html.matchAll(/<img src="(https:\/\/t\.example\.net\/t\/o\/[^"]+)"/g)].map((m) => path(m[1]));
  const links = [...html.matchAll(/href="(https:\/\/t\.example\.net\/t\/c\/[^"]+)"/g)].map((m) => path(m[1]));
  return { pixels, links };
}

const get = (path: string, ua = BROWSER) => h.http.get(path).set('User-Agent', ua);
const engagements = (emailId: string) => h.deps.knex('email_engagements').where({ email_id: emailId }).orderBy('at');
const contactEvents = (contactId: string, name: string) => h.deps.knex('events').where({ contact_id: contactId, name }).orderBy('created_at');

async function send(body: Record<string, unknown>) {
  const res = await h.http
    .post('/v1/send')
    .set(key())
    .send({ from: `hello@${DOMAIN}`, subject: 'Hi', ...body });
  expect(res.status).toBe(200);
  return res.body.data.emails[0] as { email: string; contact: { id: string } };
}

const BODY =
  '<p><a href="https://shop.example/a?x=1&amp;y=2">A</a> <a href="https://shop.example/b">B</a></p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a> <a href="{{manageUrl}}">Manage</a></p>';

describe('settings', () => {
  it('default to marketing tracked, transactional not; PATCH changes only the keys sent', async () => {
    const fx = await createProjectFixture(h);
    const initial = await h.http.get('/settings').set(key(fx));
    expect(initial.status).toBe(200);
    expect(initial.body.tracking).toEqual({ MARKETING: { opens: true, clicks: true }, TRANSACTIONAL: { opens: false, clicks: false } });
    const changed = await h.http
      .patch('/settings')
      .set(key(fx))
      .send({ tracking: { TRANSACTIONAL: { clicks: true } } });
    expect(changed.status).toBe(200);
    expect(changed.body.tracking).toEqual({ MARKETING: { opens: true, clicks: true }, TRANSACTIONAL: { opens: false, clicks: true } });
    const again = await h.http
      .patch('/settings')
      .set(key(fx))
      .send({ tracking: { MARKETING: { opens: false } } });
    expect(again.body.tracking).toEqual({ MARKETING: { opens: false, clicks: true }, TRANSACTIONAL: { opens: false, clicks: true } });
    expect(
      (
        await h.http
          .patch('/settings')
          .set(key(fx))
          .send({ tracking: { HEADLESS: { opens: true } } })
      ).status,
    ).toBe(422);
  });
});

describe('a tracked /v1/send email over SMTP', () => {
  it('carries the pixel and rewritten links, keeps the subscription links, and records one human open and click with repeats', async () => {
    const to = uniqueEmail();
    const sent = await send({ to, body: BODY, track: { opens: true, clicks: true } });
    const { html, text } = await received(to);
    const { pixels, links } = trackingPaths(html);
    // The text part keeps the real URLs.
    expect(text).toContain('https://shop.example/b');
    expect(text).not.toContain('/t/c/');
    expect(pixels).toHaveLength(1);
    expect(links).toHaveLength(2);
    expect(html).not.toContain('https://shop.example');
    // The reader's own controls stay on the app's URL, untouched.
    expect(html).toMatch(new RegExp(`href="${h.config.appUrl}/unsubscribe/[\\w.-]+"`));
    expect(html).toMatch(new RegExp(`href="${h.config.appUrl}/manage/[\\w.-]+"`));
    // Tokens carry a version byte, the email id (and a link index), nothing else: no address.
    for (const path of [...pixels, ...links]) {
      const payload = Buffer.from(path.split('/')[3].split('.')[0], 'base64url');
      expect(payload.length).toBeLessThanOrEqual(19);
      expect(payload.subarray(1, 17).toString('hex')).toBe(sent.email.replace(/-/g, ''));
    }

    const pixel = await get(pixels[0]);
    expect(pixel.status).toBe(200);
    expect(pixel.headers['content-type']).toBe('image/gif');
    expect(pixel.headers['cache-control']).toMatch(/no-store/);
    expect(pixel.body.length).toBeGreaterThan(30);
    const first = await get(links[0]);
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe('https://shop.example/a?x=1&y=2');
    expect((await get(links[1])).headers.location).toBe('https://shop.example/b');
    // Repeats, and a HEAD (a machine checking the link).
    expect((await get(pixels[0])).status).toBe(200);
    expect((await get(links[0])).status).toBe(302);
    const head = await h.http.head(links[0]).set('User-Agent', BROWSER);
    expect(head.status).toBe(302);

    const rows = await eventually(async () => {
      const r = await engagements(sent.email);
      return r.length === 6 ? r : null;
    });
    expect(rows.filter((r) => r.kind === 'open' && !r.machine)).toHaveLength(2);
    expect(rows.filter((r) => r.kind === 'click' && !r.machine)).toHaveLength(3);
    expect(rows.filter((r) => r.machine)).toHaveLength(1);
    const email = await h.deps.knex('emails').where({ id: sent.email }).first();
    expect(email.status).toBe('CLICKED');
    expect(email.opened_at).not.toBeNull();
    expect(email.clicked_at).not.toBeNull();
    // Each human hit is an event (the activity feed, workflows, webhooks); the HEAD is not.
    const opened = await contactEvents(sent.contact.id, 'email.opened');
    const clicked = await contactEvents(sent.contact.id, 'email.clicked');
    expect(opened).toHaveLength(2);
    expect(clicked.map((e) => e.data.url).sort()).toEqual(['https://shop.example/a?x=1&y=2', 'https://shop.example/a?x=1&y=2', 'https://shop.example/b']);
    expect(clicked[0].data).toMatchObject({ emailId: sent.email, provider: 'first-party' });
    await eventually(async () => (await contactEvents(sent.contact.id, 'email.clicked')).every((e) => e.routed_at !== null));
    // The email's story tells it too.
    const story = await h.http.get(`/emails/${sent.email}`).set(key());
    expect(story.body.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['sent', 'opened', 'clicked']));
  });

  it('transactional mail is not tracked by default: no pixel, links as written, the provider events apply', async () => {
    const to = uniqueEmail();
    const sent = await send({ to, body: BODY });
    const html = await receivedHtml(to);
    expect(trackingPaths(html)).toEqual({ pixels: [], links: [] });
    expect(html).toContain('href="https://shop.example/b"');
    const row = await h.deps.knex('emails').where({ id: sent.email }).first();
    expect(row).toMatchObject({ track_opens: false, track_clicks: false, links: null });
    const applied = await providerEvents(h.deps).applyProviderEvents([
      { provider: 'smtp', id: `test-open-${sent.email}`, kind: 'open', emailId: sent.email, at: new Date() },
    ]);
    expect(applied.applied).toBe(1);
  });

  it("ignores the provider's own open and click events of an email tracked first-party", async () => {
    const to = uniqueEmail();
    const sent = await send({ to, body: BODY, track: { opens: true, clicks: true } });
    await receivedHtml(to);
    const result = await providerEvents(h.deps).applyProviderEvents([
      { provider: 'smtp', id: `test-open-${sent.email}`, kind: 'open', emailId: sent.email, at: new Date() },
      { provider: 'smtp', id: `test-click-${sent.email}`, kind: 'click', emailId: sent.email, at: new Date(), url: 'https://shop.example/b' },
    ]);
    expect(result).toMatchObject({ applied: 0, ignored: 2 });
    const row = await h.deps.knex('emails').where({ id: sent.email }).first();
    expect(row).toMatchObject({ status: 'SENT', opened_at: null, clicked_at: null });
  });

  it('counts a known scanner right after hand-over as a machine, and the same agent later as a reader', async () => {
    const to = uniqueEmail();
    const sent = await send({ to, body: BODY, track: { clicks: true } });
    const { links, pixels } = trackingPaths(await receivedHtml(to));
    expect(pixels).toEqual([]);
    expect((await get(links[1], SCANNER)).status).toBe(302);
    await eventually(async () => ((await engagements(sent.email)).length === 1 ? true : null));
    const [machine] = await engagements(sent.email);
    expect(machine).toMatchObject({ kind: 'click', machine: true, link_index: 1 });
    let row = await h.deps.knex('emails').where({ id: sent.email }).first();
    expect(row).toMatchObject({ status: 'SENT', clicked_at: null });
    expect(await contactEvents(sent.contact.id, 'email.clicked')).toHaveLength(0);
    // Past the window, the same agent is taken for a reader (a forwarding client, a proxy).
    await h.deps
      .knex('emails')
      .where({ id: sent.email })
      .update({ sent_at: h.deps.knex.raw("now() - interval '1 minute'") });
    await get(links[1], SCANNER);
    row = await eventually(async () => {
      const r = await h.deps.knex('emails').where({ id: sent.email }).first();
      return r.clicked_at ? r : null;
    });
    expect(row.status).toBe('CLICKED');
  });

  it('never moves a status backwards: an open after a complaint sets opened_at and leaves COMPLAINED', async () => {
    const to = uniqueEmail();
    const sent = await send({ to, body: BODY, track: { opens: true } });
    const { pixels } = trackingPaths(await receivedHtml(to));
    await h.deps.knex('emails').where({ id: sent.email }).update({ status: 'COMPLAINED' });
    await get(pixels[0]);
    const row = await eventually(async () => {
      const r = await h.deps.knex('emails').where({ id: sent.email }).first();
      return r.opened_at ? r : null;
    });
    expect(row.status).toBe('COMPLAINED');
  });

  it('an open before the hand-over is recorded leaves the row SENDING, so the SENT commit still finds it', async () => {
    const to = uniqueEmail();
    const sent = await send({ to, body: BODY, track: { opens: true } });
    const { pixels } = trackingPaths(await receivedHtml(to));
    // As if the relay took the message and the reader opened it before our SENDING → SENT commit landed.
    await h.deps.knex('emails').where({ id: sent.email }).update({ status: 'SENDING' });
    await get(pixels[0]);
    const row = await eventually(async () => {
      const r = await h.deps.knex('emails').where({ id: sent.email }).first();
      return r.opened_at ? r : null;
    });
    expect(row.status).toBe('SENDING');
  });
});

describe('single deliveries', () => {
  it("a campaign's test send is tracked like the campaign: pixel, rewritten links, and the click leads to the link", async () => {
    const created = await h.http
      .post('/campaigns')
      .set(key())
      .send({ name: 'Test me', subject: 'S', body: BODY, from: `news@${DOMAIN}`, audienceType: 'ALL', tracking: { opens: true, clicks: true } });
    const to = uniqueEmail('tester');
    expect((await h.http.post(`/campaigns/${created.body.data.id}/test`).set(key()).send({ email: to })).status).toBe(200);
    const { pixels, links } = trackingPaths(await receivedHtml(to));
    expect(pixels).toHaveLength(1);
    expect(links).toHaveLength(2);
    expect((await get(links[0])).headers.location).toBe('https://shop.example/a?x=1&y=2');
    const row = await h.deps.knex('emails').where({ to_email: to }).first();
    expect(row).toMatchObject({ track_opens: true, track_clicks: true, links: ['https://shop.example/a?x=1&y=2', 'https://shop.example/b'] });
    await eventually(async () => ((await engagements(row.id)).length === 1 ? true : null));
  });
});

describe('bad tokens', () => {
  it('answer a 404 page and never redirect', async () => {
    const to = uniqueEmail();
    const sent = await send({ to, body: BODY, track: { opens: true, clicks: true } });
    const { links, pixels } = trackingPaths(await receivedHtml(to));
    const [, , , token] = links[0].split('/');
    const [payload, signature] = token.split('.');
    const altered = Buffer.from(payload, 'base64url');
    altered.writeUInt16BE(1, 16);
    const forged = [
      `/t/c/${altered.toString('base64url')}.${signature}`,
      `/t/c/${payload}.${signature.slice(0, -2)}AA`,
      `/t/c/${signTrackingToken('some-other-secret-of-length', { kind: 'click', emailId: sent.email, link: 0 })}`,
      `/t/c/${pixels[0].split('/')[3]}`,
      // Signed, but the email has no third link.
      `/t/c/${signTrackingToken(h.config.jwtSecret, { kind: 'click', emailId: sent.email, link: 2 })}`,
      '/t/c/nonsense',
      `/t/c/https%3A%2F%2Fevil.example%2F`,
    ];
    for (const path of forged) {
      const res = await get(path);
      expect({ path, status: res.status, location: res.headers.location }).toEqual({ path, status: 404, location: undefined });
      expect(res.headers['content-type']).toMatch(/text\/html/);
    }
    expect((await get(`/t/o/${links[0].split('/')[3]}`)).status).toBe(404);
    expect((await get(`/t/o/${payload}.${signature}`)).status).toBe(404);
    // Nothing was recorded for any of them.
    await new Promise((r) => setTimeout(r, 300));
    expect(await engagements(sent.email)).toHaveLength(0);
  });
});

describe('a tracked campaign', () => {
  it('tracks marketing mail by default: stats move once per email, machines apart, and the per-link report', async () => {
    const fx = await createProjectFixture(h);
    await verifiedDomain(h, fx.projectId, DOMAIN);
    const recipients = [uniqueEmail('r1'), uniqueEmail('r2'), uniqueEmail('r3')];
    for (const email of recipients) expect((await h.http.post('/contacts').set(key(fx)).send({ email, subscribed: true })).status).toBe(201);
    const created = await h.http
      .post('/campaigns')
      .set(key(fx))
      .send({ name: 'News', subject: 'News', body: `<html><body>${BODY}</body></html>`, from: `news@${DOMAIN}`, audienceType: 'ALL' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await h.http.post(`/campaigns/${id}/send`).set(key(fx)).send({})).status).toBe(200);
    const bodies = await Promise.all(recipients.map(receivedHtml));
    const paths = bodies.map(trackingPaths);
    for (const b of paths) expect(b).toMatchObject({ pixels: [expect.any(String)], links: [expect.any(String), expect.any(String)] });

    // r1 opens twice and clicks A twice and B once; r2 opens and clicks A; r3 only a scanner's HEAD and a scanner's prefetch.
    for (const path of [paths[0].pixels[0], paths[0].pixels[0], paths[0].links[0], paths[0].links[0], paths[0].links[1], paths[1].pixels[0], paths[1].links[0]])
      await get(path);
    await h.http.head(paths[2].links[0]).set('User-Agent', BROWSER);
    await get(paths[2].pixels[0], SCANNER);

    await eventually(async () => {
      const res = await h.http.get(`/campaigns/${id}/stats`).set(key(fx));
      return res.body.engagement?.machineOpens === 1 && res.body.engagement.clicks === 4 ? res.body : null;
    });
    // Read again: the stats read the counters and the engagement rows one after the other, so one
    // read may straddle the commit that moved both.
    const stats = (await h.http.get(`/campaigns/${id}/stats`).set(key(fx))).body;
    expect(stats).toMatchObject({ sent: 3, opened: 2, clicked: 2, engagement: { opens: 3, clicks: 4, machineOpens: 1, machineClicks: 1 } });
    const campaign = await h.http.get(`/campaigns/${id}`).set(key(fx));
    expect(campaign.body).toMatchObject({ openedCount: 2, clickedCount: 2 });
    const report = await h.http.get(`/campaigns/${id}/links`).set(key(fx));
    expect(report.status).toBe(200);
    expect(report.body).toEqual([
      { url: 'https://shop.example/a?x=1&y=2', clicks: 3, uniqueClicks: 2 },
      { url: 'https://shop.example/b', clicks: 1, uniqueClicks: 1 },
    ]);
    expect((await h.http.get(`/campaigns/${id}/links`).set(key())).status).toBe(404);
  });

  it("follows the campaign's own tracking choice", async () => {
    const fx = await createProjectFixture(h);
    await verifiedDomain(h, fx.projectId, DOMAIN);
    const to = uniqueEmail();
    expect((await h.http.post('/contacts').set(key(fx)).send({ email: to, subscribed: true })).status).toBe(201);
    const created = await h.http
      .post('/campaigns')
      .set(key(fx))
      .send({ name: 'Quiet', subject: 'S', body: BODY, from: `news@${DOMAIN}`, audienceType: 'ALL', tracking: { clicks: false } });
    expect(created.body.data.tracking).toEqual({ clicks: false });
    expect((await h.http.post(`/campaigns/${created.body.data.id}/send`).set(key(fx)).send({})).status).toBe(200);
    const html = await receivedHtml(to);
    const { pixels, links } = trackingPaths(html);
    expect(pixels).toHaveLength(1);
    expect(links).toEqual([]);
    expect(html).toContain('href="https://shop.example/b"');
  });
});

describe('workflows', () => {
  it('a workflow waiting on email.opened, then email.clicked, moves when the reader opens and clicks', async () => {
    const api = workflowApi(h, p);
    const event = `signup-${Date.now()}`;
    const wf = await api.build(
      event,
      {
        opened: { type: 'WAIT_FOR_EVENT', config: { eventName: 'email.opened' } },
        mark: { type: 'UPDATE_CONTACT', config: { data: { opened: true } } },
        clicked: { type: 'WAIT_FOR_EVENT', config: { eventName: 'email.clicked' } },
        done: { type: 'UPDATE_CONTACT', config: { data: { clicked: true } } },
      },
      [
        ['trigger', 'opened'],
        ['opened', 'mark', 'next'],
        ['mark', 'clicked'],
        ['clicked', 'done', 'next'],
      ],
      { enabled: true },
    );
    const to = uniqueEmail();
    expect((await api.track(to, event)).status).toBe(200);
    const contact = await eventually(async () => h.deps.knex('contacts').where({ project_id: p.projectId, email: to }).first());
    const execution = await api.executionOf(wf.id, contact.id);
    await api.until(wf.id, execution.id, ['WAITING']);

    await send({ to, body: BODY, track: { opens: true, clicks: true } });
    const { pixels, links } = trackingPaths(await receivedHtml(to));
    await get(pixels[0]);
    await eventually(async () => ((await h.deps.knex('contacts').where({ id: contact.id }).first()).data.opened === true ? true : null));
    await get(links[1]);
    const done = await api.until(wf.id, execution.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.context.event).toMatchObject({ name: 'email.clicked', data: { url: 'https://shop.example/b' } });
    expect((await h.deps.knex('contacts').where({ id: contact.id }).first()).data).toMatchObject({ opened: true, clicked: true });
  });
});

describe('outbound webhooks', () => {
  it('an endpoint subscribed to email.clicked receives the click with its url', async () => {
    const fx = await createProjectFixture(h);
    await verifiedDomain(h, fx.projectId, DOMAIN);
    const endpoint = await h.http
      .post('/webhook-endpoints')
      .set(key(fx))
      .send({ url: rx.url('/clicks'), events: ['email.clicked'] });
    expect(endpoint.status).toBe(201);
    const to = uniqueEmail();
    const res = await h.http
      .post('/v1/send')
      .set(key(fx))
      .send({ to, from: `hello@${DOMAIN}`, subject: 'Hi', body: BODY, track: { clicks: true } });
    const emailId = res.body.data.emails[0].email;
    const { links } = trackingPaths(await receivedHtml(to));
    await get(links[1]);
    const [call] = await eventually(async () => (rx.calls('/clicks').length ? rx.calls('/clicks') : null));
    expect(call.body).toContain('email.clicked');
    expect(call.body).toContain('https://shop.example/b');
    expect(call.body).toContain(emailId);
  });
});
