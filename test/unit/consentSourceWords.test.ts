import i18n from 'i18next';
import { CONSENT_SOURCES } from '../../lib/consentSources';
import { formSource } from '../../lib/consentSources';
import { resources } from '../../web/src/i18n/resources';
import { sourceWords } from '../../web/src/api/consentWords';
import { startWebI18n } from '../helpers/webI18n';

/**
 * Where a subscription change came from, in the contact timeline's words: every source the server
 * writes (lib/consentSources.ts, its one list; tsc also holds the English catalogue to it through
 * the API's ConsentSources) has words in en, fr and de; a signup form's `form:<id>` reads as a form;
 * a source of an older record that the list does not name is shown as the API names it.
 */

beforeAll(startWebI18n);
afterAll(() => i18n.changeLanguage('en'));

type Tree = Record<string, unknown>;

describe('consent sources in words', () => {
  it('every source has words in en, fr and de, and the catalogue names no other', () => {
    for (const lng of ['en', 'fr', 'de'] as const) {
      const words = (resources[lng].contacts.timeline as unknown as { source: Tree }).source;
      expect([lng, CONSENT_SOURCES.filter((s) => typeof words[s] !== 'string' || !(words[s] as string).trim())]).toEqual([lng, []]);
      expect([lng, Object.keys(words).sort()]).toEqual([lng, [...CONSENT_SOURCES].sort()]);
    }
  });

  it("reads a form's source as a form, and an unknown one as written", async () => {
    await i18n.changeLanguage('de');
    const t = i18n.getFixedT('de', 'contacts');
    expect(sourceWords(t, 'one-click')).toBe('von der Person, per Ein-Klick-Abmeldung');
    expect(sourceWords(t, formSource('3f1c'))).toBe('von der Person, über ein Anmeldeformular');
    expect(sourceWords(t, 'legacy-sync')).toBe('durch legacy-sync');
    await i18n.changeLanguage('en');
  });
});
