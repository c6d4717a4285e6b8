import crypto from 'node:crypto';
import { simpleParser } from 'mailparser';
import { Client, Connection } from '@temporalio/client';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { uniqueEmail, verifiedDomain } from '../helpers/fixtures';
import { domainVerification } from '../../temporal/workflows/domainVerification';

/**
 * A project's own tracking domain and the old-link interstitial (docs/tracking.md): the domain is
 * checked against a real local DNS server, mail goes through the real worker and SMTP transport, and
 * the links found in the received HTML are followed on the real app with the Host a browser would send.
 */

let dns: TestDnsServer;
let sink: SmtpSink;
let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;
const SENDER_DOMAIN = 'mail.example.com';
const SHARED_HOST = 't.example.net';
const APP_HOST = 'app.example.net';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

beforeAll(async () => {
  dns = await startDnsServer();
  sink = await startSmtpSink();
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, APP_URL: `http://${APP_HOST}`, TRACKING_URL: `https://${SHARED_HOST}`, DNS_SERVERS: dns.address },
  });
  [p, other] = await Promise.all([createProjectFixture(h, 'tracking domain'), createProjectFixture(h, 'tracking domain, other')]);
  await verifiedDomain(h, p.projectId, SENDER_DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
  await dns?.stop();
});

const freshDomain = () => `track-${crypto.randomBytes(5).toString('hex')}.example.test`;
const key = (fx: ProjectFixture = p) => bearer(fx.secretKey);
const record = (d: { records: any[] }, purpose: string) => d.records.find((r) => r.purpose === purpose);
const check = (fx: ProjectFixture = p) => h.http.post('/tracking-domain/check').set(key(fx));

async function setDomain(domain: string, fx: ProjectFixture = p) {
  const res = await h.http.put('/tracking-domain').set(key(fx)).send({ domain });
  expect(res.status).toBe(200);
  return res.body;
}

/** Publishes a tracking domain's CNAME (to `target`, default the one asked for) and its ownership TXT, as its owner would. */
function publish(d: { records: any[] }, opts: { target?: string; txt?: boolean } = {}) {
  const cname = record(d, 'tracking');
  dns.set(cname.name, 'CNAME', [opts.target ?? cname.value]);
  const txt = record(d, 'ownership');
  dns.set(txt.name, 'TXT', opts.txt === false ? [] : [txt.value]);
}

/** A project whose tracking domain is verified through the check route. */
async function verifiedTrackingDomain(fx: ProjectFixture): Promise<string> {
  const domain = freshDomain();
  publish(await setDomain(domain, fx));
  const res = await check(fx);
  expect(res.body.status).toBe('VERIFIED');
  return domain;
}

async function send(to: string, body: string, fx: ProjectFixture = p) {
  const res = await h.http
    .post('/v1/send')
    .set(key(fx))
    .send({ from: `hello@${SENDER_DOMAIN}`, to, subject: 'Hi', body, track: { opens: true, clicks: true } });
  expect(res.status).toBe(200);
  return res.body.data.emails[0].email as string;
}

async function receivedHtml(to: string): Promise<string> {
  const [mail] = await eventually(async () => (sink.mailsTo(to).length ? sink.mailsTo(to) : null));
  return String((await simpleParser(mail.raw)).html);
}

/** The tracked links of a body, as URLs. */
const trackedLinks = (html: string) => [...html.matchAll(/href="(https:\/\/[^"/]+\/t\/c\/[^"]+)"/g)].map((m) => new URL(m[1].replace(/&amp;/g, '&')));

const follow = (url: URL, host: string) => h.http.get(url.pathname).set('Host', host).set('User-Agent', BROWSER);

/** Makes an email look as if it went out `days` ago. */
const age = (emailId: string, days: number) =>
  h.deps
    .knex('emails')
    .where({ id: emailId })
    .update({ created_at: h.deps.knex.raw('now() - make_interval(days => ?)', [days]), sent_at: h.deps.knex.raw('now() - make_interval(days => ?)', [days]) });

const clicks = (emailId: string) => h.deps.knex('email_engagements').where({ email_id: emailId, kind: 'click' });

