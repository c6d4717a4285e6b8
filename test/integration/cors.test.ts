import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';

/** CORS: /v1/track serves pages on any origin with the public key; secret-key routes grant nothing (api/middleware/cors.ts). */

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h, 'cors');
});
afterAll(() => h?.stop());

const ORIGIN = 'https://shop.example.test';

describe('/v1/track from a browser page', () => {
  it('answers the preflight with the methods and headers a page needs', async () => {
    const res = await h.http
      .options('/v1/track')
      .set({ Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key' });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('POST');
    const allowed = res.headers['access-control-allow-headers'].toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']));
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets the page read the answer, the request id and the rate-limit headers', async () => {
    const res = await h.http.post('/v1/track').set(bearer(p.publicKey)).set('Origin', ORIGIN).send({ event: 'page.viewed', email: 'cors@example.test' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const exposed = res.headers['access-control-expose-headers'].split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
  });

  it('lets the page read its errors too', async () => {
    const res = await h.http.post('/v1/track').set(bearer(p.publicKey)).set('Origin', ORIGIN).send({ event: 'page.viewed', email: 'not-an-email' });
    expect(res.status).toBe(422);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const noKey = await h.http.post('/v1/track').set('Origin', ORIGIN).send({ event: 'x', email: 'a@example.test' });
    expect(noKey.status).toBe(401);
    expect(noKey.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('secret-key routes', () => {
  it.each(['/v1/send', '/v1/verify', '/events/track', '/contacts'])('grant no CORS on %s, preflight or not', async (path) => {
    const preflight = await h.http
      .options(path)
      .set({ Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
    const res = await h.http.post(path).set(bearer(p.secretKey)).set('Origin', ORIGIN).send({});
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
