import { dataProblems, fieldEntries, inferType, RESERVED_DATA_KEYS, splitData } from '../../lib/contactData';
import { parseContactCursor, encodeContactCursor } from '../../db/contactReaders';

describe('splitData', () => {
  it('stores primitives', () => {
    expect(splitData({ plan: 'pro', seats: 3, trial: false })).toEqual({ set: { plan: 'pro', seats: 3, trial: false }, unset: [], oneOff: {} });
  });

  it('turns null into a delete', () => {
    expect(splitData({ plan: null })).toEqual({ set: {}, unset: ['plan'], oneOff: {} });
  });

  it('ignores empty strings so the existing value is kept', () => {
    expect(splitData({ plan: '', name: 'Ada' })).toEqual({ set: { name: 'Ada' }, unset: [], oneOff: {} });
  });

  it('drops every reserved key silently', () => {
    const patch = Object.fromEntries([...RESERVED_DATA_KEYS].map((k) => [k, 'x']));
    expect([...RESERVED_DATA_KEYS].sort()).toEqual(['email', 'id', 'manageUrl', 'subscribeUrl', 'svc_email', 'svc_id', 'unsubscribeUrl']);
    expect(splitData({ ...patch, kept: 1 })).toEqual({ set: { kept: 1 }, unset: [], oneOff: {} });
    // Even a null on a reserved key deletes nothing.
    expect(splitData({ email: null }).unset).toEqual([]);
  });

  it('keeps { value, persistent: false } out of storage, in oneOff only', () => {
    expect(splitData({ code: { value: 'A1', persistent: false } })).toEqual({ set: {}, unset: [], oneOff: { code: 'A1' } });
    expect(splitData({ code: { value: null, persistent: false } })).toEqual({ set: {}, unset: [], oneOff: { code: null } });
  });

  it('unwraps { value, persistent: true } and applies the rules to its value', () => {
    expect(splitData({ plan: { value: 'pro', persistent: true } }).set).toEqual({ plan: 'pro' });
    expect(splitData({ plan: { value: null, persistent: true } }).unset).toEqual(['plan']);
  });

  it('stores any other plain object whole, nested', () => {
    const profile = { tier: 'gold', address: { city: 'Oslo' }, persistent: false };
    expect(splitData({ profile }).set).toEqual({ profile });
    // A wrapper needs exactly value + a boolean persistent; anything else is data.
    expect(splitData({ w: { value: 1, persistent: 'no' } }).set).toEqual({ w: { value: 1, persistent: 'no' } });
    expect(splitData({ w: { value: 1, persistent: false, extra: 1 } }).set).toEqual({ w: { value: 1, persistent: false, extra: 1 } });
  });

  it('stores locale like any other key', () => {
    expect(splitData({ locale: 'fr' }).set).toEqual({ locale: 'fr' });
  });

  it('keeps a "__proto__" key an ordinary key', () => {
    const { set } = splitData(JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(Object.keys(set)).toEqual(['__proto__']);
    expect(({} as any).polluted).toBeUndefined();
  });
});

describe('inferType', () => {
  it.each([
    [42, 'number'],
    [0.5, 'number'],
    [true, 'boolean'],
    [false, 'boolean'],
    ['2024-05-01', 'date'],
    ['2024-05-01T10:20:30Z', 'date'],
    ['2024-05-01T10:20:30.123Z', 'date'],
    ['2024-05-01T10:20:30+02:00', 'string'],
    ['2024-05-01 10:20:30', 'string'],
    ['2024-05-01T10:20Z', 'string'],
    ['2024-05-01T10:20:30.1Z', 'string'],
    ['2024-02-30', 'string'],
    ['2024-13-01', 'string'],
    ['05/01/2024', 'string'],
    ['42', 'string'],
    ['true', 'string'],
    ['hello', 'string'],
    [['a', 'b'], 'string'],
  ])('%p is %s', (value, type) => {
    expect(inferType(value)).toBe(type);
  });
});

describe('fieldEntries', () => {
  it('registers nested leaves as dotted keys and skips null and empty values', () => {
    expect(fieldEntries({ plan: 'pro', profile: { tier: 'gold', since: '2024-01-01', gone: null, blank: '' }, tags: ['a'] })).toEqual([
      { key: 'plan', type: 'string' },
      { key: 'profile.tier', type: 'string' },
      { key: 'profile.since', type: 'date' },
      { key: 'tags', type: 'string' },
    ]);
  });
});

describe('dataProblems', () => {
  it('accepts ordinary payloads', () => {
    expect(dataProblems({ 'first name': 'Ada', profile: { tier: 'gold' } })).toEqual([]);
  });

  it('limits keys per object', () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
    expect(dataProblems(many)[0].message).toMatch(/at most 100 keys/);
    expect(dataProblems({ nested: many })[0].path).toEqual(['nested']);
    expect(dataProblems(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])))).toEqual([]);
  });

  it('limits key length and refuses empty or dotted keys', () => {
    expect(dataProblems({ ['x'.repeat(101)]: 1 })[0].message).toMatch(/1 to 100 characters/);
    expect(dataProblems({ ['x'.repeat(100)]: 1 })).toEqual([]);
    expect(dataProblems({ '': 1 })[0].message).toMatch(/1 to 100 characters/);
    expect(dataProblems({ 'a.b': 1 })[0]).toMatchObject({ path: ['a.b'], message: expect.stringMatching(/"\."/) });
  });

  it('limits nesting depth', () => {
    expect(dataProblems({ a: { b: { c: { d: { e: 1 } } } } })).toEqual([]);
    expect(dataProblems({ a: { b: { c: { d: { e: { f: 1 } } } } } })[0].path).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('cursor', () => {
  it('round-trips and refuses cursors of another sort or malformed ones', () => {
    const c = { sort: 'createdAt' as const, key: '2024-05-01T10:20:30.123456Z', id: 'cnt_x' };
    expect(parseContactCursor(encodeContactCursor(c), 'createdAt')).toEqual(c);
    expect(parseContactCursor(encodeContactCursor(c), 'email')).toBeNull();
    expect(parseContactCursor('not-a-cursor', 'createdAt')).toBeNull();
    expect(parseContactCursor(encodeContactCursor({ ...c, key: '2024-13-45T99:99:99.000000Z' }), 'createdAt')).toBeNull();
    expect(parseContactCursor(encodeContactCursor({ sort: 'email', key: 'a@b.co', id: 'cnt_y' }), 'email')).toEqual({
      sort: 'email',
      key: 'a@b.co',
      id: 'cnt_y',
    });
  });
});
