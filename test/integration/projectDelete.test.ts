import { startHarness, createProjectFixture, bearer, Harness } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';

/**
 * DELETE /users/@me/projects/:id on a project that has events. The cascade deletes its events, and the event
 * rollups' delete trigger (migration 059) used to add a negative hourly-count row for the project the
 * same statement had just deleted, so the foreign key refused it and nothing was deleted (migration 075).
 */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

const countOf = async (table: string, projectId: string) =>
  Number((await h.deps.knex(table).where({ project_id: projectId }).count<{ n: string }[]>('* as n'))[0].n);

describe('deleting a project that has events', () => {
  it('answers 204 and leaves none of its events, rollups or hourly counts', async () => {
    const p = await createProjectFixture(h, 'deleted with its events');
    for (const event of ['signed_up', 'purchase', 'purchase']) {
      const res = await h.http
        .post('/v1/track')
        .set(bearer(p.publicKey))
        .send({ email: uniqueEmail('gone'), event });
      expect(res.status).toBeLessThan(300);
    }
    expect(await countOf('events', p.projectId)).toBeGreaterThanOrEqual(3);
    expect(await countOf('event_hourly_counts', p.projectId)).toBeGreaterThan(0);
    expect(await countOf('contact_event_rollups', p.projectId)).toBeGreaterThan(0);

    const res = await h.http.delete(`/users/@me/projects/${p.projectId}`).set('Cookie', p.cookie);
    expect(res.status).toBe(204);
    expect(await h.deps.knex('projects').where({ id: p.projectId }).first()).toBeUndefined();
    for (const table of ['events', 'event_hourly_counts', 'contact_event_rollups', 'contacts']) expect(await countOf(table, p.projectId)).toBe(0);
  });

  it("leaves another project's hourly counts as they were", async () => {
    const keep = await createProjectFixture(h, 'kept beside a deleted one');
    const gone = await createProjectFixture(h, 'deleted beside a kept one');
    for (const p of [keep, gone]) {
      const res = await h.http
        .post('/v1/track')
        .set(bearer(p.publicKey))
        .send({ email: uniqueEmail('side'), event: 'login' });
      expect(res.status).toBeLessThan(300);
    }
    const sum = async () => Number((await h.deps.knex('event_hourly_counts').where({ project_id: keep.projectId }).sum<{ s: string }[]>('count as s'))[0].s);
    expect(await sum()).toBe(1);
    expect((await h.http.delete(`/users/@me/projects/${gone.projectId}`).set('Cookie', gone.cookie)).status).toBe(204);
    expect(await sum()).toBe(1);
  });
});
