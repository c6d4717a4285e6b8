import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../../db/knex';
import { dropExpiredEventPartitions, ensureEventPartitions, eventPartitions } from '../../db/eventPartitions';
import { recordEvent, recordEvents } from '../../db/events';
import { deterministicUuid } from '../../lib/ids';
import { dropExpiredPartitions } from '../../services/retention';

/**
 * The monthly events partitions (docs/capacity.md "Events partitioned by month"): created ahead,
 * idempotently, with stragglers of the DEFAULT partition moved in; dropped whole by retention only
 * when every project with rows in them is past its window, keeping the rows retention never deletes.
 * A database of its own: the months are set in the past, which the shared database's
 * pre-partitioning range (MINVALUE to the month after next) covers.
 */

let url: string;
let knex: Knex;

beforeAll(async () => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${u.pathname.slice(1)}_parts_${crypto.randomBytes(3).toString('hex')}`;
  url = u.toString();
  await ensureDatabase(url);
  knex = createKnex(url);
  await migrateLatest(knex);
  // Empty here: without it the months below are free for partitions of their own.
  await knex.raw('DROP TABLE events_unpartitioned');
});
afterAll(async () => {
  await knex?.destroy();
  if (url) await dropDatabase(url);
});

const at = (iso: string) => new Date(iso);

async function project(): Promise<string> {
  const id = crypto.randomUUID();
  await knex.raw(`INSERT INTO projects (id, name, public_key_hash, secret_key_hash, public_key_last4, secret_key_last4) VALUES (?, 'p', ?, ?, 'x', 'y')`, [
    id,
    crypto.randomUUID(),
    crypto.randomUUID(),
  ]);
  return id;
}

async function event(projectId: string, createdAt: string, opts: { name?: string; routed?: boolean; contactId?: string } = {}): Promise<string> {
  const id = crypto.randomUUID();
  await knex('events').insert({
    id,
    project_id: projectId,
    contact_id: opts.contactId ?? null,
    name: opts.name ?? 'seen',
    data: '{}',
    created_at: at(createdAt),
    routed_at: opts.routed === false ? null : at(createdAt),
  });
  return id;
}

/** The event rollups (migrations 059, 060) against the log, over this database's every event. */
async function expectRollupsExact() {
  const q = async (sql: string) => (await knex.raw(sql)).rows.map((r: any) => JSON.stringify(r)).sort();
  expect(await q('SELECT contact_id, name, count::int AS n, first_at, last_at FROM contact_event_rollups')).toEqual(
    await q(
      'SELECT contact_id, name, count(*)::int AS n, min(created_at) AS first_at, max(created_at) AS last_at FROM events WHERE contact_id IS NOT NULL GROUP BY 1, 2',
    ),
  );
  expect(await q('SELECT project_id, name, hour, sum(count)::int AS n FROM event_hourly_counts GROUP BY 1, 2, 3 HAVING sum(count) <> 0')).toEqual(
    await q(`SELECT project_id, name, date_trunc('hour', created_at, 'UTC') AS hour, count(*)::int AS n FROM events GROUP BY 1, 2, 3`),
  );
}

const where = async (id: string) => (await knex.raw('SELECT tableoid::regclass::text AS part FROM events WHERE id = ?', [id])).rows[0]?.part;
const names = async () => (await eventPartitions(knex)).map((p) => p.name);

it('creates this month and the next ones once, and moves rows the DEFAULT partition caught into their month', async () => {
  const p = await project();
  const created = await ensureEventPartitions(knex, 2, at('2025-01-15T12:00:00Z'));
  expect(created).toEqual(['events_y2025m01', 'events_y2025m02', 'events_y2025m03']);
  expect(await ensureEventPartitions(knex, 2, at('2025-01-20T00:00:00Z'))).toEqual([]);

  // The sweep fell behind: a row for May has no partition yet and lands in DEFAULT.
  const straggler = await event(p, '2025-05-10T08:00:00Z');
  expect(await where(straggler)).toBe('events_default');
  expect(await ensureEventPartitions(knex, 1, at('2025-04-30T23:00:00Z'))).toEqual(['events_y2025m04', 'events_y2025m05']);
  expect(await where(straggler)).toBe('events_y2025m05');
  // Moved through the parent: counted once in the event rollups.
  await expectRollupsExact();
  expect(await names()).toEqual(
    expect.arrayContaining(['events_y2025m01', 'events_y2025m02', 'events_y2025m03', 'events_y2025m04', 'events_y2025m05', 'events_default']),
  );
});

it('drops a month every project with rows in it is past, keeping unrouted and contact.unsubscribed rows; other months stay', async () => {
  await ensureEventPartitions(knex, 4, at('2024-06-01T00:00:00Z'));
  const short = await project(); // events window ends 2024-09-15
  const keepsAll = await project(); // no events retention: absent from the cutoffs
  const cutoffs = new Map([[short, at('2024-09-15T00:00:00Z')]]);
  const now = at('2024-10-20T00:00:00Z');

  // June: only `short`'s rows, all past its window (one of a contact, whose July event stays).
  const contactId = `cnt_${crypto.randomBytes(8).toString('hex')}`;
  await knex('contacts').insert({ id: contactId, project_id: short, email: `${contactId}@example.test`, data: '{}' });
  const june = [await event(short, '2024-06-03T00:00:00Z', { contactId }), await event(short, '2024-06-20T00:00:00Z', { contactId })];
  await event(short, '2024-07-05T00:00:00Z', { contactId });
  const unrouted = await event(short, '2024-06-21T00:00:00Z', { routed: false });
  const unsubscribed = await event(short, '2024-06-22T00:00:00Z', { name: 'contact.unsubscribed' });
  // July: a row of a project that keeps everything.
  const july = [await event(short, '2024-07-03T00:00:00Z'), await event(keepsAll, '2024-07-04T00:00:00Z')];
  // September: `short`'s window ends inside it.
  const september = await event(short, '2024-09-20T00:00:00Z');

  const dropped = await dropExpiredEventPartitions(knex, cutoffs, now);
  // August was empty and past: nothing keeps it either.
  expect(dropped).toEqual([
    { name: 'events_y2024m06', kept: 2 },
    { name: 'events_y2024m08', kept: 0 },
  ]);
  expect(await names()).not.toContain('events_y2024m06');
  for (const id of june) expect(await where(id)).toBeUndefined();
  expect(await where(unrouted)).toBe('events_default');
  expect(await where(unsubscribed)).toBe('events_default');
  for (const id of july) expect(await where(id)).toBe('events_y2024m07');
  expect(await where(september)).toBe('events_y2024m09');
  // October is not over: never dropped, however empty.
  expect(await names()).toEqual(expect.arrayContaining(['events_y2024m07', 'events_y2024m09', 'events_y2024m10']));

  // The dropped rows left the event rollups; the kept ones are counted once.
  await expectRollupsExact();

  // Running again changes nothing more.
  expect(await dropExpiredEventPartitions(knex, cutoffs, now)).toEqual([]);
});

it('writes an event of a derived id once, however often its writer retries (no unique id index on a partitioned table)', async () => {
  const p = await project();
  const id = deterministicUuid('partition-test', crypto.randomUUID());
  const first = await recordEvents(knex, [{ id, projectId: p, contactId: null, name: 'derived' }]);
  expect(first.map((e) => e.id)).toEqual([id]);
  // A retry later (another created_at, so the (id, created_at) key would not stop it), and the same id twice in one batch.
  expect(await recordEvents(knex, [{ id, projectId: p, contactId: null, name: 'derived' }])).toEqual([]);
  const other = deterministicUuid('partition-test', crypto.randomUUID());
  const batch = await recordEvents(knex, [
    { id: other, projectId: p, contactId: null, name: 'derived' },
    { id: other, projectId: p, contactId: null, name: 'derived' },
  ]);
  expect(batch.map((e) => e.id)).toEqual([other]);
  expect((await recordEvent(knex, { id, projectId: p, contactId: null, name: 'derived' })).created_at).toEqual(first[0].created_at);
  const [{ n }] = (await knex.raw('SELECT count(*)::int AS n FROM events WHERE id = ANY(?::uuid[])', [[id, other]])).rows;
  expect(n).toBe(2);
});

it("retention's drop reads each project's events window from its settings", async () => {
  await ensureEventPartitions(knex, 2, at('2023-01-01T00:00:00Z'));
  const p = await project();
  await knex('projects')
    .where({ id: p })
    .update({ retention: JSON.stringify({ eventsDays: 30 }) });
  // Other projects of this database keep every event but have no rows in 2023.
  const january = await event(p, '2023-01-10T00:00:00Z');
  const february = await event(p, '2023-02-20T00:00:00Z'); // after the cutoff (2023-02-13)
  const dropped = await dropExpiredPartitions(knex, { timeScale: 1, now: Date.parse('2023-03-15T00:00:00Z') });
  expect(dropped.map((d) => d.name)).toEqual(['events_y2023m01']);
  expect(await where(january)).toBeUndefined();
  expect(await where(february)).toBe('events_y2023m02');
});
