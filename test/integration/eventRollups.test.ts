import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { recordEvents } from '../../db/events';
import { deterministicUuid } from '../../lib/ids';
import { pruneEvents } from '../../db/retention';
import { deleteEventsByName, countEventsByName } from '../../db/eventQueries';
import { backfillEventRollups } from '../../db/eventRollups';
import { compileFilter, countMatching } from '../../db/filters';
import { timeseries } from '../../db/analytics';

/**
 * The event rollups of migration 059 (docs/capacity.md "Ten million contacts"): whatever writes or
 * deletes events, the per-contact rollup and the hourly counts equal what the log says, and the
 * filters and analytics that read them give the log's answers (compared with direct log queries on
 * random data, windows cut mid-hour so the log fall-back runs too).
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const knex = () => h.deps.knex;
const DAY = 86_400_000;

/** Per contact and name, as the log says and as the rollup says (same shape, sorted). */
async function perContact(projectId: string) {
  const norm = (rows: any[]) =>
    rows.map((r) => `${r.contact_id}/${r.name}: ${r.count} ${new Date(r.first_at).toISOString()} ${new Date(r.last_at).toISOString()}`).sort();
  const log = await knex().raw(
    `SELECT contact_id, name, count(*)::int AS count, min(created_at) AS first_at, max(created_at) AS last_at
       FROM events WHERE project_id = ? AND contact_id IS NOT NULL GROUP BY 1, 2`,
    [projectId],
  );
  const rollup = await knex().raw('SELECT contact_id, name, count::int AS count, first_at, last_at FROM contact_event_rollups WHERE project_id = ?', [
    projectId,
  ]);
  return { log: norm(log.rows), rollup: norm(rollup.rows) };
}

/** Per name and hour, as the log says and as the hourly counts say (slots summed, zero sums left out). */
async function perHour(projectId: string) {
  const norm = (rows: any[]) => rows.map((r) => `${r.name} ${new Date(r.hour).toISOString()}: ${r.n}`).sort();
  const log = await knex().raw(
    `SELECT name, date_trunc('hour', created_at, 'UTC') AS hour, count(*)::int AS n FROM events WHERE project_id = ? GROUP BY 1, 2`,
    [projectId],
  );
  const hourly = await knex().raw(
    'SELECT name, hour, sum(count)::int AS n FROM event_hourly_counts WHERE project_id = ? GROUP BY 1, 2 HAVING sum(count) <> 0',
    [projectId],
  );
  return { log: norm(log.rows), hourly: norm(hourly.rows) };
}

async function expectExact(projectId: string) {
  const c = await perContact(projectId);
  expect(c.rollup).toEqual(c.log);
  const hr = await perHour(projectId);
  expect(hr.hourly).toEqual(hr.log);
  return c.log.length;
}

async function contact(fx: ProjectFixture): Promise<string> {
  const id = `cnt_${crypto.randomBytes(8).toString('hex')}`;
  await knex()('contacts').insert({ id, project_id: fx.projectId, email: uniqueEmail(), data: '{}' });
  return id;
}

const ev = (fx: ProjectFixture, contactId: string | null, name: string, at: Date, id: string = crypto.randomUUID()) => ({
  id,
  project_id: fx.projectId,
  contact_id: contactId,
  name,
  data: '{}',
  created_at: at,
  routed_at: at,
});

