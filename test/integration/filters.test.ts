import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '../../db/knex';
import { registerFields } from '../../db/fields';
import { compileFilter, contactMatches, countMatching, FieldTypes, FilterError, loadFieldTypes, matchingContactsQuery } from '../../db/filters';

/**
 * Every operator × type against real Postgres on a small seeded project. Contacts are letters:
 * A and B are complete, C holds mistyped values (a string where the registry says number, an
 * impossible date), D has almost nothing. A twin project holds a copy of A to prove scoping.
 */

let knex: Knex;
let projectId: string;
let otherProjectId: string;
let types: FieldTypes;
const ids: Record<string, string> = {};

const DAY = 86_400_000;
const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();
const NASTY_NAME = "Ann O'Neil 100%_\\";

async function insertProject(): Promise<string> {
  const id = crypto.randomUUID();
  const hex = () => crypto.randomBytes(32).toString('hex');
  await knex('projects').insert({ id, name: 'filters', public_key_hash: hex(), secret_key_hash: hex(), public_key_last4: 'abcd', secret_key_last4: 'abcd' });
  return id;
}

async function insertContact(project: string, letter: string, email: string, subscribed: boolean, data: object, createdDaysAgo: number) {
  const id = `cnt_${letter}${crypto.randomBytes(6).toString('hex')}`;
  const createdAt = new Date(Date.now() - createdDaysAgo * DAY);
  await knex('contacts').insert({ id, project_id: project, email, subscribed, data: JSON.stringify(data), created_at: createdAt, updated_at: createdAt });
  return id;
}

async function insertEvent(project: string, contactId: string, name: string, agoMs: number) {
  await knex('events').insert({ id: crypto.randomUUID(), project_id: project, contact_id: contactId, name, created_at: new Date(Date.now() - agoMs) });
}

beforeAll(async () => {
  knex = createKnex(process.env.DATABASE_URL!);
  projectId = await insertProject();
  otherProjectId = await insertProject();
  const lastSeenA = isoAgo(2 * DAY);
  ids.A = await insertContact(
    projectId,
    'A',
    'alice@example.com',
    true,
    { plan: 'pro', seats: 10, trial: true, signup: '2024-05-01', lastSeen: lastSeenA, profile: { tier: 'gold', score: 7 }, name: NASTY_NAME },
    30,
  );
  ids.B = await insertContact(
    projectId,
    'B',
    'bob@example.org',
    false,
    { plan: 'free', seats: 2, trial: false, signup: '2023-01-15T10:00:00Z', lastSeen: isoAgo(40 * DAY), profile: { tier: 'silver' }, name: 'Bob' },
    2,
  );
  ids.C = await insertContact(
    projectId,
    'C',
    'carol@example.com',
    true,
    { plan: 'Pro', seats: 'many', trial: 'yes', signup: '2024-02-30', lastSeen: 'yesterday', tags: ['a', 'b'] },
    1,
  );
  // `color` is deliberately left out of the registry: its type comes from the filter's value.
  ids.D = await insertContact(projectId, 'D', 'dave@test.io', true, { color: 'red' }, 400);
  ids.twin = await insertContact(otherProjectId, 'A', 'alice@example.com', true, { plan: 'pro', seats: 10 }, 30);

  await registerFields(knex, projectId, [
    { key: 'plan', type: 'string' },
    { key: 'seats', type: 'number' },
    { key: 'trial', type: 'boolean' },
    { key: 'signup', type: 'date' },
    { key: 'lastSeen', type: 'date' },
    { key: 'profile.tier', type: 'string' },
    { key: 'profile.score', type: 'number' },
    { key: 'name', type: 'string' },
    { key: 'tags', type: 'string' },
  ]);
  for (const ago of [1, 3, 10]) await insertEvent(projectId, ids.A, 'purchase', ago * DAY);
  await insertEvent(projectId, ids.A, 'login', 60 * DAY);
  await insertEvent(projectId, ids.B, 'purchase', 20 * DAY);
  await insertEvent(projectId, ids.C, 'login', 3_600_000 / 2);
  await insertEvent(otherProjectId, ids.twin, 'purchase', DAY);
  types = await loadFieldTypes(knex, projectId);
});

afterAll(() => knex?.destroy());

const one = (filter: object) => ({ logic: 'AND', groups: [{ filters: [filter] }] });

/** The letters of the contacts a tree matches. */
async function matching(tree: object, fieldTypes: FieldTypes = types): Promise<string> {
  const rows: { id: string }[] = await matchingContactsQuery(knex, projectId, tree, fieldTypes).select('c.id');
  const letterOf = new Map(Object.entries(ids).map(([letter, id]) => [id, letter]));
  return rows
    .map((r) => letterOf.get(r.id) ?? '?')
    .sort()
    .join('');
}

