import fs from 'node:fs';
import path from 'node:path';
import i18n from 'i18next';
import { CODE_SENTENCES, MESSAGE_SENTENCES, NOT_FOUND_THINGS, errorWords, sentenceWords } from '../../web/src/api/errorWords';
import { ApiError, messageOf } from '../../web/src/api/client';
import { forPeople } from '../../web/src/api/fieldErrors';
import { resources } from '../../web/src/i18n/resources';
import { startWebI18n } from '../helpers/webI18n';

/**
 * The API's fixed error sentences in the dashboard's language (web/src/api/errorWords.ts): each code
 * and sentence it maps has words in en, fr and de and names something the server really answers; a
 * message it does not know keeps the server's words.
 */

const ROOT = path.join(__dirname, '../..');
/** The server's own source (api/, services/, db/, lib/), where its error codes and sentences are written. */
const serverSource = ['api', 'services', 'db', 'lib']
  .flatMap((dir) => (fs.readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]).map((f) => path.join(ROOT, dir, f)))
  .filter((f) => f.endsWith('.ts') && !f.includes(`${path.sep}migrations${path.sep}`))
  .map((f) => fs.readFileSync(f, 'utf8'))
  .join('\n');

const apiError = (lng: 'en' | 'fr' | 'de') => resources[lng].common.apiError as unknown as Record<string, unknown>;
const at = (tree: Record<string, unknown>, key: string) => key.split('.').reduce<unknown>((t, k) => (t as Record<string, unknown> | undefined)?.[k], tree);

describe('API error sentences', () => {
  it('every mapped code, sentence and 404 thing has words in en, fr and de', () => {
    const keys = [
      ...Object.values(CODE_SENTENCES),
      ...MESSAGE_SENTENCES.map(([, key]) => key),
      ...Object.values(NOT_FOUND_THINGS).map((k) => `thing.${k}`),
      'notFound',
      'serverAnswered',
      'notValid',
    ];
    for (const lng of ['en', 'fr', 'de'] as const) {
      const missing = keys.filter((k) => typeof at(apiError(lng), k) !== 'string');
      expect([lng, missing]).toEqual([lng, []]);
    }
  });

  it('maps codes and things the server answers (none invented, none left after a rename)', () => {
    for (const code of Object.keys(CODE_SENTENCES)) expect([code, serverSource.includes(`'${code}'`)]).toEqual([code, true]);
    for (const thing of Object.keys(NOT_FOUND_THINGS))
      expect([thing, serverSource.includes(`notFound('${thing}')`) || serverSource.includes(`'${thing} not found'`)]).toEqual([thing, true]);
  });

  describe('with the dashboard started', () => {
    beforeAll(startWebI18n);
    afterAll(() => i18n.changeLanguage('en'));

    it('says a fixed sentence by its code, in each language', async () => {
      await i18n.changeLanguage('fr');
      expect(errorWords('This project is disabled', 'PROJECT_DISABLED')).toBe('Ce projet est désactivé.');
      expect(errorWords('Could not check the DNS records: ETIMEOUT', 'DNS_UNAVAILABLE')).toMatch(/^Les enregistrements DNS/);
      await i18n.changeLanguage('de');
      expect(new ApiError(403, 'This project is disabled', 'PROJECT_DISABLED').message).toBe('Dieses Projekt ist deaktiviert.');
    });

    it('says a known sentence under a code with many, with the values it names', async () => {
      await i18n.changeLanguage('fr');
      expect(errorWords('Invalid email or password', 'UNAUTHORIZED')).toBe('Adresse e-mail ou mot de passe incorrect.');
      expect(errorWords('Campaign not found', 'NOT_FOUND')).toBe('Campagne introuvable : cet élément a peut-être été supprimé.');
      expect(errorWords('Your role (MEMBER) may not do this on the project', 'FORBIDDEN')).toBe(
        'Votre rôle (membre) ne permet pas de faire cela dans ce projet.',
      );
      // A 422's field sentence, as the contact form shows it on the field.
      expect(forPeople('keys must be 1 to 100 characters')).toBe('Les noms doivent compter de 1 à 100 caractères.');
      expect(errorWords('data.: keys must be 1 to 100 characters', 'BAD_REQUEST')).toBe('Les noms doivent compter de 1 à 100 caractères.');
      expect(forPeople('at most 50 keys per object (got 60)')).toBe('Au plus 50 noms par groupe de champs (il y en a 60).');
      expect(forPeople('Too small: expected string to have >=1 characters')).toBe('Cette valeur n’est pas valide ; vérifiez-la et réessayez.');
      expect(messageOf(undefined, 502).message).toBe('Le serveur a répondu par une erreur (502).');
      await i18n.changeLanguage('de');
      expect(sentenceWords('Step not found')).toBe('Schritt nicht gefunden: dieses Element wurde vielleicht gelöscht.');
    });

    it("keeps the server's words for what it does not know", async () => {
      await i18n.changeLanguage('fr');
      expect(errorWords('Only a DRAFT campaign can be sent; this one is SENT', 'CONFLICT')).toBe('Only a DRAFT campaign can be sent; this one is SENT');
      expect(errorWords('Gizmo not found', 'NOT_FOUND')).toBe('Gizmo not found');
      expect(forPeople('Name is required')).toBe('Name is required');
    });
  });
});
