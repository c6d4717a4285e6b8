import { segmentSlug as slugify, segmentEventName, membershipEventId } from '../../db/segments';
import { SegmentCreate, SegmentUpdate, MembersAdd, CONDITION_REQUIRED } from '../../api/schemas/segments';
import { firstMessage } from '../../api/validation';
import { isReservedEventName } from '../../api/schemas/track';

const tree = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

const errorOf = (schema: { safeParse(v: unknown): any }, input: unknown) => {
  const r = schema.safeParse(input);
  return r.success ? null : firstMessage(r.error);
};

describe('slugify', () => {
  it.each([
    ['VIP Customers', 'vip-customers'],
    ['  Pro -- users (EU)!  ', 'pro-users-eu'],
    ['Été 2024', 't-2024'],
    ['a_b.c', 'a-b-c'],
    ['!!!', 'segment'],
    ['日本', 'segment'],
  ])('%j → %s', (name, slug) => expect(slugify(name)).toBe(slug));

  it('names entry/exit events that /v1/track refuses to accept from callers', () => {
    expect(segmentEventName('vip', 'entry')).toBe('segment.vip.entry');
    expect(segmentEventName('vip', 'exit')).toBe('segment.vip.exit');
    expect(isReservedEventName(segmentEventName(slugify('Any name at all'), 'entry'))).toBe(true);
  });
});

describe('membership event ids', () => {
  it('are the same for a retried batch and differ per run, contact and change', () => {
    const id = membershipEventId('s1', 'c1', 'run1', 'entry');
    expect(membershipEventId('s1', 'c1', 'run1', 'entry')).toBe(id);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const others = [
      membershipEventId('s1', 'c1', 'run2', 'entry'),
      membershipEventId('s1', 'c2', 'run1', 'entry'),
      membershipEventId('s1', 'c1', 'run1', 'exit'),
      membershipEventId('s2', 'c1', 'run1', 'entry'),
    ];
    expect(new Set([id, ...others]).size).toBe(5);
  });
});

describe('SegmentCreate', () => {
  it('defaults to DYNAMIC, untracked, and requires a condition object for it with the spec message', () => {
    expect(SegmentCreate.parse({ name: 'x', condition: tree })).toMatchObject({ type: 'DYNAMIC', trackMembership: false, condition: tree });
    for (const condition of [undefined, null, 'tree', [tree], 5]) expect(errorOf(SegmentCreate, { name: 'x', condition })).toBe(CONDITION_REQUIRED);
    expect(CONDITION_REQUIRED).toBe('Condition is required and must be an object for DYNAMIC segments');
  });

  it('ignores (neither checks nor keeps) a condition sent with a STATIC segment', () => {
    const parsed = SegmentCreate.parse({ name: 'x', type: 'STATIC', condition: { nonsense: true } });
    expect(parsed.condition).toBeUndefined();
    expect(parsed.type).toBe('STATIC');
  });

  it('checks the tree and keeps only the keys the tree schema knows', () => {
    const parsed = SegmentCreate.parse({ name: 'x', condition: { ...tree, extra: 1, groups: [{ filters: [{ ...tree.groups[0].filters[0], junk: 2 }] }] } });
    expect(parsed.condition).toEqual(tree);
    expect(errorOf(SegmentCreate, { name: 'x', condition: { logic: 'XOR', groups: tree.groups } })).toMatch(/^condition\.logic: /);
    expect(errorOf(SegmentCreate, { name: 'x', condition: { logic: 'AND', groups: [] } })).toMatch(/^condition\.groups: /);
  });

  it('limits name to 100 and description to 500 characters', () => {
    expect(errorOf(SegmentCreate, { name: 'n'.repeat(100), description: 'd'.repeat(500), condition: tree })).toBeNull();
    expect(errorOf(SegmentCreate, { name: 'n'.repeat(101), condition: tree })).toBe('Name must be at most 100 characters');
    expect(errorOf(SegmentCreate, { name: 'n', description: 'd'.repeat(501), condition: tree })).toBe('Description must be at most 500 characters');
    expect(errorOf(SegmentCreate, { name: '   ', condition: tree })).toBe('Name is required');
  });
});

describe('SegmentUpdate', () => {
  it('takes any subset, refuses an empty patch and a null condition', () => {
    expect(SegmentUpdate.parse({ trackMembership: true })).toEqual({ trackMembership: true, condition: undefined });
    expect(errorOf(SegmentUpdate, {})).toBe('Nothing to update');
    expect(errorOf(SegmentUpdate, { condition: null })).toBe(CONDITION_REQUIRED);
  });
});

describe('MembersAdd', () => {
  it('takes 1 to 1000 valid emails', () => {
    expect(errorOf(MembersAdd, { emails: ['a@example.com'], createMissing: true, subscribed: false })).toBeNull();
    expect(errorOf(MembersAdd, {})).toBe('Emails are required');
    expect(errorOf(MembersAdd, { emails: [] })).toBe('Emails must list at least one address');
    expect(errorOf(MembersAdd, { emails: Array.from({ length: 1001 }, (_, i) => `a${i}@example.com`) })).toBe(
      'Emails may list at most 1000 addresses per call',
    );
    expect(errorOf(MembersAdd, { emails: ['nope'] })).toMatch(/^emails\.0: Each email must be a valid email address$/);
  });
});