it('loads the registry as field types', () => {
  expect(types).toEqual({
    plan: 'string',
    seats: 'number',
    trial: 'boolean',
    signup: 'date',
    lastSeen: 'date',
    'profile.tier': 'string',
    'profile.score': 'number',
    name: 'string',
    tags: 'string',
  });
});

describe('every operator × type', () => {
  it.each([
    // string, case-insensitive
    ['data.plan', 'equals', 'PRO', undefined, 'AC'],
    ['data.plan', 'notEquals', 'pro', undefined, 'BD'],
    ['data.plan', 'contains', 'R', undefined, 'ABC'],
    ['data.plan', 'notContains', 'ro', undefined, 'BD'],
    ['data.plan', 'startsWith', 'fr', undefined, 'B'],
    ['data.plan', 'endsWith', 'EE', undefined, 'B'],
    ['data.plan', 'in', ['free', 'PRO'], undefined, 'ABC'],
    ['data.plan', 'notIn', ['free'], undefined, 'ACD'],
    ['data.plan', 'exists', undefined, undefined, 'ABC'],
    ['data.plan', 'notExists', undefined, undefined, 'D'],
    ['data.tags', 'equals', 'a', undefined, ''],
    // number (C's "many" is mistyped: no match, no error)
    ['data.seats', 'equals', 10, undefined, 'A'],
    ['data.seats', 'equals', '10.0', undefined, 'A'],
    ['data.seats', 'notEquals', 10, undefined, 'BCD'],
    ['data.seats', 'greaterThan', 2, undefined, 'A'],
    ['data.seats', 'lessThan', 10, undefined, 'B'],
    ['data.seats', 'greaterThanOrEqual', 2, undefined, 'AB'],
    ['data.seats', 'lessThanOrEqual', 2, undefined, 'B'],
    ['data.seats', 'in', [2, 3], undefined, 'B'],
    ['data.seats', 'notIn', [2], undefined, 'ACD'],
    ['data.seats', 'exists', undefined, undefined, 'ABC'],
    ['data.seats', 'notExists', undefined, undefined, 'D'],
    // boolean
    ['data.trial', 'equals', true, undefined, 'A'],
    ['data.trial', 'equals', false, undefined, 'B'],
    ['data.trial', 'notEquals', true, undefined, 'BCD'],
    ['data.trial', 'exists', undefined, undefined, 'ABC'],
    ['data.trial', 'notExists', undefined, undefined, 'D'],
    // date: a YYYY-MM-DD value is its whole UTC day; C's 2024-02-30 is no date
    ['data.signup', 'equals', '2024-05-01', undefined, 'A'],
    ['data.signup', 'equals', '2023-01-15', undefined, 'B'],
    ['data.signup', 'equals', '2023-01-15T10:00:00.000Z', undefined, 'B'],
    ['data.signup', 'notEquals', '2024-05-01', undefined, 'BCD'],
    ['data.signup', 'greaterThan', '2023-01-15', undefined, 'A'],
    ['data.signup', 'greaterThan', '2023-01-15T10:00:00Z', undefined, 'A'],
    ['data.signup', 'greaterThanOrEqual', '2023-01-15T10:00:00Z', undefined, 'AB'],
    ['data.signup', 'lessThan', '2024-05-01', undefined, 'B'],
    ['data.signup', 'lessThanOrEqual', '2024-05-01', undefined, 'AB'],
    ['data.signup', 'lessThan', '2024-03-01', undefined, 'B'],
    ['data.signup', 'exists', undefined, undefined, 'ABC'],
    ['data.lastSeen', 'within', 7, 'days', 'A'],
    ['data.lastSeen', 'within', 1, 'hours', ''],
    ['data.lastSeen', 'olderThan', 30, 'days', 'B'],
    ['data.lastSeen', 'olderThan', 1, 'minutes', 'AB'],
    ['data.lastSeen', 'within', 2, 'months', 'AB'],
    // nested paths
    ['data.profile.tier', 'equals', 'gold', undefined, 'A'],
    ['data.profile.tier', 'in', ['gold', 'silver'], undefined, 'AB'],
    ['data.profile.score', 'greaterThan', 5, undefined, 'A'],
    ['data.profile.score', 'notExists', undefined, undefined, 'BCD'],
    ['data.profile', 'exists', undefined, undefined, 'AB'],
    // unregistered key: typed by the value
    ['data.color', 'equals', 'RED', undefined, 'D'],
    ['data.color', 'equals', 5, undefined, ''],
    ['data.nothing', 'exists', undefined, undefined, ''],
    // standard fields
    ['email', 'equals', 'ALICE@example.com', undefined, 'A'],
    ['email', 'notEquals', 'alice@example.com', undefined, 'BCD'],
    ['email', 'contains', 'example', undefined, 'ABC'],
    ['email', 'notContains', 'example', undefined, 'D'],
    ['email', 'startsWith', 'dave', undefined, 'D'],
    ['email', 'endsWith', '.com', undefined, 'AC'],
    ['email', 'in', ['bob@example.org', 'dave@test.io'], undefined, 'BD'],
    ['email', 'notIn', ['bob@example.org'], undefined, 'ACD'],
    ['email', 'exists', undefined, undefined, 'ABCD'],
    ['subscribed', 'equals', false, undefined, 'B'],
    ['subscribed', 'notEquals', false, undefined, 'ACD'],
    ['createdAt', 'within', 7, 'days', 'BC'],
    ['createdAt', 'olderThan', 60, 'days', 'D'],
    ['createdAt', 'olderThan', 1, 'weeks', 'AD'],
    ['createdAt', 'greaterThan', '2000-01-01', undefined, 'ABCD'],
    ['createdAt', 'lessThan', isoAgo(100 * DAY).slice(0, 10), undefined, 'D'],
    ['updatedAt', 'within', 36, 'hours', 'C'],
    ['updatedAt', 'notExists', undefined, undefined, ''],
    // events (count comparisons include contacts with none)
    ['event.purchase', 'triggered', undefined, undefined, 'AB'],
    ['event.purchase', 'notTriggered', undefined, undefined, 'CD'],
    ['event.purchase', 'within', 2, 'days', 'A'],
    ['event.purchase', 'within', 25, 'days', 'AB'],
    ['event.purchase', 'olderThan', 15, 'days', 'B'],
    ['event.purchase', 'olderThan', 12, 'hours', 'AB'],
    ['event.purchase', 'greaterThan', 1, undefined, 'A'],
    ['event.purchase', 'lessThan', 2, undefined, 'BCD'],
    ['event.purchase', 'equals', 3, undefined, 'A'],
    ['event.purchase', 'equals', 0, undefined, 'CD'],
    ['event.purchase', 'notEquals', 3, undefined, 'BCD'],
    ['event.purchase', 'greaterThanOrEqual', 1, undefined, 'AB'],
    ['event.purchase', 'lessThanOrEqual', 1, undefined, 'BCD'],
    ['event.login', 'within', 1, 'hours', 'C'],
    ['event.login', 'olderThan', 30, 'days', 'A'],
    // A has 3 purchases but only 2 in the last 5 days: the rollup (count 3, last 1 day ago) lets A
    // through, the window's log count decides.
    ['event.purchase', 'atLeastWithin', { atLeast: 2, within: 5 }, 'days', 'A'],
    ['event.purchase', 'atLeastWithin', { atLeast: 3, within: 5 }, 'days', ''],
    ['event.purchase', 'atLeastWithin', { atLeast: 3, within: 11 }, 'days', 'A'],
    ['event.purchase', 'atLeastWithin', { atLeast: 1, within: 25 }, 'days', 'AB'],
    ['event.login', 'notWithin', 90, 'days', 'BD'],
    ['event.login', 'notWithin', 30, 'days', 'ABD'],
    ['event.never', 'triggered', undefined, undefined, ''],
  ])('%s %s %j %s → %s', async (field, operator, value, unit, expected) => {
    expect(await matching(one({ field, operator, value, unit }))).toBe(expected);
  });
});

