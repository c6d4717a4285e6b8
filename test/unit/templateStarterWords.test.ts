import i18next, { type TFunction } from 'i18next';
import { STARTERS } from '../../lib/starters';
import { resources } from '../../web/src/i18n/resources';
import { starterWords } from '../../web/src/components/emailEditor/starterWords';

/**
 * "New template" names the server's template starters in every language (web/src/i18n/<lng>/starters.ts),
 * the English being the server's own; a starter the catalogue does not know keeps the server's words.
 */

const tIn = (lng: 'en' | 'fr' | 'de'): TFunction<'starters'> => {
  const i = i18next.createInstance();
  void i.init({ resources, lng, fallbackLng: false, ns: ['starters'], defaultNS: 'starters', initAsync: false, interpolation: { escapeValue: false } });
  return i.getFixedT(lng, 'starters') as TFunction<'starters'>;
};

describe('the starter catalogue', () => {
  it('knows exactly the server’s starters, in its English words', () => {
    expect(Object.keys(resources.en.starters.templates)).toEqual(STARTERS.map((s) => s.id));
    for (const s of STARTERS)
      expect(resources.en.starters.templates[s.id as keyof typeof resources.en.starters.templates]).toEqual({ name: s.name, description: s.description });
  });

  it.each(['en', 'fr', 'de'] as const)('%s has a name and a description for every starter', (lng) => {
    const t = tIn(lng);
    const missing = STARTERS.flatMap((s) => [`templates.${s.id}.name`, `templates.${s.id}.description`]).filter((k) => !t(k as never, { defaultValue: '' }));
    expect(missing).toEqual([]);
  });

  it('speaks French for a known starter, and the server’s words for another', () => {
    const w = starterWords(tIn('fr'));
    expect(w.name({ id: 'welcome', name: 'Welcome' })).toBe('Bienvenue');
    expect(w.name({ id: 'holiday', name: 'Holiday sale' })).toBe('Holiday sale');
    expect(w.description({ id: 'holiday', description: 'A sale' })).toBe('A sale');
  });

  it('writes a new email’s body in the person’s language, keeping the template syntax', () => {
    expect(starterWords(tIn('en')).draftBody).toBe('<h1>Hello {{ data.firstName ?? "there" }}</h1>\n<p>Write your message here.</p>');
    expect(starterWords(tIn('fr')).draftBody).toBe('<h1>Bonjour {{ data.firstName ?? "à vous" }}</h1>\n<p>Écrivez votre message ici.</p>');
    expect(starterWords(tIn('de')).block.heading).toBe('Eine Überschrift');
  });
});
