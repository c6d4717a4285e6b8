import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { contactTimeline } from '../../db/contactTimeline';
import { upsertContact } from '../../db/contactWriters';
import { deleteProject } from '../../db/projects';
import { recordEvents } from '../../db/events';
import { addMembers, createSegment, membershipEventId, SegmentRow } from '../../db/segments';
import * as computeHistoryFromEvents from '../../db/migrations/078_compute_history_from_events';
import { beginCompute, computeBatch, finishCompute } from '../../db/segmentCompute';
import { MockActivityEnvironment } from '@temporalio/testing';
import { segmentActivities } from '../../activities/segments';

/**
 * The set-based compute (db/segmentCompute.ts) against a naive answer kept in this file: random
 * contacts, a condition on data and on events, random chunk sizes, several rounds of random
 * changes; each round's memberCount, entered and exited, the stored members, the events and the
 * history rows must be exactly what the sets say.
 */
let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h);
});
afterAll(() => h?.stop());

interface Person {
  id: string;
  email: string;
  n: number;
  bought: boolean;
}

const rand = (k: number) => crypto.randomInt(k);
/** The naive rule, as the condition below states it: n < 4, or bought, but never n = 9. */
const matches = (x: Person) => (x.n < 4 || x.bought) && x.n !== 9;

async function person(tag: string): Promise<Person> {
  const x = { email: uniqueEmail(), n: rand(10), bought: rand(3) === 0 };
  const { contact } = await upsertContact(h.deps.knex, { projectId: p.projectId, email: x.email, data: { tag, n: x.n }, defaultSubscribed: true });
  if (x.bought) await recordEvents(h.deps.knex, [{ projectId: p.projectId, contactId: contact.id, name: `buy-${tag}` }]);
  return { ...x, id: contact.id };
}

