import { compileFilter, filterProblems, FilterError, FieldTypes, FILTER_OPERATORS } from '../../db/filters';
import { FilterTree, filterErrorToFieldError } from '../../api/schemas/filters';

const one = (filter: object, logic = 'AND') => ({ logic, groups: [{ filters: [filter] }] });
const types: FieldTypes = { plan: 'string', seats: 'number', trial: 'boolean', signup: 'date', 'profile.tier': 'string' };
const compile = (tree: unknown, fieldTypes: FieldTypes = types) => compileFilter(tree, { fieldTypes });
const placeholders = (sql: string) => (sql.match(/\?/g) ?? []).length;

/** The FilterError a tree raises, as { path, message }. */
function failure(tree: unknown, fieldTypes: FieldTypes = types) {
  try {
    compile(tree, fieldTypes);
  } catch (err) {
    if (err instanceof FilterError) return { path: err.path, message: err.detail };
    throw err;
  }
  throw new Error('expected a FilterError');
}

describe('compileFilter output', () => {
  it('reads a typed data path through its safe cast, with the path and the value bound', () => {
    expect(compile(one({ field: 'data.plan', operator: 'equals', value: 'pro' }))).toEqual({
      sql: "COALESCE(lower(svc_filter_text(c.data #> string_to_array(?, '.'))) = lower(?), false)",
      bindings: ['plan', 'pro'],
    });
    expect(compile(one({ field: 'data.seats', operator: 'greaterThan', value: 5 }))).toEqual({
      sql: "COALESCE(svc_filter_number(c.data #> string_to_array(?, '.')) > ?::numeric, false)",
      bindings: ['seats', 5],
    });
    expect(compile(one({ field: 'data.profile.tier', operator: 'exists' }))).toEqual({
      sql: "COALESCE(jsonb_typeof(c.data #> string_to_array(?, '.')) <> 'null', false)",
      bindings: ['profile.tier'],
    });
  });

  it('negates by complement and compares standard fields on their columns', () => {
    expect(compile(one({ field: 'email', operator: 'notContains', value: 'x' }))).toEqual({ sql: 'NOT COALESCE(c.email ILIKE ?, false)', bindings: ['%x%'] });
    expect(compile(one({ field: 'subscribed', operator: 'equals', value: true }))).toEqual({
      sql: 'COALESCE(c.subscribed = ?::boolean, false)',
      bindings: [true],
    });
    expect(compile(one({ field: 'createdAt', operator: 'within', value: 7, unit: 'days' }))).toEqual({
      sql: "COALESCE(c.created_at BETWEEN (now() - ?::float8 * interval '1 day') AND now(), false)",
      bindings: [7],
    });
    expect(compile(one({ field: 'email', operator: 'exists' })).sql).toBe('COALESCE(TRUE, false)');
  });

  it('escapes LIKE wildcards and keeps only the wildcards the operator wants', () => {
    const pattern = (operator: string) => compile(one({ field: 'data.plan', operator, value: 'a%_\\b' })).bindings[1];
    expect(pattern('contains')).toBe('%a\\%\\_\\\\b%');
    expect(pattern('startsWith')).toBe('a\\%\\_\\\\b%');
    expect(pattern('endsWith')).toBe('%a\\%\\_\\\\b');
  });

  it('turns a date-only value into its UTC day and an instant into its millisecond', () => {
    const day = compile(one({ field: 'data.signup', operator: 'equals', value: '2024-05-01' }));
    expect(day.sql).toBe(
      "COALESCE(svc_filter_instant(c.data #> string_to_array(?, '.')) >= ?::timestamptz AND svc_filter_instant(c.data #> string_to_array(?, '.')) < ?::timestamptz, false)",
    );
    expect(day.bindings).toEqual(['signup', '2024-05-01T00:00:00.000Z', 'signup', '2024-05-02T00:00:00.000Z']);
    expect(compile(one({ field: 'updatedAt', operator: 'greaterThan', value: '2024-05-01T10:00:00Z' })).bindings).toEqual(['2024-05-01T10:00:00.001Z']);
    expect(compile(one({ field: 'updatedAt', operator: 'lessThan', value: '2024-05-01' })).bindings).toEqual(['2024-05-01T00:00:00.000Z']);
    expect(compile(one({ field: 'updatedAt', operator: 'lessThanOrEqual', value: '9999-12-31' })).bindings).toEqual(['infinity']);
  });

  it('binds in/notIn lists as one JSON value, whatever their length', () => {
    const list = Array.from({ length: 1000 }, (_, i) => `v${i}`);
    const out = compile(one({ field: 'data.plan', operator: 'notIn', value: list }));
    expect(out.sql).toBe(
      "NOT COALESCE(lower(svc_filter_text(c.data #> string_to_array(?, '.'))) IN (SELECT lower(value) FROM jsonb_array_elements_text(?::jsonb)), false)",
    );
    expect(out.bindings).toEqual(['plan', JSON.stringify(list)]);
    expect(compile(one({ field: 'data.seats', operator: 'in', value: [1, '2'] })).bindings).toEqual(['seats', '[1,2]']);
  });

  it("asks the contact's event rollup row, as a bare EXISTS the planner can join", () => {
    const row = (condition = '') =>
      `EXISTS (SELECT 1 FROM contact_event_rollups r WHERE r.contact_id = c.id AND r.name = ? AND r.project_id = c.project_id${condition})`;
    expect(compile(one({ field: 'event.signup.done', operator: 'notTriggered' }))).toEqual({ sql: `NOT ${row()}`, bindings: ['signup.done'] });
    expect(compile(one({ field: 'event.buy', operator: 'greaterThan', value: 2 }))).toEqual({ sql: row(' AND r.count > ?::bigint'), bindings: ['buy', 2] });
    // Count 0 (no row) satisfies "< 3": written as "no row fails it".
    expect(compile(one({ field: 'event.buy', operator: 'lessThan', value: 3 }))).toEqual({
      sql: `NOT ${row(' AND NOT (r.count < ?::bigint)')}`,
      bindings: ['buy', 3],
    });
    expect(compile(one({ field: 'event.buy', operator: 'notEquals', value: 0 })).sql).toBe(`NOT NOT ${row(' AND NOT (r.count = ?::bigint)')}`);
    expect(compile(one({ field: 'event.buy', operator: 'olderThan', value: 2, unit: 'weeks' })).sql).toBe(
      row(" AND r.last_at < (now() - ?::float8 * interval '1 week')"),
    );
  });

  it('"did not in the last N" is one anti-join on the rollup, not olderThan OR notTriggered', () => {
    const row =
      "EXISTS (SELECT 1 FROM contact_event_rollups r WHERE r.contact_id = c.id AND r.name = ? AND r.project_id = c.project_id AND r.last_at >= (now() - ?::float8 * interval '1 day'))";
    expect(compile(one({ field: 'event.login', operator: 'notWithin', value: 90, unit: 'days' }))).toEqual({ sql: `NOT ${row}`, bindings: ['login', 90] });
  });

  it('"at least N in the last M" over a project reads the window once, grouped by contact (an index-only range, migration 077)', () => {
    const out = compile(one({ field: 'event.purchase', operator: 'atLeastWithin', value: { atLeast: '3', within: 30 }, unit: 'days' }));
    const since = "(now() - ?::float8 * interval '1 day')";
    expect(out.sql.replace(/\s+/g, ' ')).toBe(
      `EXISTS (SELECT 1 FROM (SELECT e.project_id, e.contact_id FROM events e WHERE e.name = ? AND e.created_at >= ${since}` +
        ' GROUP BY e.project_id, e.contact_id HAVING count(*) >= ?::bigint) w WHERE w.contact_id = c.id AND w.project_id = c.project_id)',
    );
    expect(out.bindings).toEqual(['purchase', 30, 3]);
    expect(placeholders(out.sql)).toBe(out.bindings.length);
  });

  it('"at least N in the last M" over a few contacts pre-filters on the rollup, then counts the log of the window up to N', () => {
    const out = compileFilter(one({ field: 'event.purchase', operator: 'atLeastWithin', value: { atLeast: '3', within: 30 }, unit: 'days' }), {
      fieldTypes: types,
      scope: 'few',
    });
    const since = "(now() - ?::float8 * interval '1 day')";
    expect(out.sql).toBe(
      'EXISTS (SELECT 1 FROM contact_event_rollups r WHERE r.contact_id = c.id AND r.name = ? AND r.project_id = c.project_id' +
        ` AND r.count >= ?::bigint AND r.last_at >= ${since} AND (SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.contact_id = c.id AND e.name = r.name` +
        ` AND e.project_id = r.project_id AND e.created_at >= ${since} LIMIT ?::bigint) w) >= ?::bigint)`,
    );
    expect(out.bindings).toEqual(['purchase', 3, 30, 30, 3, 3]);
    expect(placeholders(out.sql)).toBe(out.bindings.length);
  });

  it('combines filters of a group with the tree logic and ANDs the nested conditions', () => {
    const f = (key: string) => ({ field: `data.${key}`, operator: 'exists' });
    const tree = {
      logic: 'OR',
      groups: [{ filters: [f('a'), f('b')], conditions: { logic: 'AND', groups: [{ filters: [f('c')] }, { filters: [f('d')] }] } }, { filters: [f('e')] }],
    };
    const x = "COALESCE(jsonb_typeof(c.data #> string_to_array(?, '.')) <> 'null', false)";
    const out = compile(tree, {});
    expect(out.sql).toBe(`(((${x}) OR (${x})) AND ((${x}) AND (${x}))) OR (${x})`);
    expect(out.bindings).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('takes the registry type over the value and infers one for unregistered keys', () => {
    expect(compile(one({ field: 'data.plan', operator: 'equals', value: 5 })).sql).toContain('svc_filter_text');
    expect(compile(one({ field: 'data.fresh', operator: 'equals', value: 5 })).sql).toContain('svc_filter_number');
    expect(compile(one({ field: 'data.fresh', operator: 'equals', value: true })).sql).toContain('svc_filter_boolean');
    expect(compile(one({ field: 'data.fresh', operator: 'lessThan', value: '2024-01-01' })).sql).toContain('svc_filter_instant');
    expect(compile(one({ field: 'data.fresh', operator: 'within', value: 1, unit: 'hours' })).sql).toContain('svc_filter_instant');
    expect(compile(one({ field: 'data.fresh', operator: 'in', value: [1, 2] })).sql).toContain('value::numeric');
    // A registry inherited from Object.prototype must not count as a type.
    expect(compile(one({ field: 'data.constructor', operator: 'equals', value: 1 }), {}).sql).toContain('svc_filter_number');
  });

  it('never splices a supplied string into the SQL: one placeholder per binding', () => {
    const evil = "x'); DROP TABLE contacts;--";
    const filters = FILTER_OPERATORS.flatMap((operator) => [
      {
        field: `data.${evil}`,
        operator,
        value: operator.endsWith('In') || operator === 'in' ? [evil] : operator === 'within' || operator === 'olderThan' ? 1 : evil,
        unit: 'days',
      },
    ]).filter((f) => filterProblems(one(f)).length === 0);
    filters.push({ field: `event.${evil}`, operator: 'triggered', value: evil, unit: 'days' });
    expect(filters.length).toBeGreaterThan(10);
    const out = compile({ logic: 'OR', groups: [{ filters }] }, {});
    expect(out.sql).not.toContain('DROP');
    expect(placeholders(out.sql)).toBe(out.bindings.length);
    expect(out.bindings.every((b) => ['string', 'number', 'boolean'].includes(typeof b))).toBe(true);
  });
});

describe('compileFilter validation', () => {
  const deep = (levels: number): object =>
    levels === 1 ? one({ field: 'email', operator: 'exists' }) : { logic: 'AND', groups: [{ filters: [], conditions: deep(levels - 1) }] };
  const filter = (over: object) => one({ field: 'data.plan', operator: 'equals', value: 'x', ...over });

  it.each([
    ['a tree that is not an object', 'nope', '', /must be an object/],
    ['unknown logic', { logic: 'XOR', groups: [{ filters: [{ field: 'email', operator: 'exists' }] }] }, 'logic', /AND, OR/],
    ['no groups', { logic: 'AND', groups: [] }, 'groups', /non-empty/],
    ['a group that is not an object', { logic: 'AND', groups: [1] }, 'groups.0', /group must be an object/],
    ['filters that are not an array', { logic: 'AND', groups: [{ filters: 'x' }] }, 'groups.0.filters', /must be an array/],
    ['an empty group', { logic: 'AND', groups: [{ filters: [] }] }, 'groups.0.filters', /at least one filter/],
    ['a filter that is not an object', { logic: 'AND', groups: [{ filters: [null] }] }, 'groups.0.filters.0', /filter must be an object/],
    ['an unknown operator', filter({ operator: 'like' }), 'groups.0.filters.0.operator', /unknown operator/],
    ['an unknown unit', filter({ operator: 'within', value: 1, unit: 'years' }), 'groups.0.filters.0.unit', /unknown unit/],
    ['a missing unit', filter({ field: 'createdAt', operator: 'olderThan', value: 1, unit: undefined }), 'groups.0.filters.0.unit', /unit is required/],
    ['an unknown field', filter({ field: 'plan' }), 'groups.0.filters.0.field', /unknown field/],
    ['a field that is not a string', filter({ field: 7 }), 'groups.0.filters.0.field', /unknown field/],
    ['an empty data path', filter({ field: 'data.' }), 'groups.0.filters.0.field', /1 to 100 characters/],
    ['an empty data key', filter({ field: 'data.a..b' }), 'groups.0.filters.0.field', /1 to 100 characters/],
    ['a too deep data path', filter({ field: 'data.a.b.c.d.e.f' }), 'groups.0.filters.0.field', /at most 5 levels/],
    ['an empty event name', filter({ field: 'event.', operator: 'triggered' }), 'groups.0.filters.0.field', /event names/],
    ['contains on a number field', filter({ field: 'data.seats', operator: 'contains' }), 'groups.0.filters.0.operator', /does not apply to a number field/],
    ['greaterThan on a boolean field', filter({ field: 'subscribed', operator: 'greaterThan', value: 1 }), 'groups.0.filters.0.operator', /boolean/],
    ['within on a string field', filter({ operator: 'within', value: 1, unit: 'days' }), 'groups.0.filters.0.operator', /string/],
    ['triggered on a data field', filter({ operator: 'triggered' }), 'groups.0.filters.0.operator', /does not apply/],
    ['contains on an event', filter({ field: 'event.buy', operator: 'contains' }), 'groups.0.filters.0.operator', /event field/],
    ['exists on an event', filter({ field: 'event.buy', operator: 'exists' }), 'groups.0.filters.0.operator', /triggered/],
    ['a missing value', filter({ value: undefined }), 'groups.0.filters.0.value', /expected a string/],
    ['an object value', filter({ value: { a: 1 } }), 'groups.0.filters.0.value', /expected a string/],
    ['a too long string', filter({ value: 'x'.repeat(1001) }), 'groups.0.filters.0.value', /at most 1000/],
    ['a non-numeric number', filter({ field: 'data.seats', value: 'ten' }), 'groups.0.filters.0.value', /expected a number/],
    ['a non-boolean boolean', filter({ field: 'data.trial', value: 'yes' }), 'groups.0.filters.0.value', /true or false/],
    ['a non-ISO date', filter({ field: 'data.signup', value: '05/01/2024' }), 'groups.0.filters.0.value', /ISO date/],
    ['an impossible date', filter({ field: 'createdAt', operator: 'lessThan', value: '2024-02-30' }), 'groups.0.filters.0.value', /ISO date/],
    ['year zero', filter({ field: 'createdAt', operator: 'lessThan', value: '0000-01-01' }), 'groups.0.filters.0.value', /ISO date/],
    ['in without an array', filter({ operator: 'in', value: 'a' }), 'groups.0.filters.0.value', /array of 1 to 1000/],
    ['in with an empty array', filter({ operator: 'in', value: [] }), 'groups.0.filters.0.value', /array of 1 to 1000/],
    ['in with 1001 values', filter({ operator: 'notIn', value: Array(1001).fill('a') }), 'groups.0.filters.0.value', /array of 1 to 1000/],
    ['a bad list item', filter({ field: 'data.seats', operator: 'in', value: [1, 'x'] }), 'groups.0.filters.0.value.1', /expected a number/],
    ['a negative duration', filter({ field: 'createdAt', operator: 'within', value: -1, unit: 'days' }), 'groups.0.filters.0.value', /from 0 to/],
    ['an endless duration', filter({ field: 'createdAt', operator: 'within', value: 1e9, unit: 'months' }), 'groups.0.filters.0.value', /from 0 to 12000/],
    ['a non-numeric duration', filter({ field: 'event.buy', operator: 'within', value: 'soon', unit: 'days' }), 'groups.0.filters.0.value', /number of days/],
    ['a fractional event count', filter({ field: 'event.buy', operator: 'greaterThan', value: 1.5 }), 'groups.0.filters.0.value', /whole number/],
    ['a negative event count', filter({ field: 'event.buy', operator: 'equals', value: -1 }), 'groups.0.filters.0.value', /whole number/],
    [
      'notWithin on a date field',
      filter({ field: 'createdAt', operator: 'notWithin', value: 1, unit: 'days' }),
      'groups.0.filters.0.operator',
      /does not apply/,
    ],
    [
      'atLeastWithin with a bare count',
      filter({ field: 'event.buy', operator: 'atLeastWithin', value: 3, unit: 'days' }),
      'groups.0.filters.0.value',
      /atLeast, within/,
    ],
    [
      'atLeastWithin of 0',
      filter({ field: 'event.buy', operator: 'atLeastWithin', value: { atLeast: 0, within: 3 }, unit: 'days' }),
      'groups.0.filters.0.value.atLeast',
      /from 1/,
    ],
    [
      'atLeastWithin without a unit',
      filter({ field: 'event.buy', operator: 'atLeastWithin', value: { atLeast: 2, within: 3 } }),
      'groups.0.filters.0.unit',
      /unit is required/,
    ],
    [
      'atLeastWithin with a bad window',
      filter({ field: 'event.buy', operator: 'atLeastWithin', value: { atLeast: 2, within: 'soon' }, unit: 'days' }),
      'groups.0.filters.0.value.within',
      /number of days/,
    ],
    [
      'an unregistered key compared with text',
      filter({ field: 'data.fresh', operator: 'greaterThan', value: 'abc' }),
      'groups.0.filters.0.value',
      /expected a number/,
    ],
    [
      'a nested problem',
      { logic: 'AND', groups: [{ filters: [], conditions: filter({ operator: 'nope' }) }] },
      'groups.0.conditions.groups.0.filters.0.operator',
      /unknown operator/,
    ],
    [
      'nesting deeper than 5',
      deep(6),
      'groups.0.conditions.groups.0.conditions.groups.0.conditions.groups.0.conditions.groups.0.conditions',
      /at most 5 levels/,
    ],
    [
      'more than 50 filters',
      { logic: 'OR', groups: [{ filters: Array(51).fill({ field: 'email', operator: 'exists' }) }] },
      'groups.0.filters.50',
      /at most 50 filters/,
    ],
    ['more than 50 groups', { logic: 'OR', groups: Array(51).fill({ filters: [{ field: 'email', operator: 'exists' }] }) }, 'groups.50', /at most 50 groups/],
  ])('refuses %s', (_name, tree, path, message) => {
    const got = failure(tree);
    expect(got.path).toBe(path);
    expect(got.message).toMatch(message);
  });

  it('accepts the deepest allowed nesting and what forms send as strings', () => {
    expect(filterProblems(deep(5))).toEqual([]);
    expect(compile(one({ field: 'data.seats', operator: 'equals', value: '10' })).bindings).toEqual(['seats', 10]);
    expect(compile(one({ field: 'data.trial', operator: 'equals', value: 'false' })).bindings).toEqual(['trial', false]);
    expect(compile(one({ field: 'event.buy', operator: 'within', value: '1.5', unit: 'hours' })).bindings).toEqual(['buy', 1.5]);
  });

  it('reports every problem with filterProblems, and the first as the FilterError', () => {
    const tree = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'x', operator: 'equals' },
            { field: 'email', operator: 'nope' },
          ],
        },
      ],
    };
    expect(filterProblems(tree)).toEqual([
      { path: ['groups', 0, 'filters', 0, 'field'], message: expect.stringMatching(/unknown field/) },
      { path: ['groups', 0, 'filters', 1, 'operator'], message: expect.stringMatching(/unknown operator/) },
    ]);
    expect(() => compile(tree)).toThrow('groups.0.filters.0.field: unknown field');
  });
});

