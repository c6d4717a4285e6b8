import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { authenticateKey } from '../../services/apiKeys';

/**
 * Named API keys with scopes (docs/api.md "Scoped API keys"): created and revoked by owners and
 * admins, shown once, judged by the scope each route declares (api/route.ts `scope`).
 */

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;
let memberCookie: string;

beforeAll(async () => {
  h = await startHarness();
  [p, other] = await Promise.all([createProjectFixture(h, 'scoped keys'), createProjectFixture(h, 'another project')]);
  await verifiedDomain(h, p.projectId, 'keys.example.com');
  const email = `m-${crypto.randomBytes(5).toString('hex')}@example.test`;
  const signup = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  await h.deps.knex('users').where({ id: signup.body.id }).update({ email_verified: true });
  memberCookie = (signup.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  const joined = await h.http.post(`/projects/${p.projectId}/members`).set('Cookie', p.cookie).send({ email, role: 'MEMBER' });
  expect(joined.status).toBe(201);
});
afterAll(() => h?.stop());

const asCookie = (cookie: string, projectId: string) => ({ Cookie: cookie, 'X-Project-Id': projectId });

async function createKey(scopes: string[], name = `key ${scopes.join('+')}`, owner: ProjectFixture = p) {
  const res = await h.http.post('/api-keys').set(asCookie(owner.cookie, owner.projectId)).send({ name, scopes });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string; prefix: string; scopes: string[]; name: string };
}

/** One route of each family, with a body it accepts: the key with the family's scope gets a 2xx. */
const FAMILIES: Array<{ scope: string; method: 'get' | 'post'; path: string; body?: () => object }> = [
  { scope: 'send', method: 'post', path: '/v1/send', body: () => ({ to: uniqueEmail('s'), from: 'hi@keys.example.com', subject: 'Hi', body: '<p>Hi</p>' }) },
  { scope: 'track', method: 'post', path: '/v1/track', body: () => ({ email: uniqueEmail('t'), event: 'signed_up' }) },
  { scope: 'track', method: 'post', path: '/events/track', body: () => ({ email: uniqueEmail('e'), event: 'signed_up' }) },
  { scope: 'contacts:read', method: 'get', path: '/contacts' },
  { scope: 'contacts:write', method: 'post', path: '/contacts', body: () => ({ email: uniqueEmail('c') }) },
  { scope: 'campaigns', method: 'get', path: '/campaigns' },
  { scope: 'templates', method: 'get', path: '/templates' },
  { scope: 'full', method: 'get', path: '/webhook-endpoints' },
];
const call = (f: (typeof FAMILIES)[number], key: string) => {
  const req = h.http[f.method](f.path).set(bearer(key));
  return f.body ? req.send(f.body()) : req;
};

