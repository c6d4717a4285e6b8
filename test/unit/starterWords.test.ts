import i18n from 'i18next';
import { WORKFLOW_STARTERS } from '../../services/workflowStarters';
import { resources } from '../../web/src/i18n/resources';
import { starterWords } from '../../web/src/components/workflow/starterWords';
import { startWebI18n } from '../helpers/webI18n';

/**
 * The starters in the dashboard's language. "Start from a flow": every workflow starter the server
 * offers (services/workflowStarters.ts, which keeps its English for API clients) has its name,
 * description and a name for each of its steps in en, fr and de (web/src/i18n/*\/workflows.ts
 * starters.flows, by starter and step key). A starter the dashboard does not know yet reads
 * as the API's English. The template starters are held in templateStarterWords.test.ts.
 */

beforeAll(startWebI18n);
afterAll(() => i18n.changeLanguage('en'));

type Flow = { name?: string; description?: string; steps?: Record<string, string> };
const filled = (s: unknown) => typeof s === 'string' && s.trim().length > 0;

/** A starter as GET /workflows/starters lists it (the route's own mapping, less the step titles). */
const listed = (s: (typeof WORKFLOW_STARTERS)[number]) => ({
  key: s.key,
  name: s.name,
  description: s.description,
  eventName: s.eventName,
  steps: s.steps.map((st) => ({ key: st.key, type: st.type, title: st.type, name: st.name })),
  templatesToPick: 0,
});

describe('workflow starters in words', () => {
  for (const lng of ['en', 'fr', 'de'] as const) {
    it(`${lng}: every starter has a name, a description and words for each step`, () => {
      const flows = resources[lng].workflows.starters.flows as unknown as Record<string, Flow>;
      const missing = WORKFLOW_STARTERS.flatMap((s) => {
        const f = flows[s.key];
        return [
          ...(filled(f?.name) ? [] : [`${s.key}.name`]),
          ...(filled(f?.description) ? [] : [`${s.key}.description`]),
          ...s.steps.filter((st) => !filled(f?.steps?.[st.key])).map((st) => `${s.key}.steps.${st.key}`),
        ];
      });
      expect([lng, missing]).toEqual([lng, []]);
      // No words for a starter the server no longer has.
      expect([lng, Object.keys(flows).sort()]).toEqual([lng, WORKFLOW_STARTERS.map((s) => s.key).sort()]);
    });
  }

  it('English says what the server says; French and German their own words', async () => {
    const cart = listed(WORKFLOW_STARTERS.find((s) => s.key === 'abandoned-cart')!);
    const en = starterWords(i18n.getFixedT('en', 'workflows'), cart);
    expect(en).toEqual({ name: cart.name, description: cart.description, steps: cart.steps.map((st) => st.name) });
    await i18n.changeLanguage('fr');
    expect(starterWords(i18n.getFixedT('fr', 'workflows'), cart)).toEqual({
      name: 'Panier abandonné',
      description: expect.stringContaining('attend un achat'),
      steps: ['Attendre l’achat', 'Rappel'],
    });
    const unknown = { ...cart, key: 'from-a-newer-server', name: 'Newer flow' };
    expect(starterWords(i18n.getFixedT('fr', 'workflows'), unknown).name).toBe('Newer flow');
    await i18n.changeLanguage('en');
  });
});
