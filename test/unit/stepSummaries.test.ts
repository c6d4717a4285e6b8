import { STEP_TYPES, type StepNames, type SummaryLanguage, findStepType } from '../../temporal/steps';
import { stepSummary } from '../../services/stepSummaries';

/**
 * A node's summary speaks the request's language (issue 42 §4): every built-in step type answers in
 * en, fr and de, English exactly as before (the dashboard's English tests read it), French and German
 * with none of the English words left, only the config's own names and values.
 */

const TEMPLATE = '00000000-0000-4000-8000-000000000001';
const GONE = '00000000-0000-4000-8000-000000000002';
const names: StepNames = { template: { [TEMPLATE]: 'Welcome' }, topic: { news: 'News' } };
const tree = (filters: unknown[], extra: Record<string, unknown> = {}) => ({ logic: 'AND', groups: [{ filters }], ...extra });

/** [type, config, English as the summaries said it before they had a language] */
const SAMPLES: [string, unknown, string][] = [
  ['TRIGGER', { eventName: 'signup' }, 'When “signup” happens'],
  ['SEND_EMAIL', { templateId: TEMPLATE }, 'Send “Welcome” (Welcome template)'],
  ['SEND_EMAIL', { templateId: TEMPLATE, topic: 'news' }, 'Send “Welcome” (Welcome template) to “News” subscribers'],
  ['SEND_EMAIL', { templateId: GONE }, 'Send a template that no longer exists'],
  ['SEND_EMAIL', { subject: 'Hello', body: '<p>Hi</p>', from: 'me@example.com', topic: 'other' }, 'Send “Hello” to “other” subscribers'],
  ['DELAY', { amount: 2, unit: 'days' }, 'Wait 2 days'],
  ['DELAY', { amount: 1, unit: 'hours' }, 'Wait 1 hour'],
  ['DELAY', { amount: 1.5, unit: 'weeks' }, 'Wait 1.5 weeks'],
  ['WAIT_FOR_EVENT', { eventName: 'purchase' }, 'Wait for “purchase”'],
  ['WAIT_FOR_EVENT', { eventName: 'purchase', timeout: { amount: 1, unit: 'days' } }, 'Wait up to 1 day for “purchase”'],
  ['CONDITION', { condition: tree([{ field: 'data.plan', operator: 'equals', value: 'pro' }]) }, 'If plan is pro'],
  [
    'CONDITION',
    {
      condition: tree([
        { field: 'data.plan', operator: 'notEquals', value: 'free' },
        { field: 'data.country', operator: 'in', value: ['de', 'fr'] },
        { field: 'data.phone', operator: 'exists' },
      ]),
    },
    'If plan is not free and country is one of de, fr and phone is set',
  ],
  [
    'CONDITION',
    {
      condition: {
        logic: 'OR',
        groups: [
          { filters: [{ field: 'createdAt', operator: 'within', value: 3, unit: 'days' }] },
          {
            filters: [{ field: 'data.email', operator: 'endsWith', value: '@example.com' }],
            conditions: tree([{ field: 'lastSeen', operator: 'olderThan', value: 2, unit: 'weeks' }]),
          },
        ],
      },
    },
    'If createdAt within 3 days or email ends with @example.com and (lastSeen older than 2 weeks)',
  ],
  ['CONDITION', { condition: tree([{ field: 'purchase', operator: 'notTriggered' }]) }, 'If purchase did not happen'],
  ['CONDITION', { condition: { logic: 'AND', groups: [] } }, 'If a condition holds'],
  ['WEBHOOK', { url: 'https://example.com/hook' }, 'POST example.com/hook'],
  ['UPDATE_CONTACT', { data: { plan: 'pro', score: 3 }, subscribed: false }, 'Set plan, score; unsubscribe'],
  ['UPDATE_CONTACT', { subscribed: true }, 'Subscribe'],
  ['EXIT', {}, 'End here'],
  [
    'RANDOM_SPLIT',
    {
      branches: [
        { name: 'a', weight: 50 },
        { name: 'b', weight: 50 },
      ],
    },
    'Split a 50 / b 50',
  ],
  ['WAIT_UNTIL', { at: '09:00', days: ['mon', 'fri'] }, 'Wait until 09:00 on mon, fri'],
  ['WAIT_UNTIL', { at: '18:30' }, 'Wait until 18:30'],
  ['WAIT_UNTIL', { field: 'data.renewalDate', offset: { amount: -2, unit: 'days' } }, 'Wait until renewalDate − 2 days'],
  ['WAIT_UNTIL', { field: 'data.renewalDate' }, 'Wait until renewalDate'],
];

/** French sets no-break spaces inside « »; the expectations below are written with plain ones. */
const nbsp = (text: string) => text.replace(/« /g, '«\u00a0').replace(/ »/g, '\u00a0»');

