import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';

/** Cookie-authenticated writes refuse cross-origin browsers and non-JSON bodies (api/middleware/crossSite.ts). */

const APP = 'http://app.example.test:8080';
const DASHBOARD = 'https://dashboard.example.test';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ env: { APP_URL: `${APP}/`, DASHBOARD_ORIGINS: `${DASHBOARD}/, https://other.example.test` } });
  p = await createProjectFixture(h, 'cross-site');
});
afterAll(() => h?.stop());

const projectCount = async () => (await h.http.get('/users/@me/projects').set('Cookie', p.cookie)).body.length as number;
const createProject = (headers: Record<string, string>) => h.http.post('/users/@me/projects').set('Cookie', p.cookie).set(headers).send({ name: 'via guard' });

describe('cookie routes and the request origin', () => {
  it.each([
    ['a foreign Origin', { Origin: 'https://evil.example' }],
    ['a same-site subdomain Origin', { Origin: 'http://evil.app.example.test:8080' }],
    ['the opaque Origin null (sandboxed frame, file:)', { Origin: 'null' }],
    ['Sec-Fetch-Site cross-site without Origin', { 'Sec-Fetch-Site': 'cross-site' }],
    ['Sec-Fetch-Site same-site without Origin', { 'Sec-Fetch-Site': 'same-site' }],
  ])('refuses %s with 403 FORBIDDEN and creates nothing', async (_, headers) => {
    const before = await projectCount();
    const res = await createProject(headers);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await projectCount()).toBe(before);
  });

  it.each([
    ["APP_URL's origin", { Origin: APP }],
    ['an origin of DASHBOARD_ORIGINS', { Origin: DASHBOARD }],
    ['Sec-Fetch-Site same-origin', { 'Sec-Fetch-Site': 'same-origin' }],
    ['no Origin at all (curl, servers)', {}],
  ])('accepts %s', async (_, headers) => {
    expect((await createProject(headers)).status).toBe(201);
  });

  it('leaves reads alone', async () => {
    const res = await h.http.get('/users/@me/projects').set('Cookie', p.cookie).set('Origin', 'https://evil.example');
    expect(res.status).toBe(200);
  });

  it('leaves key-authenticated routes alone', async () => {
    const res = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .set('Cookie', p.cookie)
      .set({ Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' })
      .send({ email: 'guard@example.test' });
    expect(res.status).toBe(201);
  });
});

describe('cookie routes and the body type', () => {
  it('refuses a url-encoded project creation with 415 and creates nothing', async () => {
    const before = await projectCount();
    const res = await h.http.post('/users/@me/projects').set('Cookie', p.cookie).type('form').send('name=forged');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await projectCount()).toBe(before);
  });

  it('refuses key regeneration and reset sent as text/plain or url-encoded, and the keys survive', async () => {
    for (const action of ['regenerate-keys', 'reset']) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const res = await h.http.post(`/users/@me/projects/${p.projectId}/${action}`).set('Cookie', p.cookie).set('Content-Type', type).send('');
        expect([action, type, res.status]).toEqual([action, type, 415]);
      }
    }
    const stillValid = await h.http.get('/contacts').set(bearer(p.secretKey));
    expect(stillValid.status).toBe(200);
  });

  it('accepts a body-less request and a JSON one', async () => {
    const own = await createProjectFixture(h, 'rotate me');
    const bare = await h.http.post(`/users/@me/projects/${own.projectId}/regenerate-keys`).set('Cookie', own.cookie);
    expect(bare.status).toBe(200);
    const json = await h.http
      .post('/users/@me/projects')
      .set('Cookie', p.cookie)
      .set('Content-Type', 'application/json; charset=utf-8')
      .send('{"name":"typed"}');
    expect(json.status).toBe(201);
  });
});