describe('logic and nesting', () => {
  const f = (field: string, operator: string, value?: unknown, unit?: string) => ({ field, operator, value, unit });

  it('AND: every filter of the group', async () => {
    expect(await matching({ logic: 'AND', groups: [{ filters: [f('data.plan', 'equals', 'pro'), f('subscribed', 'equals', true)] }] })).toBe('AC');
    expect(await matching({ logic: 'AND', groups: [{ filters: [f('data.plan', 'exists')] }, { filters: [f('event.purchase', 'triggered')] }] })).toBe('AB');
  });

  it('OR: any filter, any group', async () => {
    expect(await matching({ logic: 'OR', groups: [{ filters: [f('data.plan', 'equals', 'free'), f('event.login', 'triggered')] }] })).toBe('ABC');
    expect(await matching({ logic: 'OR', groups: [{ filters: [f('email', 'startsWith', 'dave')] }, { filters: [f('data.seats', 'lessThan', 5)] }] })).toBe(
      'BD',
    );
  });

  it('a group ANDs its nested conditions to its filters', async () => {
    const tree = {
      logic: 'OR',
      groups: [
        {
          filters: [f('data.plan', 'equals', 'free'), f('email', 'endsWith', '.io')],
          conditions: { logic: 'AND', groups: [{ filters: [f('subscribed', 'equals', false)] }] },
        },
        { filters: [f('event.login', 'within', 1, 'days')] },
      ],
    };
    expect(await matching(tree)).toBe('BC');
  });

  it('a nested OR inside an AND', async () => {
    const tree = {
      logic: 'AND',
      groups: [
        {
          filters: [f('subscribed', 'equals', true)],
          conditions: { logic: 'OR', groups: [{ filters: [f('data.plan', 'equals', 'pro')] }, { filters: [f('email', 'startsWith', 'dave')] }] },
        },
      ],
    };
    expect(await matching(tree)).toBe('ACD');
  });

  it('a group made only of nested conditions', async () => {
    expect(await matching({ logic: 'AND', groups: [{ filters: [], conditions: one(f('data.trial', 'equals', false)) }] })).toBe('B');
  });
});

