import { resources } from '../../web/src/i18n/resources';

/**
 * The dashboard's catalogues (web/src/i18n): French and German have exactly the keys of English, and
 * each translation keeps the sentence's placeholders ({{email}}) and markup (<link>, <strong>), which
 * the screens fill in. tsc checks the keys too (types.ts); this also catches a catalogue written
 * around the types (a cast) and a placeholder lost in translation.
 */

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

const keysOf = (lng: keyof typeof resources) => flatten(resources[lng] as unknown as Tree);
const marks = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}|<\/?(\w+)\s*\/?>/g)].map((m) => m[0].replace(/\s/g, '')).sort();

describe('dashboard catalogues', () => {
  const en = keysOf('en');

  it('English has the namespaces the dashboard loads, and words in every key', () => {
    expect(Object.keys(resources.en).sort()).toEqual([
      'account',
      'campaigns',
      'common',
      'contacts',
      'data',
      'editor',
      'frame',
      'home',
      'mail',
      'settings',
      'starters',
      'steps',
      'workflows',
    ]);
    for (const [key, text] of en) expect([key, text.trim().length > 0]).toEqual([key, true]);
  });

  for (const lng of ['fr', 'de'] as const) {
    it(`${lng} has every key of en and no other`, () => {
      const other = keysOf(lng);
      expect({ missing: [...en.keys()].filter((k) => !other.has(k)), extra: [...other.keys()].filter((k) => !en.has(k)) }).toEqual({ missing: [], extra: [] });
    });

    it(`${lng} keeps each sentence's placeholders and markup`, () => {
      const other = keysOf(lng);
      const differ = [...en]
        .filter(([key, text]) => other.has(key) && JSON.stringify(marks(text)) !== JSON.stringify(marks(other.get(key)!)))
        .map(([key]) => key);
      expect(differ).toEqual([]);
    });
  }

  it('the comparison sees a missing key and a lost placeholder (the checks can fail)', () => {
    const a = flatten({ x: 'Hello {{name}}', y: { z: 'a' } });
    const b = flatten({ x: 'Bonjour', y: {} });
    expect([...a.keys()].filter((k) => !b.has(k))).toEqual(['y.z']);
    expect(marks(a.get('x')!)).not.toEqual(marks(b.get('x')!));
  });
});
