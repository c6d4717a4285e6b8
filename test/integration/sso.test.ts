import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { Secret, TOTP } from 'otpauth';
import { createKnex } from '../../db/knex';
import { freePort } from '../../worker/devServer';
import { startApiProcess, type ApiProcess } from '../helpers/apiProcess';
import { startOidcProvider, type OidcProvider } from '../helpers/oidcProvider';
import { startHarness } from '../helpers/harness';

/**
 * Single sign-on end to end (docs/security.md "Single sign-on"): a real OpenID provider
 * (oidc-provider with its development login form, test/fixtures/oidcProvider.mjs) and the real API
 * entrypoint, each in its own process (openid-client and oidc-provider are ESM only; jest's
 * CommonJS sandbox cannot import them). Each sign-in is driven with plain HTTP as a browser would:
 * redirects followed by hand, cookies kept per origin, the provider's login form submitted.
 */

const DOMAIN = 'sso.example.test';
const email = (tag: string, domain = DOMAIN) => `${tag}-${crypto.randomBytes(4).toString('hex')}@${domain}`;

let provider: OidcProvider;
/** OIDC_ALLOWED_DOMAINS=DOMAIN, signups on. */
let api: ApiProcess;
/** The same provider, DISABLE_SIGNUPS=true. */
let closed: ApiProcess;
/** An issuer where nothing listens. */
let unreachable: ApiProcess;
let knex: Knex;

beforeAll(async () => {
  const [port, closedPort, deadPort] = [await freePort(), await freePort(), await freePort()];
  provider = await startOidcProvider([port, closedPort].map((p) => `http://127.0.0.1:${p}/auth/sso/callback`));
  const oidc = { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret };
  [api, closed] = await Promise.all([
    startApiProcess({ ...oidc, OIDC_ALLOWED_DOMAINS: `${DOMAIN}, other-allowed.example.test`, OIDC_NAME: 'Test IdP' }, port),
    startApiProcess({ ...oidc, DISABLE_SIGNUPS: 'true' }, closedPort),
  ]);
  unreachable = await startApiProcess({ ...oidc, OIDC_ISSUER: `http://127.0.0.1:${deadPort}` });
  knex = createKnex(process.env.DATABASE_URL!);
}, 240_000);

afterAll(async () => {
  await Promise.all([api?.stop(), closed?.stop(), unreachable?.stop()]);
  await provider?.stop();
  await knex?.destroy();
});

/** One browser's cookies, per origin (the two servers share 127.0.0.1; their cookie names never meet). */
class Browser {
  private jars = new Map<string, Map<string, string>>();

  async get(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const jar = this.jars.get(u.origin) ?? new Map<string, string>();
    this.jars.set(u.origin, jar);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(u, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { Cookie: cookie } : {}) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const [name, value] = [pair.slice(0, i).trim(), pair.slice(i + 1).trim()];
      const expired = !value || attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\b/i.test(a));
      if (expired) jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jars.get(origin)?.get(name);
  }

  /** Follows redirects from `url` until one points at `stopAt` (not fetched) or a page answers. */
  async follow(url: string, stopAt?: (next: URL) => boolean): Promise<{ url: string; res?: Response }> {
    let current = url;
    for (let i = 0; i < 10; i++) {
      const res = await this.get(current);
      const location = res.headers.get('location');
      if (!location || res.status < 300 || res.status >= 400) return { url: current, res };
      const next = new URL(location, current);
      if (stopAt?.(next)) return { url: next.href };
      current = next.href;
    }
    throw new Error(`too many redirects from ${url}`);
  }
}

interface Attempt {
  browser: Browser;
  /** Where the app's callback sent the browser (a path on the app). */
  location: string;
  /** The session cookie it set, as a Cookie header. */
  session?: string;
}

const isCallback = (app: ApiProcess) => (u: URL) => u.origin === app.url && u.pathname === '/auth/sso/callback';