describe('single contact and counts', () => {
  const tree = one({ field: 'event.purchase', operator: 'within', value: 2, unit: 'days' });

  it('contactMatches answers for one contact of the project only', async () => {
    expect(await contactMatches(knex, projectId, ids.A, tree)).toBe(true);
    expect(await contactMatches(knex, projectId, ids.B, tree)).toBe(false);
    // The twin matches in its own project, never through another one.
    expect(await contactMatches(knex, otherProjectId, ids.twin, tree)).toBe(true);
    expect(await contactMatches(knex, projectId, ids.twin, tree)).toBe(false);
  });

  it('countMatching counts the project only', async () => {
    expect(await countMatching(knex, projectId, one({ field: 'data.plan', operator: 'equals', value: 'pro' }))).toBe(2);
    expect(await countMatching(knex, otherProjectId, one({ field: 'data.plan', operator: 'equals', value: 'pro' }))).toBe(1);
  });

  it('compileFilter embeds in a caller query with `c` as the contacts row', async () => {
    const { sql, bindings } = compileFilter(tree, { fieldTypes: types });
    const { rows } = await knex.raw(`SELECT c.id FROM contacts c WHERE c.project_id = ? AND (${sql})`, [projectId, ...bindings]);
    expect(rows.map((r: { id: string }) => r.id)).toEqual([ids.A]);
  });
});

describe('hostile and mistyped input', () => {
  const tableExists = async () => (await knex.raw("SELECT to_regclass('public.contacts') AS t")).rows[0].t;

  it.each([
    ["data.a'); DROP TABLE contacts;--", 'equals', 'x', ''],
    ['data.a?b', 'equals', '??', ''],
    ['data.{a,b}', 'exists', undefined, ''],
    ['data.$1', 'equals', '$1', ''],
    ["event.x' OR 1=1 --", 'triggered', undefined, ''],
    ['data.plan', 'equals', "x'); DROP TABLE contacts;--", ''],
    ['data.name', 'equals', NASTY_NAME, 'A'],
    ['data.name', 'contains', "'", 'A'],
    ['data.name', 'contains', '%', 'A'],
    ['data.name', 'contains', '_', 'A'],
    ['data.name', 'endsWith', '\\', 'A'],
    ['data.name', 'startsWith', '%', ''],
    ['data.name', 'in', ["it's", NASTY_NAME.toUpperCase()], 'A'],
    ['email', 'contains', "%' OR '1'='1", ''],
  ])('%s %s %j matches only %s', async (field, operator, value, expected) => {
    expect(await matching(one({ field, operator, value }))).toBe(expected);
    expect(await tableExists()).toBe('contacts');
  });

  it('refuses a field shape it cannot name with a FilterError, before any SQL', () => {
    expect(() => compileFilter(one({ field: "x'); DROP TABLE contacts;--", operator: 'exists' }), { fieldTypes: types })).toThrow(FilterError);
  });

  it('a value stored with another type than the registry says never errors and never matches', async () => {
    // C stores seats "many", trial "yes", signup "2024-02-30" and lastSeen "yesterday".
    expect(await matching(one({ field: 'data.seats', operator: 'lessThan', value: 1000 }))).toBe('AB');
    expect(await matching(one({ field: 'data.trial', operator: 'exists' }))).toBe('ABC');
    expect(await matching(one({ field: 'data.signup', operator: 'lessThan', value: '9999-01-01' }))).toBe('AB');
    expect(await matching(one({ field: 'data.lastSeen', operator: 'olderThan', value: 0, unit: 'minutes' }))).toBe('AB');
    // The same keys read with the type their value implies (no registry) match C's stored strings.
    expect(await matching(one({ field: 'data.seats', operator: 'equals', value: 'MANY' }), {})).toBe('C');
    expect(await matching(one({ field: 'data.signup', operator: 'contains', value: '02-30' }), {})).toBe('C');
  });
});
