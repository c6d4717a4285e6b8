import { z } from 'zod';
import { fieldErrors, firstMessage } from '../../api/validation';
import { fieldLabel, labelOf, sentenceFor } from '../../lib/zodSentences';
import { DomainCreate } from '../../api/schemas/domains';
import { Credentials } from '../../api/schemas/auth';
import { TimeZoneName } from '../../api/schemas/settings';

/** Every zod issue kind reads as a sentence for people once api/validation.ts installs the error map. */

/** What zod's own English looks like: none of it may reach a person. */
const DEVELOPER_TEXT = /Too small|Too big|expected|Invalid input|invalid_type|>=|<=|must match pattern|Invalid option|Unrecognized key/;

/** The 422 detail messages of parsing `input` with `schema`, by field. */
function sentences(schema: z.ZodType, input: unknown): Record<string, string> {
  const r = schema.safeParse(input, { reportInput: true });
  if (r.success) throw new Error('expected the input to be refused');
  return Object.fromEntries(fieldErrors(r.error).map((e) => [e.field, e.message]));
}

describe('labels from the path', () => {
  it('turns camelCase names into words and keeps acronyms whole', () => {
    expect(labelOf('fromName')).toBe('From name');
    expect(labelOf('webhookUrl')).toBe('Webhook URL');
    expect(labelOf('segmentId')).toBe('Segment');
    expect(labelOf('id')).toBe('ID');
    expect(labelOf('reply_to')).toBe('Reply to');
    expect(labelOf('HTMLBody')).toBe('HTML body');
    expect(fieldLabel(['quietHours', 'start'])).toBe('Start');
    expect(fieldLabel(['tags', 2])).toBe('Item 3 of tags');
    expect(fieldLabel([])).toBe('This value');
    expect(fieldLabel(['name'], 'Project name')).toBe('Project name');
  });
});