describe('event rollups stay exact', () => {
  it('under concurrent /v1/track calls for the same contacts and names', async () => {
    const fx = await createProjectFixture(h);
    const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
    const calls = Array.from({ length: 60 }, (_, i) =>
      h.http
        .post('/v1/track')
        .set(bearer(fx.publicKey))
        .send({ email: emails[i % 3], event: i % 2 ? 'purchase' : 'login' }),
    );
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 202)).toBe(true);
    const rows = await perContact(fx.projectId);
    // Every tracked event counted once: 30 purchases and 30 logins over the three contacts.
    const total = (await knex()('contact_event_rollups').where({ project_id: fx.projectId }).whereIn('name', ['purchase', 'login']).sum({ n: 'count' }))[0].n;
    expect(Number(total)).toBe(60);
    expect(rows.rollup).toEqual(rows.log);
    await expectExact(fx.projectId);
  });

  it('under concurrent multi-row statements in opposite orders, and idempotent replays add nothing', async () => {
    const fx = await createProjectFixture(h);
    const ids = await Promise.all([contact(fx), contact(fx), contact(fx), contact(fx)]);
    const now = Date.now();
    const batches = Array.from({ length: 12 }, (_, b) => {
      const order = b % 2 ? [...ids].reverse() : ids;
      return order.flatMap((c, i) => [ev(fx, c, 'purchase', new Date(now - (b * 7 + i) * 3_600_000)), ev(fx, c, 'login', new Date(now - b * DAY))]);
    });
    await Promise.all(batches.map((rows) => knex().transaction((trx) => trx('events').insert(rows))));
    await expectExact(fx.projectId);

    // A retried writer: derived ids (lib/ids deterministicUuid), written once through the writer every service uses, then again.
    const derived = ids.map((c) => ({ id: deterministicUuid('rollup-test', fx.projectId, c), projectId: fx.projectId, contactId: c, name: 'purchase' }));
    expect(await recordEvents(knex(), derived)).toHaveLength(4);
    expect(await recordEvents(knex(), derived)).toEqual([]);
    await Promise.all([recordEvents(knex(), derived), recordEvents(knex(), derived)]);
    const purchases = await knex()('contact_event_rollups').where({ contact_id: ids[0], name: 'purchase' }).first('count');
    expect(Number(purchases.count)).toBe(13);
    await expectExact(fx.projectId);
  });

  it('when contacts are deleted or erased, and when events of a name are deleted', async () => {
    const fx = await createProjectFixture(h);
    const [a, b, keep] = await Promise.all([contact(fx), contact(fx), contact(fx)]);
    const at = (days: number) => new Date(Date.now() - days * DAY);
    await knex()('events').insert([
      ev(fx, a, 'purchase', at(1)),
      ev(fx, a, 'purchase', at(2)),
      ev(fx, b, 'login', at(3)),
      ev(fx, keep, 'purchase', at(1)),
      ev(fx, keep, 'clicked.banner', at(4)),
      ev(fx, null, 'purchase', at(1)),
    ]);
    await expectExact(fx.projectId);

    expect((await h.http.delete(`/contacts/${a}`).set(bearer(fx.secretKey))).status).toBeLessThan(300);
    expect((await h.http.delete(`/contacts/${b}?erase=true`).set(bearer(fx.secretKey))).status).toBeLessThan(300);
    expect(await knex()('contact_event_rollups').whereIn('contact_id', [a, b])).toEqual([]);
    expect(await expectExact(fx.projectId)).toBe(2);

    expect(await deleteEventsByName(knex(), fx.projectId, 'clicked.banner')).toBe(1);
    expect(await knex()('contact_event_rollups').where({ contact_id: keep, name: 'clicked.banner' })).toEqual([]);
    expect(await expectExact(fx.projectId)).toBe(1);
  });

  it('when retention deletes the oldest events: counts drop and first_at moves to the oldest left', async () => {
    const fx = await createProjectFixture(h);
    const c = await contact(fx);
    const at = (days: number) => new Date(Date.now() - days * DAY);
    const dates = [40, 35, 20, 10, 1].map(at);
    await knex()('events').insert(dates.map((d) => ev(fx, c, 'purchase', d)));
    await knex().transaction((trx) => pruneEvents(trx, fx.projectId, at(30), 100));
    const row = await knex()('contact_event_rollups').where({ contact_id: c, name: 'purchase' }).first();
    expect(Number(row.count)).toBe(3);
    expect(new Date(row.first_at).toISOString()).toBe(dates[2].toISOString());
    expect(new Date(row.last_at).toISOString()).toBe(dates[4].toISOString());
    await expectExact(fx.projectId);
  });

  it('when an update moves events (backdated, renamed, given to another contact); routing updates change nothing', async () => {
    const fx = await createProjectFixture(h);
    const [a, b] = await Promise.all([contact(fx), contact(fx)]);
    const rows = [0, 1, 2, 3].map((i) => ev(fx, a, 'purchase', new Date(Date.now() - i * 3_600_000)));
    await knex()('events').insert(rows);
    await knex()('events').where({ project_id: fx.projectId }).update({ routed_at: null });
    await expectExact(fx.projectId);
    await knex()('events')
      .where({ id: rows[0].id })
      .update({ created_at: new Date(Date.now() - 40 * DAY) });
    await expectExact(fx.projectId);
    await knex()('events').where({ id: rows[1].id }).update({ name: 'refund' });
    await knex()('events').where({ id: rows[2].id }).update({ contact_id: b });
    await knex()('events')
      .where({ project_id: fx.projectId })
      .update({ created_at: knex().raw("created_at - interval '1 day'") });
    expect(await expectExact(fx.projectId)).toBe(3);
  });

  it('the backfill rebuilds rollups that are missing or wrong, and leaves right ones alone', async () => {
    const fx = await createProjectFixture(h);
    const [a, b] = await Promise.all([contact(fx), contact(fx)]);
    await knex()('events').insert([ev(fx, a, 'purchase', new Date(Date.now() - 3 * DAY)), ev(fx, b, 'login', new Date()), ev(fx, null, 'login', new Date())]);
    // As on a database written before migration 059: no rollup rows, or stale ones.
    await knex()('contact_event_rollups').where({ contact_id: a }).del();
    await knex()('contact_event_rollups').where({ contact_id: b }).update({ count: 7 });
    await knex()('event_hourly_counts').where({ project_id: fx.projectId }).del();
    await knex()('event_hourly_counts').insert({ project_id: fx.projectId, name: 'ghost', hour: new Date(Date.now() - 3_600_000 * 5), slot: 3, count: 4 });
    await backfillEventRollups(knex());
    await expectExact(fx.projectId);
  });
});

