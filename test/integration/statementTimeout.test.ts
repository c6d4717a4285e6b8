import request from 'supertest';
import type { Knex } from 'knex';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { createKnex } from '../../db/knex';
import { buildApp } from '../../api/app';
import { loadConfig } from '../../lib/config';

/**
 * The API's Postgres sessions carry a statement_timeout (DB_STATEMENT_TIMEOUT_MS): a query blocked
 * on a lock (here a contact row another session holds) is cancelled by Postgres and the request
 * answers a 503 envelope instead of waiting for as long as the lock is held.
 */
let h: Harness;
let p: ProjectFixture;
let apiKnex: Knex;
let api: ReturnType<typeof request>;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h);
  apiKnex = createKnex(h.config.databaseUrl, { max: 2, statementTimeoutMs: 300 });
  api = request(buildApp({ ...h.deps, knex: apiKnex }).app.callback());
});
afterAll(async () => {
  await apiKnex?.destroy();
  await h?.stop();
});

it('reads DB_STATEMENT_TIMEOUT_MS (default 15 s, 0 for none)', () => {
  const base = { JWT_SECRET: 'x'.repeat(32) };
  expect(loadConfig(base).dbStatementTimeoutMs).toBe(15_000);
  expect(loadConfig({ ...base, DB_STATEMENT_TIMEOUT_MS: '0' }).dbStatementTimeoutMs).toBe(0);
  expect(() => loadConfig({ ...base, DB_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
});

it("sets statement_timeout on every session of the API's pool", async () => {
  const { rows } = await apiKnex.raw('SHOW statement_timeout');
  expect(rows[0].statement_timeout).toBe('300ms');
});

it('answers 503 with the error envelope when a statement outlives the timeout', async () => {
  const email = 'locked@example.test';
  expect((await api.post('/contacts').set(bearer(p.secretKey)).send({ email })).status).toBe(201);

  // Another session holds the contact's row for 5 s (bounded, so a missing timeout fails the test instead of hanging it).
  let locked!: () => void;
  const holding = new Promise<void>((r) => (locked = r));
  const holder = h.deps.knex.transaction(async (trx) => {
    await trx('contacts').where({ project_id: p.projectId, email }).forUpdate().first('id');
    locked();
    await trx.raw('SELECT pg_sleep(5)');
  });
  await holding;

  const res = await api
    .post('/contacts')
    .set(bearer(p.secretKey))
    .send({ email, data: { plan: 'pro' } });
  expect(res.status).toBe(503);
  expect(res.body).toMatchObject({
    success: false,
    error: { code: 'SERVICE_UNAVAILABLE', statusCode: 503, message: expect.stringMatching(/statement timeout/), details: { unavailable: 'database' } },
  });
  expect(res.headers['retry-after']).toBe('5');
  await holder;

  // The pool is fine afterwards: the same request goes through once the lock is gone.
  expect(
    (
      await api
        .post('/contacts')
        .set(bearer(p.secretKey))
        .send({ email, data: { plan: 'pro' } })
    ).status,
  ).toBe(200);
}, 30_000);
