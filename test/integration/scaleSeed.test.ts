import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../../db/knex';
import {
  BULK_TABLES,
  countRollups,
  dropPrimaryKey,
  dropSecondary,
  primaryKeyOf,
  restorePrimaryKey,
  restoreSecondary,
  schemaOf,
  secondaryOf,
  seedContacts,
  seedEvents,
  seedEventsUncounted,
  SeedTarget,
} from '../../bench/scaleSeed';

/**
 * bench/scale.ts's bulk seed (docs/benchmarks.md "10,000,000 contacts / 50,000,000 events") must
 * leave what the reads see as the triggers would: the same seed written through the rollup triggers
 * into one project and in bulk (indexes and foreign keys dropped, triggers off, rollups counted from
 * the log) into another gives the same rollups, row for row, and the tables' indexes and foreign
 * keys as the migrations made them. Its own database: the bulk path drops indexes other test files
 * would be using.
 */

const CONTACTS = 300;
const EVENTS = 5000;

let knex: Knex;
let url: string;
beforeAll(async () => {
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/svc_test_scaleseed_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  url = base.toString();
  await ensureDatabase(url);
  knex = createKnex(url, { max: 4 });
  await migrateLatest(knex);
}, 180_000);
afterAll(async () => {
  await knex?.destroy();
  if (url) await dropDatabase(url).catch(() => undefined);
});

async function project(): Promise<string> {
  const id = crypto.randomUUID();
  const key = () => crypto.randomBytes(16).toString('hex');
  await knex('projects').insert({ id, name: 'seed', public_key_hash: key(), secret_key_hash: key(), public_key_last4: 'abcd', secret_key_last4: 'abcd' });
  return id;
}

/** Rows of one project's rollup not in the other's (contacts matched by email: the two projects' contact ids differ). */
async function rollupsOnlyIn(a: string, b: string) {
  const side = (p: string) =>
    `SELECT c.email, r.name, r.count, r.first_at, r.last_at FROM contact_event_rollups r JOIN contacts c ON c.id = r.contact_id WHERE r.project_id = '${p}'`;
  return (await knex.raw(`${side(a)} EXCEPT ${side(b)}`)).rows;
}

/** Hours of one project's counts not in the other's: slots summed (the trigger spreads an hour over backend-pid slots; readers sum them). */
async function hoursOnlyIn(a: string, b: string) {
  const side = (p: string) => `SELECT name, hour, sum(count) AS n FROM event_hourly_counts WHERE project_id = '${p}' GROUP BY 1, 2 HAVING sum(count) <> 0`;
  return (await knex.raw(`${side(a)} EXCEPT ${side(b)}`)).rows;
}

test('the bulk seed gives the rollups and hourly counts the triggers give, and puts every index, primary key and foreign key back', async () => {
  const anchor = new Date().toISOString();
  const triggered: SeedTarget = { projectId: await project(), label: 'seed', offset: 0, contacts: CONTACTS, anchor };
  const bulk: SeedTarget = { projectId: await project(), label: 'seed', offset: 100_000, contacts: CONTACTS, anchor };

  // Through the triggers, in uneven chunks so rollup rows are upserted across statements.
  await seedContacts(knex, triggered, 0, CONTACTS);
  for (const [lo, hi] of [
    [0, 1234],
    [1234, 4000],
    [4000, EVENTS],
  ])
    await seedEvents(knex, triggered, lo, hi);

  const before = await Promise.all(BULK_TABLES.map((t) => schemaOf(knex, t)));
  const unloaded = await Promise.all(BULK_TABLES.map((t) => secondaryOf(knex, t)));
  expect(unloaded.find((u) => u.table === 'events')!.indexes.length).toBeGreaterThan(0);
  for (const u of unloaded) await dropSecondary(knex, u);
  const key = await primaryKeyOf(knex, 'events');
  expect(key.children.length).toBeGreaterThan(1);
  await dropPrimaryKey(knex, key);
  expect(await schemaOf(knex, 'events')).not.toEqual(before[BULK_TABLES.indexOf('events')]);

  await seedContacts(knex, bulk, 0, CONTACTS);
  await knex.transaction((trx) => seedEventsUncounted(trx, bulk, 0, 2500));
  await knex.transaction((trx) => seedEventsUncounted(trx, bulk, 2500, EVENTS));
  // The trigger was off: nothing counted yet.
  expect(Number((await knex('contact_event_rollups').where({ project_id: bulk.projectId }).count('* as n'))[0].n)).toBe(0);
  await restoreSecondary(knex, unloaded[0], 2);
  await restoreSecondary(knex, unloaded[1], 2, undefined, restorePrimaryKey(knex, key, 2));
  await knex.transaction((trx) => countRollups(trx, bulk.projectId));
  await restoreSecondary(knex, unloaded[2], 2);

  expect(await Promise.all(BULK_TABLES.map((t) => schemaOf(knex, t)))).toEqual(before);
  const rollupRows = Number((await knex('contact_event_rollups').where({ project_id: triggered.projectId }).count('* as n'))[0].n);
  expect(rollupRows).toBeGreaterThan(CONTACTS);
  expect(Number((await knex('contact_event_rollups').where({ project_id: bulk.projectId }).count('* as n'))[0].n)).toBe(rollupRows);
  expect(await rollupsOnlyIn(triggered.projectId, bulk.projectId)).toEqual([]);
  expect(await rollupsOnlyIn(bulk.projectId, triggered.projectId)).toEqual([]);
  expect(await hoursOnlyIn(triggered.projectId, bulk.projectId)).toEqual([]);
  expect(await hoursOnlyIn(bulk.projectId, triggered.projectId)).toEqual([]);

  // The triggers are on again: an event written now is counted.
  const contactId = (await knex('contacts').where({ project_id: bulk.projectId }).first('id')).id;
  const was = await knex('contact_event_rollups').where({ contact_id: contactId, name: 'login' }).first('count');
  await knex('events').insert({ id: crypto.randomUUID(), project_id: bulk.projectId, contact_id: contactId, name: 'login', data: '{}' });
  const now = await knex('contact_event_rollups').where({ contact_id: contactId, name: 'login' }).first('count');
  expect(Number(now.count)).toBe(Number(was?.count ?? 0) + 1);
}, 180_000);