describe('filters and analytics read the rollups and answer as the log does', () => {
  let fx: ProjectFixture;
  let contacts: string[];
  const names = ['purchase', 'login', 'view'];
  // A seeded generator: the same "random" data every run.
  let seed = 44;
  const rnd = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };

  beforeAll(async () => {
    fx = await createProjectFixture(h);
    contacts = [];
    for (let i = 0; i < 40; i++) contacts.push(await contact(fx));
    const rows = [];
    for (let i = 0; i < 600; i++) {
      const who = rnd() < 0.05 ? null : contacts[Math.floor(rnd() * rnd() * contacts.length)];
      rows.push(ev(fx, who, names[Math.floor(rnd() * names.length)], new Date(Date.now() - rnd() * rnd() * 120 * DAY)));
    }
    // Several statements, as writers would send them.
    for (let i = 0; i < rows.length; i += 97) await knex()('events').insert(rows.slice(i, i + 97));
  });

  /** Contacts of the project matching a predicate over their events of one name, straight from the log. */
  const logCount = async (having: string, name: string, bindings: number[] = []) =>
    Number(
      (
        await knex().raw(
          `SELECT count(*) AS n FROM contacts c WHERE c.project_id = ? AND (
             SELECT ${having} FROM events e WHERE e.contact_id = c.id AND e.name = ?)`,
          [fx.projectId, ...bindings, name],
        )
      ).rows[0].n,
    );

  const one = (filter: Record<string, unknown>) => ({ logic: 'AND', groups: [{ filters: [filter] }] });

  /** The count with the tree compiled for a few contacts (`scope: 'few'`, as a sample or a compute chunk asks). */
  const countFew = async (tree: unknown) => {
    const { sql, bindings } = compileFilter(tree, { fieldTypes: {}, scope: 'few' });
    const { rows } = await knex().raw(`SELECT count(*) AS n FROM contacts c WHERE c.project_id = ? AND (${sql})`, [fx.projectId, ...bindings]);
    return Number(rows[0].n);
  };

  it('event filters: triggered, within, olderThan, counts and their combinations', async () => {
    await expectExact(fx.projectId);
    for (const name of names) {
      const count = (f: Record<string, unknown>) => countMatching(knex(), fx.projectId, one({ field: `event.${name}`, ...f }));
      expect(await count({ operator: 'triggered' })).toBe(await logCount('count(*) > 0', name));
      expect(await count({ operator: 'notTriggered' })).toBe(await logCount('count(*) = 0', name));
      expect(await count({ operator: 'within', value: 30, unit: 'days' })).toBe(
        await logCount("coalesce(max(e.created_at) >= now() - interval '30 days', false)", name),
      );
      expect(await count({ operator: 'olderThan', value: 90, unit: 'days' })).toBe(
        await logCount("coalesce(max(e.created_at) < now() - interval '90 days', false)", name),
      );
      expect(await count({ operator: 'notWithin', value: 90, unit: 'days' })).toBe(
        await logCount("NOT coalesce(max(e.created_at) >= now() - interval '90 days', false)", name),
      );
      for (const [n, days] of [
        [1, 30],
        [3, 30],
        [2, 7],
        [5, 100],
      ]) {
        const filter = { field: `event.${name}`, operator: 'atLeastWithin', value: { atLeast: n, within: days }, unit: 'days' };
        const expected = await logCount("count(*) FILTER (WHERE e.created_at >= now() - ? * interval '1 day') >= ?", name, [days, n]);
        // Both forms of the windowed count (db/filters/sql.ts Scope): the window grouped once, and per candidate contact.
        expect(await count(filter)).toBe(expected);
        expect(await countFew(one(filter))).toBe(expected);
      }
      for (const n of [0, 1, 3, 10]) {
        expect(await count({ operator: 'greaterThanOrEqual', value: n })).toBe(await logCount('count(*) >= ?', name, [n]));
        expect(await count({ operator: 'equals', value: n })).toBe(await logCount('count(*) = ?', name, [n]));
        expect(await count({ operator: 'lessThan', value: n })).toBe(await logCount('count(*) < ?', name, [n]));
      }
    }
    // "bought at least 3 times and recently, and has not logged in for 90 days", through the API.
    const tree = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'event.purchase', operator: 'greaterThanOrEqual', value: 3 },
            { field: 'event.purchase', operator: 'within', value: 30, unit: 'days' },
          ],
        },
        {
          filters: [],
          conditions: {
            logic: 'OR',
            groups: [
              { filters: [{ field: 'event.login', operator: 'olderThan', value: 90, unit: 'days' }] },
              { filters: [{ field: 'event.login', operator: 'notTriggered' }] },
            ],
          },
        },
      ],
    };
    const expected = Number(
      (
        await knex().raw(
          `SELECT count(*) AS n FROM contacts c WHERE c.project_id = ?
             AND (SELECT count(*) FROM events e WHERE e.contact_id = c.id AND e.name = 'purchase') >= 3
             AND EXISTS (SELECT 1 FROM events e WHERE e.contact_id = c.id AND e.name = 'purchase' AND e.created_at >= now() - interval '30 days')
             AND coalesce((SELECT max(created_at) FROM events e WHERE e.contact_id = c.id AND e.name = 'login') < now() - interval '90 days', true)`,
          [fx.projectId],
        )
      ).rows[0].n,
    );
    expect(await countMatching(knex(), fx.projectId, tree)).toBe(expected);
    const res = await h.http.post('/contacts/count').set(bearer(fx.secretKey)).send({ condition: tree });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(expected);
  });

  it('top events and timeseries over windows cut mid-hour, and a window that ends in the past', async () => {
    const now = Date.now();
    const windows: Array<[Date, Date]> = [
      [new Date(now - 30 * DAY - 1_234_567), new Date(now)],
      [new Date(now - 100 * DAY + 777_000), new Date(now - 3 * DAY - 555_000)],
      [new Date(now - 2 * DAY - 1_000), new Date(now - 2 * DAY + 1_800_000)],
    ];
    for (const [from, to] of windows) {
      const { rows: log } = await knex().raw(
        `SELECT name, count(*)::int AS count, count(DISTINCT contact_id)::int AS "uniqueContacts"
           FROM events WHERE project_id = ? AND created_at >= ? AND created_at < ? GROUP BY name ORDER BY 2 DESC, 1`,
        [fx.projectId, from, to],
      );
      expect(await countEventsByName(knex(), { projectId: fx.projectId, from, to, limit: 10 })).toEqual(log);
      expect(await countEventsByName(knex(), { projectId: fx.projectId, from, to, limit: 10, excludeNames: ['view'] })).toEqual(
        log.filter((r: { name: string }) => r.name !== 'view'),
      );
      for (const interval of ['hour', 'day'] as const) {
        const points = await timeseries(knex(), { projectId: fx.projectId, type: 'event', interval, from, to });
        const { rows: byBucket } = await knex().raw(
          `SELECT date_trunc('${interval}', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS t, count(*)::int AS n
             FROM events WHERE project_id = ? AND created_at >= ? AND created_at < ? GROUP BY 1`,
          [fx.projectId, from, to],
        );
        const expected = new Map(byBucket.map((r: { t: Date; n: number }) => [new Date(r.t).getTime(), r.n]));
        expect(points.filter((p) => p.count > 0).map((p) => [new Date(p.t).getTime(), p.count])).toEqual(
          [...expected.entries()].sort((x, y) => Number(x[0]) - Number(y[0])),
        );
      }
    }
  });
});
