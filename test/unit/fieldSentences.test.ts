import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { allRoutes } from '../../api/routes';
import { buildOpenApi } from '../../api/openapi';
import { LABELS } from '../../lib/fieldSentences/labels';
import { OWN_MESSAGES } from '../../lib/fieldSentences/ownMessages';
import { ownMessageIn } from '../../lib/zodSentences';

/** The French and German catalogues of the API's field sentences cover what the API can say (lib/fieldSentences/). */

const ROOT = path.join(__dirname, '../..');

/** Every property name a request body or query takes, however deep, read from the OpenAPI document. */
function requestPropertyNames(): Set<string> {
  const doc = buildOpenApi(allRoutes, { title: 'test', version: '0.0.0' });
  const names = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    const n = node as Record<string, unknown>;
    if (typeof n.$ref === 'string' && n.$ref.startsWith('#/components/schemas/')) walk(doc.components.schemas[n.$ref.slice('#/components/schemas/'.length)]);
    if (n.properties && typeof n.properties === 'object') for (const k of Object.keys(n.properties)) names.add(k);
    for (const value of Object.values(n)) walk(value);
  };
  for (const ops of Object.values<Record<string, any>>(doc.paths)) {
    for (const op of Object.values(ops)) {
      walk(op.requestBody);
      for (const p of op.parameters ?? []) {
        if (p.in !== 'query') continue;
        names.add(p.name);
        walk(p.schema);
      }
    }
  }
  return names;
}

/** The sources whose schemas write messages of their own that reach a 422 or a flat error. */
const MESSAGE_SOURCES = [
  ...fs
    .readdirSync(path.join(ROOT, 'api/schemas'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `api/schemas/${f}`),
  // A workflow step's config (api/schemas/workflows.ts parseStepConfig).
  ...fs
    .readdirSync(path.join(ROOT, 'temporal/steps'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `temporal/steps/${f}`),
  'lib/emailDocument.ts',
  'lib/brand.ts',
  'lib/formats.ts',
  'db/domains.ts',
];

/** zod methods whose string argument is the message of the issue they raise. */
const MESSAGE_METHODS = new Set([
  'min',
  'max',
  'length',
  'regex',
  'refine',
  'email',
  'url',
  'uuid',
  'int',
  'positive',
  'negative',
  'nonnegative',
  'nonpositive',
  'gt',
  'gte',
  'lt',
  'lte',
  'nonempty',
  'multipleOf',
]);

/**
 * Every message written in those sources: string arguments of the methods above, and `message:` /
 * `error:` values (an error function's strings too). A template's `${…}` parts become "5", which both a
 * number and any words match in the catalogue's keys.
 */
function literalMessages(): Array<{ file: string; message: string }> {
  const found = new Map<string, string>();
  const textOf = (n: ts.Node): string | undefined => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
    if (ts.isTemplateExpression(n)) return n.head.text + n.templateSpans.map((s) => `5${s.literal.text}`).join('');
    return undefined;
  };
  // A message is words, not an argument like startsWith('_') or a regex source.
  const add = (text: string | undefined, file: string) => {
    if (text && /[a-z]{2,}.* /i.test(text)) found.set(text, file);
  };
  for (const file of MESSAGE_SOURCES) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name) && (n.name.text === 'message' || n.name.text === 'error')) {
        add(textOf(n.initializer), file);
        if (ts.isArrowFunction(n.initializer)) {
          const inner = (c: ts.Node): void => {
            const t = textOf(c);
            if (t) add(t, file);
            else c.forEachChild(inner);
          };
          n.initializer.body.forEachChild(inner);
        }
      }
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && MESSAGE_METHODS.has(n.expression.name.text)) {
        for (const a of n.arguments) add(textOf(a), file);
      }
      n.forEachChild(visit);
    };
    visit(source);
  }
  return [...found].map(([message, file]) => ({ file, message }));
}

describe('field labels in French and German', () => {
  it('has one for every property a request body or query takes', () => {
    const names = requestPropertyNames();
    expect(names.size).toBeGreaterThan(100);
    const missing = [...names].filter((n) => !Object.hasOwn(LABELS, n)).sort();
    expect(missing).toEqual([]);
  });

  it('never leaves a label empty or the same as the name it is keyed by in camelCase', () => {
    for (const [name, words] of Object.entries(LABELS)) {
      for (const label of [words.fr, words.de]) {
        expect({ name, label }).toEqual({ name, label: expect.stringMatching(/\S/) });
        if (/[a-z][A-Z]/.test(name)) expect(label).not.toBe(name);
      }
    }
  });
});

describe('the schemas’ own messages in French and German', () => {
  const messages = literalMessages();

  it('finds the messages the schemas write', () => {
    // The finder itself: if it stopped seeing messages, the next test would pass on nothing.
    expect(messages.length).toBeGreaterThan(100);
    expect(messages.map((m) => m.message)).toEqual(
      expect.arrayContaining([
        'must be a 24-hour HH:MM time such as 21:00',
        'Enter a domain like example.com — without https://, a path, a port or an @',
        '5 is required',
      ]),
    );
  });

  it('has a translation for every one', () => {
    const missing = messages
      .filter(({ message }) => ['fr', 'de'].some((lang) => ownMessageIn(message, ['name'], lang as 'fr' | 'de') === undefined))
      .map(({ file, message }) => `${file}: ${message}`);
    expect(missing).toEqual([]);
  });

  it('repeats in a translation every value its English carries', () => {
    for (const [key, words] of Object.entries(OWN_MESSAGES)) {
      const names = [...key.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((n) => n !== 'label');
      for (const lang of ['fr', 'de'] as const) {
        const used = [...words[lang].matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((n) => n !== 'subject');
        expect({ key, lang, used: used.sort() }).toEqual({ key, lang, used: names.sort() });
      }
    }
  });

  it('fills values and the field’s subject into the translation', () => {
    expect(ownMessageIn('Status must be one of QUEUED, SENT', ['status'], 'fr')).toBe('Le champ « Statut » doit être l’une des valeurs QUEUED, SENT');
    expect(ownMessageIn('the key "city" is used by another field', ['fields', 1, 'key'], 'de')).toBe(
      'der Schlüssel „city“ wird von einem anderen Feld verwendet',
    );
    expect(ownMessageIn('must be in the future', ['expiresAt'], 'de')).toBe('Das Feld „Ablaufdatum“ muss in der Zukunft liegen');
    expect(ownMessageIn('sendRatePerMinute must be at least 1', ['sendRatePerMinute'], 'fr')).toBe('Le champ « Envois par minute » doit valoir au moins 1');
    // The more specific sentence wins over the general one it also matches.
    expect(ownMessageIn('Password must be at least 8 characters', ['password'], 'fr')).toBe('Le champ « Mot de passe » doit contenir au moins 8 caractères');
    expect(ownMessageIn('Le champ « Nom » est obligatoire', ['name'], 'fr')).toBeUndefined();
  });
});
