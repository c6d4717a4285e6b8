import type { Knex } from 'knex';
import { startPrivatePostgres, type PrivatePostgres } from '../cluster/privatePostgres';
import { startStreamingReplica, type StreamingReplica } from '../helpers/streamingReplica';
import { bearer, createProjectFixture, eventually, startHarness, type Harness, type ProjectFixture } from '../helpers/harness';
import { createKnex, ensureDatabase, migrateLatest } from '../../db/knex';
import { ReplicaSet, withWriteScope } from '../../db/replicas';
import { upsertContact } from '../../db/contactWriters';
import { heavyReader } from '../../services/reads';

/**
 * DATABASE_REPLICA_URL for real (docs/capacity.md "Read replicas"): a Postgres of the test's own
 * (never the machine's server, which other runs share and whose size a base copy would have to
 * carry) with a streaming replica made by pg_basebackup. Which server answered is told by the data:
 * with the replica's replay paused, a contact written since exists on the primary only.
 */
jest.setTimeout(180_000);

const DB = 'svc_replicas';
let primary: PrivatePostgres | undefined;
let replica: StreamingReplica | undefined;
let h: Harness;
let p: ProjectFixture;
/** A pool of its own: its writes are no request's, so they send no read to the primary. */
let side: Knex;
let replicaKnex: Knex;
let reader: ReplicaSet | undefined;

const useReader = async (maxLagMs: number) => {
  await reader?.destroy();
  reader = new ReplicaSet(h.deps.knex, [replica!.url(DB)], { maxLagMs, checkEveryMs: 50, pool: { max: 4 } });
  h.deps.reader = reader;
};

const listedTotal = async () => {
  const res = await h.http.get('/contacts').set(bearer(p.secretKey));
  expect(res.status).toBe(200);
  return res.body.total as number;
};
const countedAll = async () => {
  const res = await h.http
    .post('/contacts/count')
    .set(bearer(p.secretKey))
    .send({ condition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'contains', value: '@example.test' }] }] } });
  expect(res.status).toBe(200);
  return res.body.count as number;
};
const contactsOn = async (knex: Knex) => Number((await knex('contacts').where({ project_id: p.projectId }).count({ n: '*' }))[0].n);
const addContact = (email: string) => upsertContact(side, { projectId: p.projectId, email, defaultSubscribed: true });
const portOf = async (knex: Knex) => (await knex.raw('select inet_server_port() as port')).rows[0].port as number;

beforeAll(async () => {
  primary = await startPrivatePostgres();
  await ensureDatabase(primary.url(DB));
  const migrator = createKnex(primary.url(DB), { max: 1 });
  await migrateLatest(migrator).finally(() => migrator.destroy());
  replica = await startStreamingReplica(primary.port);
  h = await startHarness({ env: { DATABASE_URL: primary.url(DB) } });
  side = createKnex(primary.url(DB), { max: 2 });
  replicaKnex = createKnex(replica.url(DB), { max: 2 });
  p = await createProjectFixture(h, 'Replicated');
});

afterAll(async () => {
  await reader?.destroy();
  await replicaKnex?.destroy();
  await side?.destroy();
  await h?.stop();
  replica?.destroy();
  primary?.destroy();
});

test('heavy reads go to a fresh replica; a request that wrote reads the primary; a lagging replica is skipped', async () => {
  await useReader(60_000);
  await addContact('one@example.test');
  await eventually(async () => (await contactsOn(replicaKnex)) === 1);

  // Replay paused, then a second contact on the primary only: the replica says 1, the primary 2.
  await replicaKnex.raw('select pg_wal_replay_pause()');
  await eventually(async () => (await replicaKnex.raw('select pg_get_wal_replay_pause_state() as s')).rows[0].s === 'paused');
  await addContact('two@example.test');
  expect(await contactsOn(h.deps.knex)).toBe(2);
  expect(await contactsOn(replicaKnex)).toBe(1);

  // Within REPLICA_MAX_LAG_MS (60 s here): the list and the count are the replica's.
  expect(await listedTotal()).toBe(1);
  expect(await countedAll()).toBe(1);

  // Read-your-writes in one scope: after a write, the heavy read runs on the primary.
  const [before, after] = await withWriteScope(p.projectId, async () => {
    const first = await heavyReader(h.deps, p.projectId);
    await upsertContact(h.deps.knex, { projectId: p.projectId, email: 'three@example.test', defaultSubscribed: true });
    return [first, await heavyReader(h.deps, p.projectId)];
  });
  expect(await portOf(before)).toBe(replica!.port);
  expect(await portOf(after)).toBe(primary!.port);
  expect(await contactsOn(after)).toBe(3);

  // Across requests: the project just wrote through the API, so its next list reads the primary.
  const created = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email: 'four@example.test' });
  expect(created.status).toBe(201);
  expect(await listedTotal()).toBe(4);

  // A new process's view (no recent write) with a 300 ms lag budget: the paused replica falls
  // behind past it, and reads go to the primary until replay resumes.
  await useReader(300);
  await eventually(async () => (await reader!.choose(p.projectId)).reason === 'lag');
  expect(await listedTotal()).toBe(4);
  expect(await countedAll()).toBe(4);

  await replicaKnex.raw('select pg_wal_replay_resume()');
  // Within its budget a replica may still lack the last 300 ms of commits (that is what the budget
  // allows), so the list is compared once replay has caught up with them.
  await eventually(async () => (await contactsOn(replicaKnex)) === 4);
  await eventually(async () => (await reader!.choose(p.projectId)).target === 'replica');
  expect(await portOf((await reader!.choose(p.projectId)).knex)).toBe(replica!.port);
  expect(await listedTotal()).toBe(4);
});

test('an unreachable replica sends reads to the primary', async () => {
  await useReader(60_000);
  const chosen = await reader!.choose(p.projectId);
  expect(chosen.target).toBe('replica');
  replica!.destroy();
  const dead = replica!;
  replica = undefined;
  await reader!.destroy();
  reader = new ReplicaSet(h.deps.knex, [dead.url(DB)], { maxLagMs: 60_000, checkEveryMs: 50, pool: { max: 1 } });
  h.deps.reader = reader;
  expect((await reader.choose(p.projectId)).reason).toBe('lag');
  expect(await listedTotal()).toBe(4);
});