describe('creating, listing and revoking', () => {
  it('shows the secret once, at creation; the list shows its prefix, never the secret', async () => {
    const created = await createKey(['send', 'contacts:read'], 'Billing server');
    expect(created.secret).toMatch(/^key_[0-9A-Za-z]{43}$/);
    expect(created.secret.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeLessThan(created.secret.length);
    const list = await h.http.get('/api-keys').set(asCookie(p.cookie, p.projectId));
    expect(list.status).toBe(200);
    const row = list.body.find((k: any) => k.id === created.id);
    expect(row).toEqual({
      id: created.id,
      name: 'Billing server',
      scopes: ['send', 'contacts:read'],
      prefix: created.prefix,
      createdBy: p.email,
      createdAt: expect.any(String),
      lastUsedAt: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
    // Only the digest is stored.
    const stored = await h.deps.knex('api_keys').where({ id: created.id }).first();
    expect(JSON.stringify(stored)).not.toContain(created.secret);
    expect(stored.key_hash).toBe(crypto.createHash('sha256').update(created.secret).digest('hex'));
  });

  it('refuses a bad body with 422 and an unknown scope by name', async () => {
    for (const body of [{ name: '', scopes: ['send'] }, { name: 'x', scopes: [] }, { name: 'x', scopes: ['admin'] }, { name: 'x' }]) {
      const res = await h.http.post('/api-keys').set(asCookie(p.cookie, p.projectId)).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await h.http.delete('/api-keys/not-a-uuid').set(asCookie(p.cookie, p.projectId))).status).toBe(404);
  });

  it('revokes: the key fails with 401 on its very next request, and the list no longer has it', async () => {
    const key = await createKey(['contacts:read']);
    expect((await h.http.get('/contacts').set(bearer(key.secret))).status).toBe(200);
    const revoked = await h.http.delete(`/api-keys/${key.id}`).set(asCookie(p.cookie, p.projectId));
    expect(revoked.status).toBe(204);
    const after = await h.http.get('/contacts').set(bearer(key.secret));
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHORIZED');
    const list = await h.http.get('/api-keys').set(asCookie(p.cookie, p.projectId));
    expect(list.body.map((k: any) => k.id)).not.toContain(key.id);
    expect((await h.http.delete(`/api-keys/${key.id}`).set(asCookie(p.cookie, p.projectId))).status).toBe(404);
  });

  it('writes audit entries for creation and revocation, naming the key but never its secret', async () => {
    const key = await createKey(['templates'], 'Audited key');
    await h.http.delete(`/api-keys/${key.id}`).set(asCookie(p.cookie, p.projectId)).expect(204);
    const rows = await h.deps.knex('audit_log').where({ project_id: p.projectId, target_type: 'api_key', target_id: key.id }).orderBy('id');
    expect(rows.map((r) => [r.action, r.actor])).toEqual([
      ['api_key.create', p.userId],
      ['api_key.revoke', p.userId],
    ]);
    expect(rows[0].details).toEqual({ name: 'Audited key', scopes: ['templates'], prefix: key.prefix });
    expect(JSON.stringify(rows)).not.toContain(key.secret);
    const log = await h.http.get(`/projects/${p.projectId}/audit`).set('Cookie', p.cookie);
    expect(log.status).toBe(200);
    expect(log.body.data.map((e: any) => e.summary)).toEqual(expect.arrayContaining([`Revoked API key Audited key (${key.prefix}…)`]));
  });
});

describe('who may manage keys', () => {
  it('refuses a MEMBER (403, with an access.denied entry) and creates nothing', async () => {
    const before = await h.deps.knex('api_keys').where({ project_id: p.projectId }).count({ n: '*' });
    const res = await h.http
      .post('/api-keys')
      .set(asCookie(memberCookie, p.projectId))
      .send({ name: 'mine', scopes: ['full'] });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect((await h.http.get('/api-keys').set(asCookie(memberCookie, p.projectId))).status).toBe(403);
    const after = await h.deps.knex('api_keys').where({ project_id: p.projectId }).count({ n: '*' });
    expect(after).toEqual(before);
    const denied = await h.deps.knex('audit_log').where({ project_id: p.projectId, action: 'access.denied' });
    expect(denied.some((d) => d.details.action === 'api_key.create')).toBe(true);
  });

  it('lets the secret key and a `full` key manage keys, and no narrower key', async () => {
    const bySecret = await h.http
      .post('/api-keys')
      .set(bearer(p.secretKey))
      .send({ name: 'made by sk', scopes: ['full'] });
    expect(bySecret.status).toBe(201);
    expect(bySecret.body.createdBy).toBeNull();
    const byFull = await h.http
      .post('/api-keys')
      .set(bearer(bySecret.body.secret))
      .send({ name: 'made by full', scopes: ['send'] });
    expect(byFull.status).toBe(201);
    const audit = await h.deps.knex('audit_log').where({ target_type: 'api_key', target_id: byFull.body.id }).first();
    expect(audit.actor).toBe(`api key ${bySecret.body.prefix}`);
    const narrow = await h.http
      .post('/api-keys')
      .set(bearer(byFull.body.secret))
      .send({ name: 'escalate', scopes: ['full'] });
    expect(narrow.status).toBe(403);
    expect(narrow.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', message: 'This API key lacks the full scope' });
  });

  it("never shows or revokes another project's keys", async () => {
    const mine = await createKey(['send'], 'private to p');
    const theirs = await createKey(['full'], 'other full', other);
    const list = await h.http.get('/api-keys').set(bearer(theirs.secret));
    expect(list.status).toBe(200);
    expect(list.body.map((k: any) => k.id)).toEqual([theirs.id]);
    expect((await h.http.delete(`/api-keys/${mine.id}`).set(bearer(theirs.secret))).status).toBe(404);
    expect((await h.http.get('/api-keys').set(asCookie(other.cookie, p.projectId))).status).toBe(404);
    expect((await h.http.get('/contacts').set(bearer(mine.secret))).status).toBe(403);
    // Its contacts are its own project's: a contact made with the other project's key is not in p.
    const email = uniqueEmail('x');
    const made = await h.http.post('/contacts').set(bearer(theirs.secret)).send({ email });
    expect(made.status).toBe(201);
    expect(await h.deps.knex('contacts').where({ email, project_id: p.projectId })).toHaveLength(0);
    expect(await h.deps.knex('contacts').where({ email, project_id: other.projectId })).toHaveLength(1);
  });
});

describe('scopes on every route family', () => {
  const scopes = [...new Set(FAMILIES.map((f) => f.scope))];
  it.each(scopes)('a key with only %s passes its own family and gets 403 naming the scope elsewhere', async (scope) => {
    const key = await createKey([scope]);
    for (const f of FAMILIES) {
      const res = await call(f, key.secret);
      if (f.scope === scope || scope === 'full') {
        expect([f.path, res.status]).toEqual([f.path, expect.any(Number)]);
        expect([f.path, res.status >= 200 && res.status < 300]).toEqual([f.path, true]);
      } else {
        expect([f.path, res.status, res.body.error?.code, res.body.error?.message]).toEqual([
          f.path,
          403,
          'INSUFFICIENT_SCOPE',
          `This API key lacks the ${f.scope} scope`,
        ]);
      }
    }
  });

  it('the secret key and the cookie pass every family as before; the public key keeps /v1/track alone', async () => {
    for (const f of FAMILIES.filter((f) => f.path !== '/v1/track')) {
      expect([f.path, (await call(f, p.secretKey)).status < 300]).toEqual([f.path, true]);
      const req = h.http[f.method](f.path).set(asCookie(p.cookie, p.projectId));
      expect([f.path, (await (f.body ? req.send(f.body()) : req)).status < 300]).toEqual([f.path, true]);
    }
    const track = FAMILIES.find((f) => f.path === '/v1/track')!;
    expect((await call(track, p.publicKey)).status).toBe(200);
    const skOnTrack = await call(track, p.secretKey);
    expect([skOnTrack.status, skOnTrack.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
    const pkOnContacts = await h.http.get('/contacts').set(bearer(p.publicKey));
    expect([pkOnContacts.status, pkOnContacts.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('a MEMBER with the cookie is judged by role, not scope', async () => {
    expect((await h.http.get('/contacts').set(asCookie(memberCookie, p.projectId))).status).toBe(200);
    expect((await h.http.get('/templates').set(asCookie(memberCookie, p.projectId))).status).toBe(200);
  });

  it('an unknown key_ secret is 401', async () => {
    const res = await h.http.get('/contacts').set(bearer(`key_${'A'.repeat(43)}`));
    expect([res.status, res.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });
});

describe('lastUsedAt', () => {
  it('is set by use, and moves at most once a minute', async () => {
    const key = await createKey(['contacts:read']);
    await h.http.get('/contacts').set(bearer(key.secret)).expect(200);
    const first = (await h.deps.knex('api_keys').where({ id: key.id }).first()).last_used_at;
    expect(first).toBeInstanceOf(Date);
    // Used 30 seconds ago: a request now leaves it; used 2 minutes ago: a request now moves it.
    await h.deps.knex.raw("UPDATE api_keys SET last_used_at = now() - interval '30 seconds' WHERE id = ?", [key.id]);
    const recent = (await h.deps.knex('api_keys').where({ id: key.id }).first()).last_used_at;
    await h.http.get('/contacts').set(bearer(key.secret)).expect(200);
    expect((await h.deps.knex('api_keys').where({ id: key.id }).first()).last_used_at).toEqual(recent);
    await h.deps.knex.raw("UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = ?", [key.id]);
    const old = (await h.deps.knex('api_keys').where({ id: key.id }).first()).last_used_at;
    await h.http.get('/contacts').set(bearer(key.secret)).expect(200);
    const moved = (await h.deps.knex('api_keys').where({ id: key.id }).first()).last_used_at;
    expect(moved.getTime()).toBeGreaterThan(old.getTime());
    const list = await h.http.get('/api-keys').set(asCookie(p.cookie, p.projectId));
    expect(list.body.find((k: any) => k.id === key.id).lastUsedAt).toBe(moved.toISOString());
  });
});

describe('authenticateKey (for the SMTP and MCP entries)', () => {
  it('answers the project and scopes, or why not', async () => {
    const key = await createKey(['send']);
    const ok = await authenticateKey(h.deps.knex, key.secret, 'send');
    expect('project' in ok && ok.project.id).toBe(p.projectId);
    expect('project' in ok && ok.key?.id).toBe(key.id);
    expect(await authenticateKey(h.deps.knex, key.secret, 'contacts:read')).toEqual({ error: 'scope', message: 'This API key lacks the contacts:read scope' });
    const sk = await authenticateKey(h.deps.knex, p.secretKey, 'campaigns');
    expect('project' in sk && sk.project.id).toBe(p.projectId);
    expect(await authenticateKey(h.deps.knex, p.publicKey, 'track')).toMatchObject({ error: 'invalid' });
    expect(await authenticateKey(h.deps.knex, 'key_nope', 'send')).toMatchObject({ error: 'invalid' });
    await h.http.delete(`/api-keys/${key.id}`).set(asCookie(p.cookie, p.projectId)).expect(204);
    expect(await authenticateKey(h.deps.knex, key.secret, 'send')).toMatchObject({ error: 'invalid' });
  });
});
