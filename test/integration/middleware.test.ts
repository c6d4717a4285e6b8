import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h);
});
afterAll(() => h?.stop());

function expectEnvelope(res: { status: number; body: any; headers: any }, code: string) {
  expect(res.body).toMatchObject({
    success: false,
    error: { code, statusCode: res.status, message: expect.any(String), requestId: res.headers['x-request-id'] },
    timestamp: expect.any(String),
  });
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/);
}

describe('request id', () => {
  it('sets X-Request-Id on every response and honours a well-formed incoming one', async () => {
    const res = await h.http.get('/config');
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    const traced = await h.http.get('/config').set('X-Request-Id', 'trace-1234567');
    expect(traced.headers['x-request-id']).toBe('trace-1234567');
    const hostile = await h.http.get('/config').set('X-Request-Id', '<script>');
    expect(hostile.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('errors', () => {
  it('answers malformed JSON with 400 BAD_REQUEST', async () => {
    const res = await h.http.post('/users/@me/projects').set('Cookie', p.cookie).set('Content-Type', 'application/json').send('{"name":');
    expect(res.status).toBe(400);
    expectEnvelope(res, 'BAD_REQUEST');
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await h.http
      .post('/users/@me/projects')
      .set('Cookie', p.cookie)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expectEnvelope(res, 'PAYLOAD_TOO_LARGE');
  });

  it('answers wrong types with 422 and field errors', async () => {
    const res = await h.http.post('/users/@me/projects').set('Cookie', p.cookie).send({ name: 42 });
    expect(res.status).toBe(422);
    expectEnvelope(res, 'VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'name', code: 'invalid_type', received: 'number' })]);
  });

  it('refuses absurdly nested bodies before a recursive schema can overflow the stack', async () => {
    // Built as text: a JSON serializer would itself overflow on a tree this deep.
    const leaf = '{"logic":"AND","groups":[{"filters":[{"field":"email","operator":"exists"}]}]}';
    const tree = '{"logic":"AND","groups":[{"filters":[],"conditions":'.repeat(3000) + leaf + '}]}'.repeat(3000);
    const json = () => ({ ...bearer(p.secretKey), 'Content-Type': 'application/json' });
    const flat = await h.http.post('/segments').set(json()).send(`{"name":"deep","condition":${tree}}`);
    expect(flat.status).toBe(400);
    expect(flat.body.error).toMatch(/nests more than 64 levels/);
    const enveloped = await h.http.post('/campaigns').set(json()).send(`{"name":"deep","audienceType":"FILTERED","audienceCondition":${tree}}`);
    expect(enveloped.status).toBe(422);
    expectEnvelope(enveloped, 'VALIDATION_ERROR');
  });

  it('answers an unknown route with 404 NOT_FOUND and a wrong method with 405', async () => {
    const res = await h.http.get('/no/such/route');
    expect(res.status).toBe(404);
    expectEnvelope(res, 'NOT_FOUND');
    const wrong = await h.http.put('/config');
    expect(wrong.status).toBe(405);
    expectEnvelope(wrong, 'METHOD_NOT_ALLOWED');
  });

  it('turns an unexpected failure into a 500 envelope without internals', async () => {
    const broken = await startHarness();
    try {
      const fixture = await createProjectFixture(broken);
      await broken.deps.knex.destroy();
      const res = await broken.http.get('/users/@me').set('Cookie', fixture.cookie);
      expect(res.status).toBe(500);
      expectEnvelope(res, 'INTERNAL_SERVER_ERROR');
      expect(res.body.error.message).toBe('An unexpected error occurred');
    } finally {
      await broken.deps.temporal.close();
    }
  });
});

describe('health and config', () => {
  it('reports database and temporal ok', async () => {
    const res = await h.http.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'ok', temporal: 'ok' });
  });

  it('reports 503 naming the failing part when Temporal is unreachable', async () => {
    const down = await startHarness({ temporalAddress: '127.0.0.1:1' });
    try {
      const res = await down.http.get('/health');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'error', database: 'ok', temporal: 'error' });
    } finally {
      await down.stop();
    }
  });

  it('serves feature flags without auth', async () => {
    const res = await h.http.get('/config');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ signupsEnabled: true, billing: { enabled: false } });
  });
});

describe('rate limit', () => {
  it('is 1,000 requests a minute per project by default, and says so on every answer', async () => {
    const p = await createProjectFixture(h, 'default limit');
    const res = await h.http.get('/contacts').set(bearer(p.secretKey));
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('1000');
    expect(res.headers['ratelimit-remaining']).toBe('999');
  });

  it('answers the request over the limit in a minute with 429 and Retry-After; other projects are unaffected', async () => {
    // The limit is a setting (RATE_LIMIT_PER_MINUTE): a small one keeps the burst inside one fixed
    // wall-clock window even on a loaded runner, where 1,001 requests took longer than a minute.
    const LIMIT = 40;
    const limited = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
    try {
      const b = await createProjectFixture(limited, 'bystander');
      // A burst that the runner still stretched across a minute's end proves nothing: it runs again on
      // a fresh project, which then starts at the beginning of a minute.
      const burst = async (name: string) => {
        const project = await createProjectFixture(limited, name);
        const minute = Math.floor(Date.now() / 60_000);
        const statuses = (await Promise.all(Array.from({ length: LIMIT }, () => limited.http.get('/contacts').set(bearer(project.secretKey))))).map(
          (r) => r.status,
        );
        const over = await limited.http.get('/contacts').set(bearer(project.secretKey));
        return { statuses, over, sameMinute: Math.floor(Date.now() / 60_000) === minute };
      };
      let run = await burst('limited');
      if (!run.sameMinute) run = await burst('limited again');
      expect(run.sameMinute).toBe(true);
      const { statuses, over } = run;
      expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
      expect(over.status).toBe(429);
      expectEnvelope(over, 'RATE_LIMIT_EXCEEDED');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(over.headers['ratelimit-limit']).toBe(String(LIMIT));
      expect(over.headers['ratelimit-remaining']).toBe('0');
      expect(Number(over.headers['ratelimit-reset'])).toBeGreaterThan(0);
      expect(Number(over.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
      const other = await limited.http.get('/contacts').set(bearer(b.secretKey));
      expect(other.status).toBe(200);
      expect(other.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
      expect(other.headers['ratelimit-reset']).toMatch(/^\d+$/);
    } finally {
      await limited.stop();
    }
  }, 120_000);
});
