import { z } from 'zod';
import { fieldErrors, firstMessage, safeParse } from '../../api/validation';
import { composeSentence, FIELD_WORDS, fieldLabel, labelOf, sentenceFor } from '../../lib/zodSentences';
import type { SentenceLanguage } from '../../lib/fieldSentences/types';
import { DomainCreate } from '../../api/schemas/domains';
import { Credentials } from '../../api/schemas/auth';
import { TimeZoneName } from '../../api/schemas/settings';
import { StepCreate } from '../../api/schemas/workflows';

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

describe('in French and German (the request’s Accept-Language)', () => {
  /** The 422 detail messages in `lang`, parsed as the router parses for that language. */
  function sentencesIn(lang: SentenceLanguage, schema: z.ZodType, input: unknown): Record<string, string> {
    const r = safeParse(schema, input, lang);
    if (r.success) throw new Error('expected the input to be refused');
    return Object.fromEntries(fieldErrors(r.error, lang).map((e) => [e.field, e.message]));
  }
  /** English words of the sentences: none may stand in a French or German one. */
  const ENGLISH = /\b(must|is required|characters|items|field we know|a number|at least|at most|the right form|not valid|Item \d)\b/;

  const every = z.strictObject({
    name: z.string(),
    password: z.string().min(10).max(12),
    code: z.string().length(4),
    tags: z.array(z.string()).min(1),
    emails: z.array(z.string()).min(2),
    max: z.number().min(1),
    rate: z.number().positive(),
    ratio: z.number().lt(1),
    count: z.int(),
    on: z.boolean(),
    when: z.date().min(new Date('2026-01-01T00:00:00Z')),
    email: z.email(),
    webhookUrl: z.url(),
    segmentId: z.uuid(),
    sendAt: z.iso.datetime(),
    slug: z.string().regex(/^[a-z]+$/),
    prefix: z.string().startsWith('re_'),
    suffix: z.string().endsWith('.com'),
    middle: z.string().includes('@'),
    per: z.enum(['hour', 'day', 'week']),
    kind: z.literal('MANUAL'),
    value: z.union([z.string(), z.number()]),
    step: z.number().multipleOf(5),
    data: z.record(z.string().regex(/^[a-z]+$/), z.string()),
    even: z.number().refine((n) => n % 2 === 0),
    timezone: TimeZoneName,
  });
  const bad = {
    password: 'short',
    code: 'abcde',
    tags: [],
    emails: ['a'],
    max: 0,
    rate: 0,
    ratio: 1,
    count: 1.5,
    on: 'yes',
    when: new Date('2025-01-01'),
    email: 'x',
    webhookUrl: 'x',
    segmentId: 'x',
    sendAt: 'x',
    slug: 'X',
    prefix: 'x',
    suffix: 'x',
    middle: 'x',
    per: 'year',
    kind: 'X',
    value: true,
    step: 7,
    data: { 'Bad Key': 'v' },
    even: 3,
    timezone: 'Mars/Base',
    extra: 1,
  };

  it('French: every issue kind in French words, the field named by its French label', () => {
    expect(sentencesIn('fr', every, bad)).toEqual({
      name: 'Le champ « Nom » est obligatoire',
      password: 'Le champ « Mot de passe » doit contenir au moins 10 caractères',
      code: 'Le champ « Code » doit contenir exactement 4 caractères',
      tags: 'Ce champ doit contenir au moins un élément',
      emails: 'Le champ « E-mails » doit contenir au moins 2 éléments',
      max: 'Le champ « Maximum » doit valoir au moins 1',
      rate: 'Ce champ doit valoir plus de 0',
      ratio: 'Ce champ doit valoir moins de 1',
      count: 'Ce champ doit être un nombre entier',
      on: 'Ce champ doit être oui ou non (true ou false)',
      when: 'Ce champ doit être le 2026-01-01T00:00:00.000Z ou après',
      email: 'Saisissez une adresse e-mail valide',
      webhookUrl: 'Ce champ doit être une adresse web complète, comme https://example.com/page',
      segmentId: 'Le champ « Segment » doit être un identifiant comme 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f',
      sendAt: 'Le champ « Date d’envoi » doit être une date et une heure, comme 2026-05-01T09:30:00Z',
      slug: 'Le champ « Identifiant » n’a pas la forme attendue',
      prefix: 'Ce champ doit commencer par "re_"',
      suffix: 'Ce champ doit se terminer par ".com"',
      middle: 'Ce champ doit contenir "@"',
      per: 'Le champ « Par » doit être l’une des valeurs "hour", "day" ou "week"',
      kind: 'Le champ « Type » doit être "MANUAL"',
      value: 'Le champ « Valeur » ne correspond à aucune des formes possibles',
      step: 'Ce champ doit être un multiple de 5',
      'data.Bad Key': '"Bad Key" n’est pas un nom autorisé dans le champ « Données »',
      even: 'Ce champ n’est pas valide',
      timezone: 'Le champ « Fuseau horaire » doit être un nom de fuseau horaire IANA, comme Europe/Paris',
      '(root)': '"extra" n’est pas un champ que nous connaissons ; retirez-le',
    });
  });

  it('German: every issue kind in German words, the field named by its German label', () => {
    expect(sentencesIn('de', every, bad)).toEqual({
      name: 'Das Feld „Name“ ist erforderlich',
      password: 'Das Feld „Passwort“ muss mindestens 10 Zeichen lang sein',
      code: 'Das Feld „Code“ muss genau 4 Zeichen lang sein',
      tags: 'Dieses Feld muss mindestens einen Eintrag enthalten',
      emails: 'Das Feld „E-Mails“ muss mindestens 2 Einträge enthalten',
      max: 'Das Feld „Maximum“ muss mindestens 1 sein',
      rate: 'Dieses Feld muss größer als 0 sein',
      ratio: 'Dieses Feld muss kleiner als 1 sein',
      count: 'Dieses Feld muss eine ganze Zahl sein',
      on: 'Dieses Feld muss ja oder nein (true oder false) sein',
      when: 'Dieses Feld muss am oder nach dem 2026-01-01T00:00:00.000Z liegen',
      email: 'Geben Sie eine gültige E-Mail-Adresse ein',
      webhookUrl: 'Dieses Feld muss eine vollständige Webadresse sein, etwa https://example.com/page',
      segmentId: 'Das Feld „Segment“ muss eine ID wie 4f9c2d1e-8a3b-4c5d-9e6f-0a1b2c3d4e5f sein',
      sendAt: 'Das Feld „Sendezeitpunkt“ muss ein Datum mit Uhrzeit sein, etwa 2026-05-01T09:30:00Z',
      slug: 'Das Feld „Kürzel“ hat nicht die richtige Form',
      prefix: 'Dieses Feld muss mit "re_" beginnen',
      suffix: 'Dieses Feld muss auf ".com" enden',
      middle: 'Dieses Feld muss "@" enthalten',
      per: 'Das Feld „Pro“ muss einer der Werte "hour", "day" oder "week" sein',
      kind: 'Das Feld „Art“ muss "MANUAL" sein',
      value: 'Das Feld „Wert“ passt zu keiner der möglichen Formen',
      step: 'Dieses Feld muss ein Vielfaches von 5 sein',
      'data.Bad Key': '"Bad Key" ist im Feld „Daten“ kein erlaubter Name',
      even: 'Dieses Feld ist ungültig',
      timezone: 'Das Feld „Zeitzone“ muss ein IANA-Zeitzonenname sein, etwa Europe/Paris',
      '(root)': '"extra" ist kein Feld, das wir kennen; bitte entfernen Sie es',
    });
  });

  it('English stays as it was when the parse names no language', () => {
    const english = sentences(every, bad);
    expect(sentencesIn('en', every, bad)).toEqual(english);
    expect(english.password).toBe('Password must be at least 10 characters');
  });

  it('has every issue kind the English path speaks, in both languages, with no English word', () => {
    const kinds: Array<Record<string, unknown>> = [
      { code: 'invalid_type', expected: 'string', input: 3 },
      { code: 'invalid_type', expected: 'number', input: Number.NaN },
      { code: 'invalid_type', expected: 'array', input: undefined },
      ...(['string', 'array', 'set', 'map', 'file'] as const).flatMap((origin) => [
        { code: 'too_small', origin, minimum: 1, inclusive: true },
        { code: 'too_small', origin, minimum: 3, inclusive: true, exact: true },
        { code: 'too_small', origin, minimum: 2, inclusive: false },
        { code: 'too_big', origin, maximum: 1, inclusive: true },
        { code: 'too_big', origin, maximum: 9, inclusive: false },
        { code: 'too_big', origin, maximum: 3, exact: true },
      ]),
      { code: 'too_small', origin: 'date', minimum: 0 },
      { code: 'too_big', origin: 'date', maximum: 0 },
      { code: 'too_small', origin: 'number', minimum: 2, exact: true },
      { code: 'too_big', origin: 'number', maximum: 2, inclusive: false },
      ...Object.keys(FIELD_WORDS.en.formats).map((format) => ({ code: 'invalid_format', format })),
      { code: 'invalid_format', format: 'lowercase' },
      { code: 'not_multiple_of', divisor: 3 },
      { code: 'unrecognized_keys', keys: ['a'] },
      { code: 'unrecognized_keys', keys: ['a', 'b'] },
      { code: 'invalid_union', options: ['a', 'b'], errors: [] },
      { code: 'invalid_union', errors: [] },
      { code: 'invalid_key', origin: 'record', issues: [] },
      { code: 'invalid_element', origin: 'set', key: 0, issues: [] },
      { code: 'invalid_value', values: ['a'] },
      { code: 'invalid_value', values: ['a', 'b'] },
      { code: 'custom' },
    ];
    for (const path of [['tags'], ['tags', 2], ['settings', 'quietHours'], []]) {
      for (const kind of kinds) {
        const issue = { input: 'x', path, ...kind } as never;
        const english = composeSentence(issue, 'en');
        expect(english).toBeDefined();
        for (const lang of ['fr', 'de'] as const) {
          const said = composeSentence(issue, lang);
          expect({ kind, path, said }).toEqual({ kind, path, said: expect.any(String) });
          expect({ kind, path, said }).not.toEqual({ kind, path, said: expect.stringMatching(ENGLISH) });
          if (kind.format !== 'email') expect(said).not.toBe(english);
        }
      }
    }
  });

  it('counts in the language’s plural, and names list items by their list', () => {
    const s = z.object({ password: z.string().length(1), topics: z.array(z.string().min(2)) });
    expect(sentencesIn('fr', s, { password: 'ab', topics: ['x'] })).toEqual({
      password: 'Le champ « Mot de passe » doit contenir exactement 1 caractère',
      'topics.0': 'L’élément 1 du champ « Thèmes » doit contenir au moins 2 caractères',
    });
    expect(sentencesIn('de', s, { password: 'ab', topics: ['x'] })).toEqual({
      password: 'Das Feld „Passwort“ muss genau 1 Zeichen lang sein',
      'topics.0': 'Eintrag 1 im Feld „Themen“ muss mindestens 2 Zeichen lang sein',
    });
  });

  it('translates a schema’s own English, giving it the field’s subject in that language', () => {
    expect(sentencesIn('fr', DomainCreate, { domain: 'https://example.com/x' })).toEqual({
      domain: 'Saisissez un domaine comme example.com — sans https://, chemin, port ni @',
    });
    expect(sentencesIn('de', Credentials, { email: 'ada@example.com', password: 'short' })).toEqual({
      password: 'Das Feld „Passwort“ muss mindestens 8 Zeichen lang sein',
    });
    expect(sentencesIn('fr', z.object({ start: z.string().regex(/^\d\d:\d\d$/, 'must be a 24-hour HH:MM time such as 21:00') }), { start: '9h' })).toEqual({
      start: 'Le champ « Début » doit être une heure au format 24 h HH:MM, comme 21:00',
    });
    // A message the catalogue does not know keeps its words (with its English subject), never vanishes.
    expect(sentencesIn('de', z.object({ x: z.string().min(2, 'Sag mehr') }), { x: 'a' })).toEqual({ x: 'Sag mehr' });
  });

  it('words a workflow step’s config in the request’s language too, its code still `custom`', () => {
    const step = { type: 'WEBHOOK', config: { url: 'not a url' }, position: { x: 0, y: 0 } };
    const errors = (lang: SentenceLanguage) => fieldErrors(safeParse(StepCreate, step, lang).error!, lang);
    expect(errors('en')[0]).toEqual({ field: 'config.url', code: 'custom', message: 'URL must be a full web address, like https://example.com/page' });
    expect(errors('fr')[0]).toEqual({
      field: 'config.url',
      code: 'custom',
      message: 'Le champ « URL » doit être une adresse web complète, comme https://example.com/page',
    });
    expect(errors('de').map((e) => e.message)).toEqual([
      'Das Feld „URL“ muss eine vollständige Webadresse sein, etwa https://example.com/page',
      'Das Feld „URL“ muss http oder https sein',
    ]);
  });

  it('reads the same in the flat `{ error }` bodies: a labelled top-level field alone, others by their path', () => {
    const flat = (lang: SentenceLanguage, schema: z.ZodType, input: unknown) => firstMessage(safeParse(schema, input, lang).error!, lang);
    expect(flat('fr', z.object({ fromName: z.string().max(3) }), { fromName: 'long' })).toBe(
      'Le champ « Nom de l’expéditeur » doit contenir au plus 3 caractères',
    );
    expect(flat('de', z.object({ name: z.string().min(1, 'Name is required') }), { name: '' })).toBe('Das Feld „Name“ ist erforderlich');
    expect(flat('fr', z.object({ email: z.email() }), { email: 'x' })).toBe('email: Saisissez une adresse e-mail valide');
    expect(flat('de', z.object({ document: z.object({ src: z.url() }) }), { document: { src: 'x' } })).toMatch(/^document\.src: Das Feld „Quelle“ muss/);
  });
});
