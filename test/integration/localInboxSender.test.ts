import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { loadConfig, senderCheckWaived } from '../../lib/config';

/**
 * "A first email in five minutes": while every email goes to `npm start`'s development inbox
 * (scripts/start.ts sets email.localInbox), the sender-domain check is waived; with any real
 * transport it is as before. /config tells the dashboard which, for its banner.
 */

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h, 'first email');
});
afterAll(() => h?.stop());

/** The harness's config object is the app's: switching the transport flag switches the running app. */
const useLocalInbox = (on: boolean) => {
  h.config.email.localInbox = on;
};
const unverified = () => `hello@${crypto.randomBytes(4).toString('hex')}.unverified.example.net`;
const send = (from: string) =>
  h.http
    .post('/v1/send')
    .set(bearer(p.secretKey))
    .send({ to: `to-${crypto.randomBytes(4).toString('hex')}@example.org`, from, subject: 'Hi', body: '<p>Hi</p>' });

describe('with the development inbox', () => {
  beforeAll(() => useLocalInbox(true));

  it('says so in /config', async () => {
    const res = await h.http.get('/config');
    expect(res.body.email).toMatchObject({ localInbox: true, senderCheckWaived: true });
  });

  it('sends from a domain the project never verified', async () => {
    const res = await send(unverified());
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it('creates a template and a campaign with an unverified sender', async () => {
    const from = unverified();
    const tpl = await h.http.post('/templates').set(bearer(p.secretKey)).send({ name: 'Welcome', subject: 'Hi', body: '<p>Hi</p>', from });
    expect(tpl.status).toBe(201);
    const campaign = await h.http
      .post('/campaigns')
      .set(bearer(p.secretKey))
      .send({ name: 'Launch', subject: 'Hi', body: '<p>Hi</p>', from, audienceType: 'ALL' });
    expect(campaign.status).toBe(201);
  });

  it('leaves the domains their true status', async () => {
    const added = await h.http
      .post('/domains')
      .set(bearer(p.secretKey))
      .send({ domain: `${crypto.randomBytes(4).toString('hex')}.example.net` });
    expect(added.status).toBe(201);
    expect(added.body.status).not.toBe('VERIFIED');
  });
});

describe('with a real transport', () => {
  beforeAll(() => useLocalInbox(false));

  it('says so in /config', async () => {
    const res = await h.http.get('/config');
    expect(res.body.email).toMatchObject({ localInbox: false, inboxUrl: null, senderCheckWaived: false });
  });

  it('refuses an unverified sender domain as before', async () => {
    const res = await send(unverified());
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/not verified/);
    const tpl = await h.http.post('/templates').set(bearer(p.secretKey)).send({ name: 'Welcome', subject: 'Hi', body: '<p>Hi</p>', from: unverified() });
    expect(tpl.status).toBe(403);
  });
});

describe('which configurations waive the check', () => {
  it('never one loaded from the environment: only scripts/start.ts running the inbox sets it', () => {
    const env = { DATABASE_URL: 'postgres://x/y', DATA_DIR: process.env.DATA_DIR ?? '/tmp' };
    for (const extra of [{}, { EMAIL_TRANSPORT: 'log' }, { SMTP_URL: 'smtp://127.0.0.1:2525' }, { SENDGRID_API_KEY: 'SG.x' }]) {
      expect(senderCheckWaived(loadConfig({ ...env, ...extra } as NodeJS.ProcessEnv))).toBe(false);
    }
  });
});