describe('setting and verifying the tracking domain', () => {
  it('lists a CNAME to the tracking host and an ownership TXT, and verifies only when the CNAME is right', async () => {
    expect((await h.http.get('/tracking-domain').set(key(other))).status).toBe(404);
    const domain = freshDomain();
    const set = await setDomain(domain.toUpperCase(), other);
    expect(set).toMatchObject({ domain, status: 'PENDING', trackingUrl: `https://${domain}`, lastCheckedAt: null, verifiedAt: null });
    expect(set.records).toEqual([
      { type: 'CNAME', name: domain, value: SHARED_HOST, purpose: 'tracking', required: true, valid: false },
      {
        type: 'TXT',
        name: `_svc-tracking.${domain}`,
        value: expect.stringMatching(/^svc-tracking=[0-9A-Za-z]{20,}$/),
        purpose: 'ownership',
        required: true,
        valid: false,
      },
    ]);
    expect((await h.http.get('/tracking-domain').set(key(other))).body).toEqual(set);

    // Nothing published.
    const nothing = await check(other);
    expect(nothing.status).toBe(200);
    expect(nothing.body).toMatchObject({ status: 'PENDING', lastCheckedAt: expect.any(String) });

    // The CNAME points elsewhere: not verified, whatever else is there.
    publish(set, { target: 'somewhere.example.net' });
    const wrong = await check(other);
    expect(wrong.body.status).toBe('PENDING');
    expect(wrong.body.records.map((r: any) => [r.purpose, r.valid])).toEqual([
      ['tracking', false],
      ['ownership', true],
    ]);

    // The CNAME right (a trailing dot and another case are the same name).
    publish(set, { target: `${SHARED_HOST.toUpperCase()}.` });
    const right = await check(other);
    expect(right.body).toMatchObject({ status: 'VERIFIED', verifiedAt: expect.any(String) });
    expect(right.body.records.every((r: any) => r.valid)).toBe(true);

    // Setting the same name again changes nothing; another name starts over, pending.
    expect(await setDomain(domain, other)).toMatchObject({ status: 'VERIFIED', records: right.body.records });
    const moved = await setDomain(freshDomain(), other);
    expect(moved.status).toBe('PENDING');
    expect(record(moved, 'ownership').value).not.toBe(record(set, 'ownership').value);
    expect((await h.http.delete('/tracking-domain').set(key(other))).status).toBe(204);
    expect((await h.http.get('/tracking-domain').set(key(other))).status).toBe(404);
    expect((await h.http.delete('/tracking-domain').set(key(other))).status).toBe(404);
    expect((await check(other)).status).toBe(404);
  });

  it("does not verify a domain whose ownership TXT is another project's (a CNAME alone proves no ownership)", async () => {
    const domain = freshDomain();
    const theirs = await setDomain(domain, other);
    publish(theirs);
    const mine = await setDomain(domain);
    const checked = await check();
    expect(checked.body.status).toBe('PENDING');
    expect(checked.body.records.map((r: any) => [r.purpose, r.valid])).toEqual([
      ['tracking', true],
      ['ownership', false],
    ]);
    expect(record(mine, 'ownership').value).not.toBe(record(theirs, 'ownership').value);
    await h.http.delete('/tracking-domain').set(key());
    await h.http.delete('/tracking-domain').set(key(other));
  });

  it('refuses the shared host, the app host and names that are not domains', async () => {
    for (const domain of [SHARED_HOST, APP_HOST, 'https://track.example.com', 'nodot']) {
      const res = await h.http.put('/tracking-domain').set(key(other)).send({ domain });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('is verified by the domain-verification workflow the Schedule runs', async () => {
    const fx = await createProjectFixture(h, 'tracking domain, scheduled');
    const set = await setDomain(freshDomain(), fx);
    publish(set);
    const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
    try {
      const client = new Client({ connection, namespace: h.config.temporal.namespace });
      await client.workflow.execute(domainVerification, { taskQueue: h.taskQueue, workflowId: `domain-verification-test-${crypto.randomUUID()}` });
    } finally {
      await connection.close();
    }
    const res = await h.http.get('/tracking-domain').set(key(fx));
    expect(res.body.status).toBe('VERIFIED');
  });

  it('with the cookie, takes an ADMIN or OWNER to change; a MEMBER may read and check', async () => {
    const fx = await createProjectFixture(h, 'tracking domain, team');
    const email = `m-${crypto.randomBytes(5).toString('hex')}@example.test`;
    const signup = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
    await h.deps.knex('users').where({ id: signup.body.id }).update({ email_verified: true });
    const memberCookie = (signup.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    expect((await h.http.post(`/projects/${fx.projectId}/members`).set('Cookie', fx.cookie).send({ email, role: 'MEMBER' })).status).toBe(201);
    const origin = new URL(h.config.appUrl).origin;
    const as = (cookie: string) => ({ Cookie: cookie, 'X-Project-Id': fx.projectId, Origin: origin });
    const domain = freshDomain();

    const refused = await h.http.put('/tracking-domain').set(as(memberCookie)).send({ domain });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const owner = await h.http.put('/tracking-domain').set(as(fx.cookie)).send({ domain });
    expect(owner.status).toBe(200);
    expect((await h.http.get('/tracking-domain').set(as(memberCookie))).status).toBe(200);
    expect((await h.http.post('/tracking-domain/check').set(as(memberCookie))).status).toBe(200);
    expect((await h.http.delete('/tracking-domain').set(as(memberCookie))).status).toBe(403);
    expect((await h.http.delete('/tracking-domain').set(as(fx.cookie))).status).toBe(204);

    const audit = await h.deps
      .knex('audit_log')
      .where({ project_id: fx.projectId })
      .where('action', 'like', 'tracking_domain.%')
      .orderBy('at')
      .select('action', 'actor');
    expect(audit).toEqual([
      { action: 'tracking_domain.set', actor: fx.userId },
      { action: 'tracking_domain.delete', actor: fx.userId },
    ]);
  });
});

describe('mail and links of a project with a verified tracking domain', () => {
  let domain: string;
  beforeAll(async () => {
    domain = await verifiedTrackingDomain(p);
  });

  it("carries its pixel and links under the project's domain", async () => {
    const to = uniqueEmail();
    await send(to, '<p><a href="https://shop.example/a">A</a></p>');
    const html = await receivedHtml(to);
    expect(html).toMatch(new RegExp(`<img src="https://${domain.replace(/\./g, '\\.')}/t/o/[\\w.-]+"`));
    expect(trackedLinks(html).map((u) => u.host)).toEqual([domain]);
    expect(html).not.toContain(SHARED_HOST);
    expect(html).not.toContain('https://shop.example/a');

    // Another project's mail stays on the shared host.
    await verifiedDomain(h, other.projectId, SENDER_DOMAIN);
    const otherTo = uniqueEmail();
    await send(otherTo, '<p><a href="https://shop.example/a">A</a></p>', other);
    expect(trackedLinks(await receivedHtml(otherTo)).map((u) => u.host)).toEqual([SHARED_HOST]);
  });

  it('redirects a fresh link on any host; an old one only on its own domain, elsewhere an interstitial page (the click counted)', async () => {
    const to = uniqueEmail();
    const emailId = await send(to, '<p><a href="https://shop.example/old?x=1&amp;y=2">Old</a></p>');
    const [link] = trackedLinks(await receivedHtml(to));

    const fresh = await follow(link, SHARED_HOST);
    expect(fresh.status).toBe(302);
    expect(fresh.headers.location).toBe('https://shop.example/old?x=1&y=2');

    await age(emailId, h.config.trackingLinkDays + 1);
    expect(h.config.trackingLinkDays).toBe(365);
    const shared = await follow(link, SHARED_HOST);
    expect(shared.status).toBe(200);
    expect(shared.headers.location).toBeUndefined();
    expect(shared.headers['content-type']).toMatch(/^text\/html/);
    expect(shared.headers['content-security-policy']).toContain("default-src 'none'");
    expect(shared.headers['cache-control']).toMatch(/no-store/);
    expect(shared.text).toContain('<strong>shop.example</strong>');
    expect(shared.text).toContain('<a href="https://shop.example/old?x=1&amp;y=2" rel="noopener noreferrer nofollow">');
    expect(shared.text).not.toMatch(/<script|http-equiv/i);

    // The app's own host and another project's verified domain are shared hosts to this email too.
    expect((await h.http.get(link.pathname).set('User-Agent', BROWSER)).status).toBe(200);
    const otherDomain = await verifiedTrackingDomain(other);
    expect((await follow(link, otherDomain)).status).toBe(200);

    // On the project's own verified domain (any case, any port), the old link still redirects.
    for (const host of [domain, `${domain.toUpperCase()}:443`]) {
      const own = await follow(link, host);
      expect(own.status).toBe(302);
      expect(own.headers.location).toBe('https://shop.example/old?x=1&y=2');
    }
    // Every one of those six was the reader's click.
    await eventually(async () => (await clicks(emailId)).length === 6);
    expect((await clicks(emailId)).every((c) => !c.machine)).toBe(true);
  });

  it('escapes a hostile destination on the interstitial page and links only to http(s)', async () => {
    const to = uniqueEmail();
    const emailId = await send(to, '<p><a href="https://shop.example/x">X</a> <a href="https://shop.example/y">Y</a></p>');
    const [first, second] = trackedLinks(await receivedHtml(to));
    const hostile = 'https://evil.example/"><script>alert(1)</script><img src=x onerror=alert(2)>?q=\'&a=<b>';
    await h.deps
      .knex('emails')
      .where({ id: emailId })
      .update({ links: [hostile, 'javascript:alert(3)'] });
    await age(emailId, 400);

    const page = await follow(first, SHARED_HOST);
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/<script|<img|<b>|onerror=alert\(2\)>/i);
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).toContain('href="https://evil.example/&quot;&gt;&lt;script&gt;');
    expect(page.text).toContain('<strong>evil.example</strong>');

    const script = await follow(second, SHARED_HOST);
    expect(script.status).toBe(200);
    expect(script.text).toContain('<code>javascript:alert(3)</code>');
    expect(script.text).not.toMatch(/href="javascript/i);
  });
});