/** "Sign in with SSO" → the provider's login form, signed in as `login` → the provider's redirect to the app's callback. */
async function toCallback(login: string, app = api, browser = new Browser()): Promise<{ browser: Browser; callback: URL }> {
  const start = await browser.get(`${app.url}/auth/sso/start`);
  expect(start.status).toBe(302);
  const page = await browser.follow(start.headers.get('location')!);
  const html = await page.res!.text();
  expect(html).toContain('name="login"');
  const action = new URL(/<form[^>]*action="([^"]+)"/.exec(html)![1].replace(/&amp;/g, '&'), page.url);
  const submitted = await browser.get(action.href, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ prompt: 'login', login, password: 'anything' }).toString(),
  });
  const back = await browser.follow(new URL(submitted.headers.get('location')!, action).href, isCallback(app));
  return { browser, callback: new URL(back.url) };
}

async function callApp(browser: Browser, callback: URL, app = api): Promise<Attempt> {
  const res = await browser.get(callback.href);
  expect(res.status).toBe(302);
  const token = browser.cookie(app.url, 'token');
  return { browser, location: res.headers.get('location')!, session: token ? `token=${token}` : undefined };
}

async function signIn(login: string, app = api): Promise<Attempt> {
  const { browser, callback } = await toCallback(login, app);
  return callApp(browser, callback, app);
}