const say = (type: string, config: unknown, lang?: SummaryLanguage) => stepSummary(findStepType(STEP_TYPES, type), config, names, lang);

/** The words of a text, the config's own names and values left out (and HTTP methods: the same in every language). */
function englishWords(english: string, config: unknown): string[] {
  const own = new Set([...((JSON.stringify(config) + JSON.stringify(names)).toLowerCase().match(/[\p{L}]+/gu) ?? []), 'post', 'put', 'patch', 'get']);
  return [...new Set(english.toLowerCase().match(/[\p{L}]+/gu) ?? [])].filter((w) => !own.has(w));
}

describe('step summaries', () => {
  it('has a sample of every built-in step type that has a summary', () => {
    const sampled = new Set(SAMPLES.map(([type]) => type));
    expect(STEP_TYPES.filter((d) => d.summary && !sampled.has(d.type)).map((d) => d.type)).toEqual([]);
  });

  it.each(SAMPLES)('%s %j says in English what it always said', (type, config, english) => {
    expect(say(type, config)).toBe(english);
    expect(say(type, config, 'en')).toBe(english);
  });

  it.each(SAMPLES.flatMap(([type, config, english]) => (['fr', 'de'] as const).map((lang) => [lang, type, config, english] as const)))(
    '%s: %s %j keeps none of the English words',
    (lang, type, config, english) => {
      const text = say(type, config, lang);
      const words = new Set(text.toLowerCase().match(/[\p{L}]+/gu) ?? []);
      expect(englishWords(english, config).filter((w) => words.has(w))).toEqual([]);
    },
  );

  it('writes French and German as they are written: quotes, plurals, word order', () => {
    expect(say('TRIGGER', { eventName: 'signup' }, 'fr')).toBe(nbsp('Quand « signup » se produit'));
    expect(say('TRIGGER', { eventName: 'signup' }, 'de')).toBe('Wenn „signup“ eintritt');
    expect(say('SEND_EMAIL', { templateId: TEMPLATE, topic: 'news' }, 'fr')).toBe(nbsp('Envoyer « Welcome » (modèle Welcome) aux abonnés de « News »'));
    expect(say('SEND_EMAIL', { templateId: TEMPLATE, topic: 'news' }, 'de')).toBe('„Welcome“ (Vorlage Welcome) an die Abonnenten von „News“ senden');
    expect(say('DELAY', { amount: 2, unit: 'days' }, 'fr')).toBe('Attendre 2 jours');
    expect(say('DELAY', { amount: 1.5, unit: 'days' }, 'fr')).toBe('Attendre 1,5 jour');
    expect(say('DELAY', { amount: 1, unit: 'days' }, 'de')).toBe('1 Tag warten');
    expect(say('DELAY', { amount: 2, unit: 'days' }, 'de')).toBe('2 Tage warten');
    expect(say('CONDITION', { condition: tree([{ field: 'data.plan', operator: 'equals', value: 'pro' }]) }, 'fr')).toBe('Si plan est pro');
    expect(say('CONDITION', { condition: tree([{ field: 'createdAt', operator: 'within', value: 3, unit: 'days' }]) }, 'de')).toBe(
      'Bedingung: createdAt innerhalb von 3 Tagen',
    );
    expect(say('WAIT_UNTIL', { at: '09:00', days: ['mon', 'fri'] }, 'de')).toBe('Bis 09:00 am Mo, Fr warten');
    expect(say('UPDATE_CONTACT', { subscribed: true }, 'fr')).toBe('Abonner');
    expect(say('EXIT', {}, 'de')).toBe('Hier beenden');
    expect(stepSummary(undefined, {}, {}, 'fr')).toBe('Étape inconnue');
  });

  it('says an event count in a window in words (English said "[object Object]" before)', () => {
    const atLeast = { condition: tree([{ field: 'purchase', operator: 'atLeastWithin', value: { atLeast: 3, within: 7 }, unit: 'days' }]) };
    expect(say('CONDITION', atLeast)).toBe('If purchase happened at least 3 times within 7 days');
    expect(say('CONDITION', atLeast, 'fr')).toBe('Si purchase a eu lieu au moins 3\u00a0fois en 7 jours');
    expect(say('CONDITION', atLeast, 'de')).toBe('Bedingung: purchase innerhalb von 7 Tagen mindestens 3-mal eingetreten');
    const none = { condition: tree([{ field: 'purchase', operator: 'notWithin', value: 1, unit: 'weeks' }]) };
    expect(say('CONDITION', none)).toBe('If purchase did not happen within 1 week');
    expect(say('CONDITION', none, 'de')).toBe('Bedingung: purchase seit 1 Woche nicht eingetreten');
  });

  it('lets a type without a language answer English', () => {
    const legacy = { ...findStepType(STEP_TYPES, 'EXIT')!, summary: () => 'Add to a segment' };
    expect(stepSummary(legacy, {}, {}, 'fr')).toBe('Add to a segment');
  });
});
