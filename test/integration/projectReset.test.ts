import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { KEPT_ON_RESET, WIPED_ON_RESET } from '../../db/projects';

let h: Harness;
let p: ProjectFixture;
let q: ProjectFixture;

// A real 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  // No worker yet: the project's workflows stay running until the reset cancels them.
  h = await startHarness({ env: { APP_URL: 'http://app.test' } });
  [p, q] = await Promise.all([createProjectFixture(h, 'to be reset'), createProjectFixture(h, 'bystander')]);
  await Promise.all([verifiedDomain(h, p.projectId, 'p.example.com'), verifiedDomain(h, q.projectId, 'q.example.com')]);
});
afterAll(() => h?.stop());

async function projectTables(): Promise<string[]> {
  const r = await h.deps.knex.raw(
    `SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.column_name = 'project_id' AND c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`,
  );
  return r.rows.map((x: { table_name: string }) => x.table_name);
}
async function counts(projectId: string, tables: string[]) {
  const out: Record<string, number> = {};
  for (const t of tables) out[t] = Number((await h.deps.knex(t).where({ project_id: projectId }).count({ n: '*' }))[0].n);
  return out;
}
const running = async (projectId: string) => {
  const client = await h.deps.temporal.client();
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: `ProjectId = "${projectId}" AND ExecutionStatus = "Running"` })) ids.push(wf.workflowId);
  return ids;
};

describe('POST /users/@me/projects/:id/reset', () => {
  it('empties the project, cancels its running executions, keeps keys, members, domains and limits, and leaves other projects alone', async () => {
    const sk = bearer(p.secretKey);
    expect(
      (
        await h.http
          .post('/contacts')
          .set(sk)
          .send({ email: uniqueEmail(), data: { plan: 'pro' } })
      ).status,
    ).toBe(201);
    // A workflow listens to the tracked event, so the event is handed to routing (one event nothing listens to is not).
    await workflowApi(h, p).build('signed-up', { mark: { type: 'UPDATE_CONTACT', config: { data: { joined: true } } } }, [['trigger', 'mark']], {
      enabled: true,
    });
    expect((await h.http.post('/v1/track').set(bearer(p.publicKey)).send({ email: uniqueEmail(), event: 'signed-up' })).status).toBe(200);
    expect((await h.http.post('/templates').set(sk).send({ name: 't', subject: 's', body: '<p>b</p>', from: 'a@p.example.com' })).status).toBe(201);
    expect(
      (
        await h.http
          .post('/v1/send')
          .set(sk)
          .send({ from: 'a@p.example.com', to: [uniqueEmail(), uniqueEmail()], subject: 's', body: 'b' })
      ).status,
    ).toBe(200);
    const upload = await h.http.post('/uploads/image').set(sk).attach('file', PNG, 'logo.png');
    expect(upload.status).toBe(201);
    expect((await h.http.put(`/users/@me/projects/${p.projectId}/billing-limits`).set('Cookie', p.cookie).send({ emails: 500 })).status).toBe(200);
    const theirSend = await h.http.post('/v1/send').set(bearer(q.secretKey)).send({ from: 'a@q.example.com', to: uniqueEmail(), subject: 's', body: 'b' });
    expect(theirSend.status).toBe(200);

    const tables = await projectTables();
    const wiped = tables.filter((t) => !KEPT_ON_RESET.has(t));
    const before = await counts(p.projectId, wiped);
    for (const t of ['contacts', 'events', 'emails', 'templates']) expect(before[t]).toBeGreaterThan(0);
    const theirsBefore = await counts(q.projectId, tables);
    const usageBefore = (await h.http.get(`/users/@me/projects/${p.projectId}/billing-consumption`).set('Cookie', p.cookie)).body.emails.used;

    // One delivery batch (both recipients of the send) and a routed event on this side, all waiting
    // for a worker; visibility catches up first.
    const mine = await eventually(async () => {
      const ids = await running(p.projectId);
      return ids.length >= 2 ? ids : null;
    });
    expect(mine.filter((id) => id.startsWith('emails-'))).toHaveLength(1);
    expect(await eventually(async () => (await running(q.projectId)).length >= 1)).toBe(true);

    const res = await h.http.post(`/users/@me/projects/${p.projectId}/reset`).set('Cookie', p.cookie);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.cancelledExecutions).toBe(mine.length);
    expect(res.body.deleted.contacts).toBe(before.contacts);
    // The counts name the tables the dashboard has words for: a table a migration adds is listed there too.
    expect(Object.keys(res.body.deleted).sort()).toEqual([...WIPED_ON_RESET].sort());

    expect(await counts(p.projectId, wiped)).toEqual(Object.fromEntries(wiped.map((t) => [t, 0])));
    expect(await counts(q.projectId, tables)).toEqual(theirsBefore);

    // Kept: keys, members, domains, limits, uploaded images (sent mail links to them), and this month's usage.
    const contacts = await h.http.get('/contacts').set(sk);
    expect(contacts.status).toBe(200);
    expect(contacts.body.data).toEqual([]);
    expect((await h.http.get(`/projects/${p.projectId}/members`).set('Cookie', p.cookie)).body.members).toHaveLength(1);
    expect(await h.deps.knex('domains').where({ project_id: p.projectId })).toHaveLength(1);
    expect((await h.http.get(`/users/@me/projects/${p.projectId}/billing-limits`).set('Cookie', p.cookie)).body.emails).toBe(500);
    expect((await h.http.get(new URL(upload.body.url).pathname)).status).toBe(200);
    expect((await h.http.get(`/users/@me/projects/${p.projectId}/billing-consumption`).set('Cookie', p.cookie)).body.emails.used).toBe(usageBefore);

    // Once a worker runs, the project's executions end cancelled and nothing of it is delivered; the bystander's mail goes out.
    await h.startWorker();
    const client = await h.deps.temporal.client();
    for (const id of mine) {
      await eventually(async () => (await client.workflow.getHandle(id).describe()).status.name === 'CANCELLED');
    }
    await eventually(async () => (await h.deps.knex('emails').where({ id: theirSend.body.data.emails[0].email }).first())?.status === 'SENT');
    await eventually(async () => (await running(p.projectId)).length === 0);
  });

  it('is refused without a session or with a malformed id', async () => {
    expect((await h.http.post(`/users/@me/projects/${p.projectId}/reset`)).status).toBe(401);
    expect((await h.http.post('/users/@me/projects/not-a-uuid/reset').set('Cookie', p.cookie)).status).toBe(404);
  });
});