/** A response's JSON, untyped: the tests say what they expect of it. */
const json = async (res: Response | Promise<Response>): Promise<any> => (await res).json();
const me = async (session: string, app = api) => fetch(`${app.url}/users/@me`, { headers: { Cookie: session } });
const user = (address: string) => knex('users').where({ email: address.toLowerCase() }).first();
const passwordLogin = (address: string, password: string, app = api) =>
  fetch(`${app.url}/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: address, password }) });

describe('the dashboard configuration', () => {
  it('tells the dashboard SSO is on, with the provider name', async () => {
    expect((await json(fetch(`${api.url}/config`))).sso).toEqual({ enabled: true, name: 'Test IdP' });
    expect((await json(fetch(`${closed.url}/config`))).sso).toEqual({ enabled: true, name: null });
  });

  it('without OIDC_* settings: SSO is off and both routes answer 404', async () => {
    const h = await startHarness();
    try {
      expect((await h.http.get('/config')).body.sso).toEqual({ enabled: false, name: null });
      for (const path of ['/auth/sso/start', '/auth/sso/callback?code=x&state=y']) {
        const res = await h.http.get(path);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    } finally {
      await h.stop();
    }
  });
});

describe('signing in with SSO', () => {
  it('does not skip a second factor: an account with 2FA is sent to the login screen for its code, with no session yet', async () => {
    const address = email('two-factor');
    const first = await signIn(address);
    const post = (path: string, body?: object) =>
      fetch(`${api.url}${path}`, { method: 'POST', headers: { Cookie: first.session!, 'Content-Type': 'application/json' }, body: JSON.stringify(body ?? {}) });
    const setup = await json(post('/users/@me/two-factor/setup'));
    const code = new TOTP({ secret: Secret.fromBase32(setup.secret) }).generate();
    expect((await post('/users/@me/two-factor/enable', { code })).status).toBe(200);

    const again = await signIn(address);
    expect(again.location).toBe('/app/login?step=two-factor');
    expect(again.session).toBeUndefined();
    expect(again.browser.cookie(api.url, 'two_factor')).toBeDefined();
  });

  it('sends the browser to the provider with PKCE (S256), a state and a nonce, kept in a signed httpOnly cookie', async () => {
    const browser = new Browser();
    const res = await browser.get(`${api.url}/auth/sso/start`);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(provider.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: provider.clientId,
      redirect_uri: `${api.url}/auth/sso/callback`,
      response_type: 'code',
      code_challenge_method: 'S256',
      scope: 'openid email profile',
    });
    for (const p of ['code_challenge', 'state', 'nonce']) expect(to.searchParams.get(p)).toMatch(/^[\w-]{22,}$/);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sso_attempt='))!;
    expect(cookie).toMatch(/path=\/auth\/sso/i);
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=lax/i);
    // Each attempt its own: a second start has another state and nonce.
    const again = new URL((await new Browser().get(`${api.url}/auth/sso/start`)).headers.get('location')!);
    expect(again.searchParams.get('state')).not.toBe(to.searchParams.get('state'));
    expect(again.searchParams.get('nonce')).not.toBe(to.searchParams.get('nonce'));
  });

  it('creates a verified account with no usable password for a newcomer, and signs it in', async () => {
    const address = email('newcomer');
    const first = await signIn(address);
    expect(first.location).toBe('/app/');
    const res = await me(first.session!);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.email).toBe(address);
    const row = await user(address);
    expect(row.email_verified).toBe(true);
    expect(await knex('user_identities').where({ user_id: row.id })).toEqual([
      expect.objectContaining({ issuer: provider.issuer, subject: address, email: address }),
    ]);
    // No password was ever chosen: none signs in (not even an empty or a guessed one).
    for (const password of ['anything', 'correct horse battery']) expect((await passwordLogin(address, password)).status).toBe(401);

    // A second sign-in finds the same account, not a second one.
    const second = await signIn(address);
    expect(second.location).toBe('/app/');
    expect((await json(me(second.session!))).id).toBe(body.id);
    expect(await knex('users').where({ email: address })).toHaveLength(1);
  });

  it('finds the same account after the address changes at the provider (the issuer and subject link it)', async () => {
    const subject = `stable-${crypto.randomBytes(4).toString('hex')}`;
    const before = email('before');
    const after = email('after');
    await provider.setAccount(subject, { email: before, email_verified: true });
    const first = await signIn(subject);
    const id = (await json(me(first.session!))).id;
    await provider.setAccount(subject, { email: after, email_verified: true });
    const second = await signIn(subject);
    expect(second.location).toBe('/app/');
    expect((await json(me(second.session!))).id).toBe(id);
    // The account keeps its address; the link records the one the provider vouched for last.
    expect(await user(after)).toBeUndefined();
    expect(await knex('user_identities').where({ issuer: provider.issuer, subject })).toEqual([expect.objectContaining({ user_id: id, email: after })]);
  });

  it('links an existing verified password account, which keeps its password', async () => {
    const address = email('verified');
    const signup = await fetch(`${api.url}/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: address, password: 'correct horse battery' }),
    });
    expect(signup.status).toBe(201);
    const { id } = await json(signup);
    await knex('users').where({ id }).update({ email_verified: true });

    const sso = await signIn(address.toUpperCase());
    expect(sso.location).toBe('/app/');
    expect((await json(me(sso.session!))).id).toBe(id);
    expect(await knex('user_identities').where({ user_id: id }).select('issuer')).toEqual([{ issuer: provider.issuer }]);
    expect((await passwordLogin(address, 'correct horse battery')).status).toBe(200);
  });

  it('claims an existing unverified account: it is verified, and the password and sessions of whoever made it end', async () => {
    const address = email('unclaimed');
    const signup = await fetch(`${api.url}/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: address, password: 'squatter password' }),
    });
    const { id } = await json(signup);
    const squatter = signup.headers.getSetCookie()[0].split(';')[0];
    expect((await me(squatter)).status).toBe(200);

    const sso = await signIn(address);
    expect((await json(me(sso.session!))).id).toBe(id);
    expect((await user(address)).email_verified).toBe(true);
    expect((await passwordLogin(address, 'squatter password')).status).toBe(401);
    expect((await me(squatter)).status).toBe(401);
    expect((await me(sso.session!)).status).toBe(200);
  });
});

describe('refused callbacks: back to the login screen with a reason, never a session', () => {
  const refused = (attempt: Attempt, code: string) => {
    expect(attempt.location).toBe(`/app/login?error=${code}`);
    expect(attempt.session).toBeUndefined();
  };

  it('a state that is not the one this browser was given', async () => {
    const address = email('tampered');
    const { browser, callback } = await toCallback(address);
    callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
    refused(await callApp(browser, callback), 'state');
    expect(await user(address)).toBeUndefined();
  });

  it("the provider's answer taken to another browser (no attempt cookie), or used a second time", async () => {
    const address = email('replayed');
    const { browser, callback } = await toCallback(address);
    refused(await callApp(new Browser(), callback), 'state');
    expect(await user(address)).toBeUndefined();
    const kept = browser.cookie(api.url, 'sso_attempt')!;
    expect((await callApp(browser, callback)).location).toBe('/app/');
    // The callback clears the attempt cookie; and a copy of it kept back does not help either: the provider spent the code.
    expect(browser.cookie(api.url, 'sso_attempt')).toBeUndefined();
    const again = await fetch(callback, { redirect: 'manual', headers: { Cookie: `sso_attempt=${kept}` } });
    expect(again.headers.get('location')).toBe('/app/login?error=failed');
    expect(again.headers.getSetCookie().some((c) => c.startsWith('token='))).toBe(false);
  });

  it('a forged attempt cookie', async () => {
    const { browser, callback } = await toCallback(email('forged'));
    const res = await fetch(callback, { redirect: 'manual', headers: { Cookie: `sso_attempt=${browser.cookie(api.url, 'sso_attempt')}x` } });
    expect(res.headers.get('location')).toBe('/app/login?error=state');
  });

  it('the person cancelled at the provider', async () => {
    const browser = new Browser();
    const start = await browser.get(`${api.url}/auth/sso/start`);
    const page = await browser.follow(start.headers.get('location')!);
    const abort = /href="([^"]*\/abort)"/.exec(await page.res!.text())![1];
    const back = await browser.follow(new URL(abort, page.url).href, isCallback(api));
    expect(new URL(back.url).searchParams.get('error')).toBe('access_denied');
    refused(await callApp(browser, new URL(back.url)), 'denied');
  });

  it('an address the provider has not verified', async () => {
    const address = email('unverified');
    refused(await signIn(`${address};unverified`), 'email_unverified');
    expect(await user(address)).toBeUndefined();
  });

  it('no address at all', async () => {
    refused(await signIn(`nomail-${crypto.randomBytes(4).toString('hex')}`), 'email_missing');
  });

  it('an address outside OIDC_ALLOWED_DOMAINS (exact domains: not a look-alike, not a subdomain)', async () => {
    for (const address of [email('outsider', 'elsewhere.example.test'), email('lookalike', `evil-${DOMAIN}`), email('sub', `team.${DOMAIN}`)]) {
      refused(await signIn(address), 'domain');
      expect(await user(address)).toBeUndefined();
    }
    // The second listed domain is allowed too.
    expect((await signIn(email('second', 'other-allowed.example.test'))).location).toBe('/app/');
  });

  it('signups disabled: no new account, but an existing one still signs in', async () => {
    const address = email('latecomer');
    refused(await signIn(address, closed), 'signups_disabled');
    expect(await user(address)).toBeUndefined();

    const member = email('member');
    await fetch(`${api.url}/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: member, password: 'correct horse battery' }),
    });
    const ok = await signIn(member, closed);
    expect(ok.location).toBe('/app/');
    expect((await me(ok.session!, closed)).status).toBe(200);
  });

  it('a provider that cannot be reached: the start comes back to the login screen too', async () => {
    const res = await fetch(`${unreachable.url}/auth/sso/start`, { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([302, '/app/login?error=failed']);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('whatever the query, the callback answers a redirect to the login screen, never a 500', async () => {
    const { browser } = await toCallback(email('fuzz'));
    const queries = [
      '',
      'code=abc',
      'state=',
      'error=server_error&state=x',
      'code=%00&state=%00',
      `code=${'x'.repeat(5000)}&state=${'y'.repeat(5000)}`,
      'state[]=a&state[]=b',
      '%%%',
    ];
    for (const q of queries) {
      const res = await browser.get(`${api.url}/auth/sso/callback?${q}`);
      expect([q, res.status, res.headers.get('location')]).toEqual([q, 302, '/app/login?error=state']);
    }
    // With a live attempt and its own state, a made-up code fails at the provider's token endpoint: still a redirect.
    const live = await toCallback(email('badcode'));
    live.callback.searchParams.set('code', 'not-a-code-the-provider-issued');
    refused(await callApp(live.browser, live.callback), 'failed');
  });
});
