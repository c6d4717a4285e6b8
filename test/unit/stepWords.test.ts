import i18next, { type TFunction } from 'i18next';
import { STEP_CATEGORIES, STEP_TYPES } from '../../temporal/steps';
import { describeStepTypes } from '../../services/stepTypes';
import { resources } from '../../web/src/i18n/resources';
import { stepWords } from '../../web/src/components/workflow/stepWords';

/**
 * The workflow editor speaks the built-in step types in every language (web/src/i18n/<lng>/steps.ts):
 * each type of the server's registry, each palette group, each fixed branch and each config field
 * has words in en, fr and de, and the English is the server's own. Anything else (a plugin's type)
 * keeps the server's words (stepWords).
 */

const LANGUAGES = ['en', 'fr', 'de'] as const;
const tIn = (lng: (typeof LANGUAGES)[number]): TFunction<'steps'> => {
  const i = i18next.createInstance();
  void i.init({ resources, lng, fallbackLng: false, ns: ['steps'], defaultNS: 'steps', initAsync: false, interpolation: { escapeValue: false } });
  return i.getFixedT(lng, 'steps') as TFunction<'steps'>;
};

type Json = { properties?: Record<string, Json>; items?: Json; anyOf?: Json[]; oneOf?: Json[]; enum?: unknown[] };
/** Every property name and enum value of a JSON Schema. */
function namesIn(schema: Json, keys = new Set<string>(), values = new Set<string>()): { keys: Set<string>; values: Set<string> } {
  for (const [k, v] of Object.entries(schema.properties ?? {})) {
    keys.add(k);
    namesIn(v, keys, values);
  }
  for (const v of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.items ? [schema.items] : [])]) namesIn(v, keys, values);
  for (const e of schema.enum ?? []) values.add(String(e));
  return { keys, values };
}

const builtIn = STEP_TYPES.map((d) => d.type);
const fixedBranches = [...new Set(STEP_TYPES.flatMap((d) => (typeof d.branches === 'function' ? [] : [...d.branches])))];
const schemas = describeStepTypes().map((d) => namesIn(d.configSchema as Json));
const fieldKeys = [...new Set(schemas.flatMap((s) => [...s.keys]))];
// HTTP methods are the same words in every language.
const enumValues = [...new Set(schemas.flatMap((s) => [...s.values]))].filter((v) => !['GET', 'POST', 'PUT', 'PATCH'].includes(v));

describe('the step catalogue', () => {
  it('knows exactly the registry’s built-in types, and its English titles and descriptions are the server’s', () => {
    expect(Object.keys(resources.en.steps.types).sort()).toEqual([...builtIn].sort());
    for (const def of STEP_TYPES) {
      const words = resources.en.steps.types[def.type as keyof typeof resources.en.steps.types];
      expect({ type: def.type, title: words.title, description: words.description }).toEqual({
        type: def.type,
        title: def.title,
        description: def.description,
      });
    }
  });

  it.each(LANGUAGES)('%s has words for every built-in type, group, fixed branch, config field and value', (lng) => {
    const t = tIn(lng);
    const missing = (keys: string[]) => keys.filter((k) => !t(k as never, { defaultValue: '' }));
    expect({
      types: missing(builtIn.flatMap((type) => [`types.${type}.title`, `types.${type}.description`])),
      groups: missing(STEP_CATEGORIES.map((c) => `categories.${c}`)),
      branches: missing(fixedBranches.map((b) => `branches.${b}`)),
      fields: missing(fieldKeys.map((k) => `fields.${k}`)),
      values: missing(enumValues.map((v) => `values.${v}`)),
    }).toEqual({ types: [], groups: [], branches: [], fields: [], values: [] });
  });

  it('speaks French for a built-in type and keeps the server’s words for a plugin’s', () => {
    const w = stepWords(tIn('fr'));
    expect(w.title('SEND_EMAIL', 'Send email')).toBe('Envoyer un e-mail');
    expect(w.category('Messages')).toBe('Messages');
    expect(w.category('Timing')).toBe('Temps');
    expect(w.branch('next')).toBe('suite');
    expect(w.branchLabel('yes')).toBe('Oui');
    expect(w.field('templateId')).toBe('Modèle');
    expect(w.value('mon')).toBe('lundi');
    // A plugin's type, group, branch names, fields and values: the server's words.
    expect(w.title('STAMP', 'Stamp contact')).toBe('Stamp contact');
    expect(w.description('STAMP', 'Puts a label on the contact, for tests.')).toBe('Puts a label on the contact, for tests.');
    expect(w.category('Custom')).toBe('Custom');
    expect(w.branch('gold')).toBe('gold');
    expect(w.branchLabel('my_branch')).toBe('My branch');
    expect(w.field('labelName')).toBe('Label name');
    expect(w.item('tiers', 'Tiers')).toBe('tier');
    expect(w.value('vip')).toBe('vip');
  });

  it('names a step by its type’s title in the person’s language only while it carries the server’s title', () => {
    const w = stepWords(tIn('fr'));
    expect(w.stepName({ type: 'TRIGGER', name: 'Trigger', title: 'Trigger' })).toBe('Déclencheur');
    expect(w.stepName({ type: 'SEND_EMAIL', name: 'Welcome mail', title: 'Send email' })).toBe('Welcome mail');
    expect(w.stepName({ type: 'STAMP', name: 'Stamp contact', title: 'Stamp contact' })).toBe('Stamp contact');
  });
});