describe('FilterTree schema', () => {
  const valid = {
    logic: 'AND',
    groups: [
      {
        filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }],
        conditions: one({ field: 'event.buy', operator: 'within', value: 3, unit: 'days' }, 'OR'),
      },
    ],
  };

  it('accepts a valid nested tree unchanged', () => {
    const r = FilterTree.safeParse(valid);
    expect(r.success).toBe(true);
    expect(r.data).toEqual(valid);
  });

  it('rejects unknown names by shape and deeper problems with the compiler paths', () => {
    const shape = FilterTree.safeParse(one({ field: 'email', operator: 'like' }));
    expect(shape.error?.issues.map((i) => i.path.join('.'))).toEqual(['groups.0.filters.0.operator']);
    const nested = FilterTree.safeParse({ logic: 'AND', groups: [{ filters: [], conditions: one({ field: 'data.seats', operator: 'in', value: 3 }) }] });
    expect(nested.error?.issues).toEqual([
      expect.objectContaining({
        code: 'custom',
        path: ['groups', 0, 'conditions', 'groups', 0, 'filters', 0, 'value'],
        message: expect.stringMatching(/array/),
      }),
    ]);
  });

  it('turns a FilterError into a 422 field error naming the path', () => {
    let err: unknown;
    try {
      compile(one({ field: 'data.seats', operator: 'contains', value: 'x' }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FilterError);
    expect(filterErrorToFieldError(err as FilterError, 'condition')).toEqual({
      field: 'condition.groups.0.filters.0.operator',
      message: expect.stringMatching(/^contains does not apply to a number field/),
      code: 'custom',
    });
    expect(filterErrorToFieldError(new FilterError([{ path: [], message: 'm' }]))).toEqual({ field: '(root)', message: 'm', code: 'custom' });
  });
});