describe('a sentence for every issue kind', () => {
  it('invalid_type: missing is "required", a wrong kind names the right one', () => {
    const s = z.object({ name: z.string(), age: z.number(), count: z.int(), on: z.boolean(), tags: z.array(z.string()), data: z.object({}) });
    expect(sentences(s, { age: 'x', count: 1.5, on: 'yes', tags: 'a', data: 3 })).toEqual({
      name: 'Name is required',
      age: 'Age must be a number',
      count: 'Count must be a whole number',
      on: 'On must be yes or no (true or false)',
      tags: 'Tags must be a list',
      data: 'Data must be a group of fields (an object)',
    });
  });

  it('too_small and too_big: characters, items and numbers in words', () => {
    const s = z.object({
      name: z.string().min(1),
      password: z.string().min(10).max(12),
      code: z.string().length(4),
      tags: z.array(z.string()).min(1),
      emails: z.array(z.string()).min(2).max(3),
      max: z.number().min(1).max(1000),
      rate: z.number().positive(),
      ratio: z.number().lt(1),
      when: z.date().min(new Date('2026-01-01T00:00:00Z')),
    });
    expect(
      sentences(s, { name: '', password: 'short', code: 'abcde', tags: [], emails: ['a'], max: 0, rate: 0, ratio: 1, when: new Date('2025-01-01') }),
    ).toEqual({
      name: 'Name is required',
      password: 'Password must be at least 10 characters',
      code: 'Code must be exactly 4 characters',
      tags: 'Tags needs at least one item',
      emails: 'Emails must be at least 2 items',
      max: 'Max must be at least 1',
      rate: 'Rate must be more than 0',
      ratio: 'Ratio must be less than 1',
      when: 'When must be on or after 2026-01-01T00:00:00.000Z',
    });
    expect(sentences(s.pick({ password: true, emails: true, max: true }), { password: 'x'.repeat(13), emails: ['a', 'b', 'c', 'd'], max: 1001 })).toEqual({
      password: 'Password must be at most 12 characters',
      emails: 'Emails must be at most 3 items',
      max: 'Max must be at most 1000',
    });
  });

  it('invalid_format: an example of the right form', () => {
    const s = z.object({
      email: z.string().email(),
      webhookUrl: z.string().url(),
      segmentId: z.string().uuid(),
      sendAt: z.iso.datetime(),
      day: z.iso.date(),
      slug: z.string().regex(/^[a-z]+$/),
      prefix: z.string().startsWith('re_'),
      suffix: z.string().endsWith('.com'),
      middle: z.string().includes('@'),
      ip: z.ipv4(),
    });
    const bad = Object.fromEntries(Object.keys(s.shape).map((k) => [k, 'nope!']));
    expect(sentences(s, bad)).toEqual({
      email: 'Enter a valid email address',
      webhookUrl: 'Webhook URL must be a full web address, like https://example.com/page',
      segmentId: 'Segment must be an ID such as 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f',
      sendAt: 'Send at must be a date and time, like 2026-05-01T09:30:00Z',
      day: 'Day must be a date, like 2026-05-01',
      slug: 'Slug is not in the right form',
      prefix: 'Prefix must start with "re_"',
      suffix: 'Suffix must end with ".com"',
      middle: 'Middle must contain "@"',
      ip: 'IP must be an IPv4 address, like 192.0.2.1',
    });
  });

  it('invalid_value, invalid_union, not_multiple_of, unrecognized_keys, invalid_key, invalid_element, custom', () => {
    const s = z.strictObject({
      per: z.enum(['hour', 'day', 'week']),
      kind: z.literal('MANUAL'),
      value: z.union([z.string(), z.number()]),
      step: z.number().multipleOf(5),
      data: z.record(z.string().regex(/^[a-z]+$/), z.string()),
      lookup: z.map(z.string(), z.number()),
      even: z.number().refine((n) => n % 2 === 0),
    });
    expect(sentences(s, { per: 'year', kind: 'X', value: true, step: 7, data: { 'Bad Key': 'v' }, lookup: new Map([['a', 'b']]), even: 3, extra: 1 })).toEqual({
      per: 'Per must be one of "hour", "day" or "week"',
      kind: 'Kind must be "MANUAL"',
      value: 'Value does not match any of the forms it can take',
      step: 'Step must be a multiple of 5',
      'data.Bad Key': '"Bad Key" is not an allowed name in data',
      'lookup.a': 'A must be a number',
      even: 'Even is not valid',
      '(root)': '"extra" is not a field we know; remove it',
    });
    const tagged = z.discriminatedUnion('type', [z.object({ type: z.literal('a') }), z.object({ type: z.literal('b') })]);
    expect(Object.values(sentences(z.object({ step: tagged }), { step: { type: 'c' } }))[0]).toBe('Type must be "a" or "b"');
    // Kinds zod 4 raises only from its own internals, fed to the map as zod would.
    expect(sentenceFor({ code: 'invalid_element', origin: 'set', path: ['tags'], input: 1, key: 0, issues: [] } as never)).toBe(
      'Tags holds a value that is not allowed',
    );
    expect(sentenceFor({ code: 'invalid_union', options: ['a', 'b'], path: ['type'], input: 'c', errors: [] } as never)).toBe('Type must be "a" or "b"');
  });

  it("keeps a schema's own words, gives them their subject, and takes a label from the schema", () => {
    expect(sentences(TimeZoneName, 'Mars/Base')).toEqual({ '(root)': 'This value must be an IANA time zone name such as Europe/Paris' });
    expect(sentences(z.object({ timezone: TimeZoneName }), { timezone: 'Mars/Base' })).toEqual({
      timezone: 'Timezone must be an IANA time zone name such as Europe/Paris',
    });
    expect(sentences(Credentials, { email: 'ada@example.com', password: 'short' })).toEqual({ password: 'Password must be at least 8 characters' });
    expect(sentences(z.object({ name: z.string().min(3).meta({ label: 'Project name' }) }), { name: 'x' })).toEqual({
      name: 'Project name must be at least 3 characters',
    });
    expect(sentences(DomainCreate, { domain: 'https://example.com/x' })).toEqual({
      domain: 'Enter a domain like example.com — without https://, a path, a port or an @',
    });
  });

  it('reads the same in the flat `{ error }` bodies, naming deep fields by their path', () => {
    const flat = (schema: z.ZodType, input: unknown) => firstMessage(schema.safeParse(input).error!);
    // A sentence naming its top-level field stands alone; one that does not keeps the path forms place it by.
    expect(flat(z.object({ from: z.string().min(1, 'From address is required') }), { from: '' })).toBe('From address is required');
    expect(flat(z.object({ fromName: z.string().max(3) }), { fromName: 'long' })).toBe('From name must be at most 3 characters');
    expect(firstMessage(z.object({ email: z.string() }).safeParse({}, { reportInput: true }).error!)).toBe('Email is required');
    expect(flat(z.object({ email: z.email() }), { email: 'x' })).toBe('email: Enter a valid email address');
    expect(flat(z.object({ document: z.object({ src: z.url() }) }), { document: { src: 'x' } })).toMatch(/^document\.src: /);
  });

  it('never lets developer text through, whatever the kind', () => {
    const s = z.strictObject({
      a: z.string().min(2),
      b: z.number().max(2),
      c: z.array(z.number()).nonempty(),
      d: z.enum(['x', 'y']),
      e: z.string().regex(/^\d+$/),
      f: z.union([z.literal(1), z.literal(2)]),
    });
    const all = Object.values(sentences(s, { a: 'x', b: 3, c: [], d: 'z', e: 'q', f: 3, g: 1 }));
    expect(all).toHaveLength(7);
    for (const m of all) expect(m).not.toMatch(DEVELOPER_TEXT);
  });
});