/** A compute run as the activity drives it: its lanes side by side, each chunk after chunk until walked. */
async function compute(segment: SegmentRow, chunk: number, lanes = 1) {
  const runId = `segment-${segment.id}-${crypto.randomUUID()}`;
  const begun = await beginCompute(h.deps.knex, segment.id, runId, { lanes, batchSize: chunk });
  let chunks = 0;
  let routable = 0;
  await Promise.all(
    begun.map(async (lane) => {
      for (let done = false; !done; chunks++) {
        const out = await computeBatch(h.deps.knex, runId, chunk, lane);
        done = out.done;
        routable += out.events.length;
      }
    }),
  );
  return { runId, chunks, routable, lanes: begun.length, result: await finishCompute(h.deps.knex, runId) };
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

describe('segment compute, set-based', () => {
  it('matches a naive diff on random data over several rounds: counts, members, events and what the timeline tells', async () => {
    const tag = `t${crypto.randomBytes(4).toString('hex')}`;
    const people: Person[] = [];
    for (let i = 0; i < 120; i++) people.push(await person(tag));
    const segment = await createSegment(h.deps.knex, p.projectId, {
      name: `Random ${tag}`,
      type: 'DYNAMIC',
      trackMembership: true,
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.tag', operator: 'equals', value: tag },
              { field: 'data.n', operator: 'notEquals', value: 9 },
            ],
            conditions: {
              logic: 'OR',
              groups: [{ filters: [{ field: 'data.n', operator: 'lessThan', value: 4 }] }, { filters: [{ field: `event.buy-${tag}`, operator: 'triggered' }] }],
            },
          },
        ],
      },
    });
    const entryName = `segment.${segment.slug}.entry`;
    const exitName = `segment.${segment.slug}.exit`;
    let before = new Set<string>();

    for (let round = 0; round < 4; round++) {
      if (round > 0) {
        // Random changes: new values for some, new contacts, new purchases.
        for (const x of people.filter(() => rand(3) === 0)) {
          x.n = rand(10);
          await upsertContact(h.deps.knex, { projectId: p.projectId, email: x.email, data: { n: x.n }, defaultSubscribed: true });
        }
        for (const x of people.filter((y) => !y.bought && rand(8) === 0)) {
          x.bought = true;
          await recordEvents(h.deps.knex, [{ projectId: p.projectId, contactId: x.id, name: `buy-${tag}` }]);
        }
        for (let i = 0; i < 10; i++) people.push(await person(tag));
      }
      const expected = new Set(people.filter(matches).map((x) => x.id));
      const entered = [...expected].filter((id) => !before.has(id));
      const exited = [...before].filter((id) => !expected.has(id));

      // Chunks and lanes that cut the project's contacts anywhere (other tests' contacts share the project);
      // a chunk no larger than a lane's share, as beginCompute cuts no lane smaller than one chunk.
      const contacts = Number((await h.deps.knex('contacts').where({ project_id: p.projectId }).count<{ n: string }[]>('* as n'))[0].n);
      const lanes = 1 + (round % 3);
      const chunk = 1 + rand(Math.min(60, Math.floor(contacts / lanes)));
      const { runId, chunks, routable, lanes: walkedIn, result } = await compute(segment, chunk, lanes);
      expect(chunks).toBeGreaterThan(1);
      expect(walkedIn).toBe(lanes);
      expect(result).toEqual({ memberCount: expected.size, entered: entered.length, exited: exited.length });
      // Nothing listens to these names: every event is written already routed, none handed to routing.
      expect(routable).toBe(0);

      const members = await h.deps.knex('segment_members').where({ segment_id: segment.id }).pluck('contact_id');
      expect(sorted(members)).toEqual(sorted(expected));

      const events = await h.deps
        .knex('events')
        .where({ project_id: p.projectId })
        .whereIn('name', [entryName, exitName])
        .whereRaw("data->>'computeId' = ?", [runId]);
      const byName = (name: string) => sorted(events.filter((e: any) => e.name === name).map((e: any) => e.contact_id));
      expect(byName(entryName)).toEqual(sorted(entered));
      expect(byName(exitName)).toEqual(sorted(exited));
      for (const e of events) {
        // The ids SQL derives are the ones Node derives (lib/ids deterministicUuidSql).
        expect(e.id).toBe(membershipEventId(segment.id, e.contact_id, runId, e.name === entryName ? 'entry' : 'exit'));
        expect(e.routed_at).not.toBeNull();
        expect(e.data).toEqual({ segmentId: segment.id, segmentName: segment.name, computeId: runId });
      }

      // The events are the record of the change: the contact's timeline tells each one (segment kind, cause compute).
      for (const [id, change] of [...entered.map((x) => [x, 'entered']), ...exited.map((x) => [x, 'exited'])].slice(0, 4)) {
        const told = (await contactTimeline(h.deps.knex, { projectId: p.projectId, contactId: id, limit: 100, kinds: ['segment'] })).rows.filter(
          (r: any) => r.segment_id === segment.id && r.at.getTime() === events.find((e: any) => e.contact_id === id).created_at.getTime(),
        );
        expect(told.map((r: any) => ({ change: r.change === 'entry' ? 'entered' : 'exited', source: r.source, name: r.segment_name }))).toEqual([
          { change, source: 'compute', name: segment.name },
        ]);
      }

      expect((await h.deps.knex('segments').where({ id: segment.id }).first('member_count')).member_count).toBe(expected.size);
      before = expected;
    }
    // A compute writes no second record of a change (migration 078): no history rows for the segment.
    const [{ n: historyRows }] = await h.deps.knex('segment_membership_changes').where({ segment_id: segment.id }).count('* as n');
    expect(Number(historyRows)).toBe(0);
  });

  it('resumes a run begun before lanes as one lane from its cursor, with its counters (migration 079)', async () => {
    const tag = `r${crypto.randomBytes(4).toString('hex')}`;
    const people: Person[] = [];
    for (let i = 0; i < 12; i++) people.push(await person(tag));
    const segment = await createSegment(h.deps.knex, p.projectId, {
      name: `Resumed ${tag}`,
      type: 'DYNAMIC',
      trackMembership: true,
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.tag', operator: 'equals', value: tag }] }] },
    });
    const ids = sorted(people.map((x) => x.id));
    const cursor = ids[5];
    const runId = `segment-${segment.id}-${crypto.randomUUID()}`;
    // As a run left it before migration 079: walked up to `cursor`, 3 entered so far, still RUNNING.
    await h.deps.knex('segment_computes').insert({ id: runId, segment_id: segment.id, cursor, entered: 3 });
    expect(await beginCompute(h.deps.knex, segment.id, runId, { lanes: 4, batchSize: 2 })).toEqual([0]);
    while (!(await computeBatch(h.deps.knex, runId, 2, 0)).done);
    const after = ids.filter((id) => id > cursor);
    expect(await finishCompute(h.deps.knex, runId)).toEqual({ memberCount: after.length, entered: 3 + after.length, exited: 0 });
    expect(sorted(await h.deps.knex('segment_members').where({ segment_id: segment.id }).pluck('contact_id'))).toEqual(after);
  });

  it('the activity walks its lanes side by side and resumes each from its row after a failure', async () => {
    const q = await createProjectFixture(h, 'compute-lanes');
    const emails = Array.from({ length: 14 }, () => uniqueEmail());
    for (const [i, email] of emails.entries()) await upsertContact(h.deps.knex, { projectId: q.projectId, email, data: { i }, defaultSubscribed: true });
    const segment = await createSegment(h.deps.knex, q.projectId, {
      name: 'Lanes',
      type: 'DYNAMIC',
      trackMembership: true,
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.i', operator: 'lessThan', value: 10 }] }] },
    });
    const runId = `segment-${segment.id}-${crypto.randomUUID()}`;
    const run = () => new MockActivityEnvironment().run(segmentActivities(h.deps).computeSegment, { segmentId: segment.id, runId, batchSize: 3 });
    // The second lane's first chunk fails once (its cursor's update raises): the attempt fails, the retry finishes both lanes.
    const seq = `fail_lane_${crypto.randomBytes(6).toString('hex')}`;
    await h.deps.knex.raw(`CREATE SEQUENCE ${seq}`);
    await h.deps.knex.raw(`CREATE FUNCTION ${seq}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('${seq}') = 1 THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await h.deps.knex.raw(
      `CREATE TRIGGER ${seq} BEFORE UPDATE ON segment_compute_lanes FOR EACH ROW WHEN (NEW.run_id = '${runId}' AND NEW.lane = 1) EXECUTE FUNCTION ${seq}()`,
    );
    try {
      await expect(run()).rejects.toThrow('injected failure');
      expect(await h.deps.knex('segment_compute_lanes').where({ run_id: runId }).orderBy('lane').pluck('lane')).toEqual([0, 1]);
      expect(await run()).toEqual({ memberCount: 10, entered: 10, exited: 0 });
    } finally {
      await h.deps.knex.raw(`DROP TRIGGER IF EXISTS ${seq} ON segment_compute_lanes`);
      await h.deps.knex.raw(`DROP FUNCTION IF EXISTS ${seq}()`);
      await h.deps.knex.raw(`DROP SEQUENCE IF EXISTS ${seq}`);
    }
    expect(await h.deps.knex('segment_compute_lanes').where({ run_id: runId }).orderBy('lane').pluck('status')).toEqual(['WALKED', 'WALKED']);
    expect(
      await h.deps
        .knex('events')
        .where({ project_id: q.projectId, name: `segment.${segment.slug}.entry` })
        .count('* as n'),
    ).toEqual([{ n: 10 }]);
  });

  it('hands to routing only the events something acts on: a workflow on the entry name, a contact waiting for the exit', async () => {
    const tag = `t${crypto.randomBytes(4).toString('hex')}`;
    const [a, b, c] = [await person(tag), await person(tag), await person(tag)];
    const segment = await createSegment(h.deps.knex, p.projectId, {
      name: `Routed ${tag}`,
      type: 'DYNAMIC',
      trackMembership: true,
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.tag', operator: 'equals', value: tag }] }] },
    });
    const entryName = `segment.${segment.slug}.entry`;
    const exitName = `segment.${segment.slug}.exit`;
    const api = (path: string, body: object, method: 'post' | 'patch' = 'post') => h.http[method](path).set(bearer(p.secretKey)).send(body);

    // Nothing listens yet: the first compute hands nothing to routing.
    expect((await compute(segment, 2)).routable).toBe(0);

    // A workflow enabled on the entry name, and an execution of c waiting for the exit.
    const wf = await api('/workflows', { name: `on entry ${tag}`, eventName: entryName });
    const trigger = wf.body.steps.find((s: any) => s.type === 'TRIGGER');
    const exit = await api(`/workflows/${wf.body.id}/steps`, { type: 'EXIT', config: {} });
    await api(`/workflows/${wf.body.id}/transitions`, { fromStepId: trigger.id, toStepId: exit.body.id });
    expect((await api(`/workflows/${wf.body.id}`, { enabled: true }, 'patch')).status).toBe(200);
    await h.deps.knex('workflow_executions').insert({
      id: crypto.randomUUID(),
      project_id: p.projectId,
      workflow_id: wf.body.id,
      contact_id: c.id,
      status: 'WAITING',
      waiting_for: exitName,
      test: JSON.stringify({ by: 'segmentCompute.test' }),
    });

    const d = await person(tag);
    for (const x of [a, c]) await upsertContact(h.deps.knex, { projectId: p.projectId, email: x.email, data: { tag: 'gone' }, defaultSubscribed: true });
    const { runId, result } = await compute(segment, 3);
    expect(result).toEqual({ memberCount: 2, entered: 1, exited: 2 });
    const events = await h.deps.knex('events').where({ project_id: p.projectId }).whereRaw("data->>'computeId' = ?", [runId]);
    const state = Object.fromEntries(
      events.map((e: any) => [`${e.name === entryName ? 'entry' : 'exit'}:${e.contact_id}`, e.routed_at === null ? 'open' : 'routed']),
    );
    expect(state).toEqual({ [`entry:${d.id}`]: 'open', [`exit:${a.id}`]: 'routed', [`exit:${c.id}`]: 'open' });
    expect(b.id).toBeTruthy();
  });
  it('writes history rows (changes of a static list) that go with their project, which no longer holds them by a key of its own (migration 074)', async () => {
    const q = await createProjectFixture(h, 'history goes with the project');
    const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
    for (const email of emails) await upsertContact(h.deps.knex, { projectId: q.projectId, email, defaultSubscribed: true });
    const segment = await createSegment(h.deps.knex, q.projectId, { name: `Gone ${crypto.randomBytes(4).toString('hex')}`, type: 'STATIC' });
    expect((await addMembers(h.deps.knex, segment, { emails })).added).toBe(3);
    const history = () => h.deps.knex('segment_membership_changes').where({ segment_id: segment.id }).count<{ n: string }[]>('* as n');
    expect(Number((await history())[0].n)).toBe(3);
    await deleteProject(h.deps.knex, q.projectId);
    expect(Number((await history())[0].n)).toBe(0);
  });

  it('the timeline tells a list change and each compute change once, paged one item at a time through the API', async () => {
    const tag = `t${crypto.randomBytes(4).toString('hex')}`;
    const email = uniqueEmail();
    const { contact } = await upsertContact(h.deps.knex, { projectId: p.projectId, email, data: { tag }, defaultSubscribed: true });
    const list = await createSegment(h.deps.knex, p.projectId, { name: `List ${tag}`, type: 'STATIC' });
    await addMembers(h.deps.knex, list, { emails: [email] });
    const tracked = await createSegment(h.deps.knex, p.projectId, {
      name: `Tracked ${tag}`,
      type: 'DYNAMIC',
      trackMembership: true,
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.tag', operator: 'equals', value: tag }] }] },
    });
    // Enters, leaves, enters again: three events, no history rows.
    for (const value of [tag, 'other', tag]) {
      await upsertContact(h.deps.knex, { projectId: p.projectId, email, data: { tag: value }, defaultSubscribed: true });
      await compute(tracked, 50);
    }
    const items: any[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await h.http
        .get(`/contacts/${contact.id}/timeline`)
        .query({ kind: 'segment', limit: 1, ...(cursor ? { cursor } : {}) })
        .set(bearer(p.secretKey));
      expect(res.status).toBe(200);
      items.push(...res.body.data);
      cursor = res.body.cursor ?? undefined;
      if (!res.body.hasMore) break;
    }
    expect(items.map((i) => [i.segment.name, i.segment.change, i.segment.cause])).toEqual([
      [tracked.name, 'entered', 'compute'],
      [tracked.name, 'left', 'compute'],
      [tracked.name, 'entered', 'compute'],
      [list.name, 'entered', 'list'],
    ]);
    expect(items.map((i) => i.links.segmentId)).toEqual([tracked.id, tracked.id, tracked.id, list.id]);
    expect(new Set(items.map((i) => i.id)).size).toBe(4);
  });

  it('migration 078 deletes the compute history rows their events tell, and keeps those whose event is gone and every list row', async () => {
    const q = await createProjectFixture(h, 'history told by events');
    const tag = `t${crypto.randomBytes(4).toString('hex')}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await upsertContact(h.deps.knex, { projectId: q.projectId, email: uniqueEmail(), data: { tag }, defaultSubscribed: true })).contact.id);
    }
    const segment = await createSegment(h.deps.knex, q.projectId, {
      name: `Told ${tag}`,
      type: 'DYNAMIC',
      trackMembership: true,
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.tag', operator: 'equals', value: tag }] }] },
    });
    const { runId } = await compute(segment, 2);
    // The rows the code before 078 wrote beside each event (same transaction time), and one whose event was deleted since.
    const events = await h.deps.knex('events').where({ project_id: q.projectId }).whereRaw("data->>'computeId' = ?", [runId]);
    expect(events).toHaveLength(3);
    // created_at copied in SQL: a JS Date would drop its microseconds.
    const row = async (e: any, change: string, source = 'compute') =>
      (
        await h.deps.knex.raw(
          `INSERT INTO segment_membership_changes (id, project_id, contact_id, segment_id, segment_name, change, source, created_at)
           SELECT gen_random_uuid(), project_id, contact_id, ?, ?, ?, ?, created_at FROM events WHERE id = ? RETURNING id`,
          [segment.id, segment.name, change, source, e.id],
        )
      ).rows[0] as { id: string };
    const told = [await row(events[0], 'entry'), await row(events[1], 'entry'), await row(events[2], 'entry')];
    const otherChange = await row(events[0], 'exit');
    const list = await row(events[1], 'entry', 'list');
    await h.deps.knex('events').where({ id: events[2].id }).delete();

    await computeHistoryFromEvents.up(h.deps.knex);
    const left = await h.deps.knex('segment_membership_changes').where({ segment_id: segment.id }).pluck('id');
    expect(sorted(left)).toEqual(sorted([told[2].id, otherChange.id, list.id]));
    // The timeline tells each change once: the two from their events, the third from its kept row.
    for (const id of ids) {
      const rows = (await contactTimeline(h.deps.knex, { projectId: q.projectId, contactId: id, limit: 100, kinds: ['segment'] })).rows;
      const changes = rows.filter((r: any) => r.change === 'entry' && r.source === 'compute');
      expect(changes).toHaveLength(1);
    }
  });
});
