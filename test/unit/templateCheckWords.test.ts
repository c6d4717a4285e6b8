import type { EmailDocument } from '../../lib/emailDocument';
import { type CheckInput, MAX_HTML_BYTES, runChecks } from '../../lib/templateChecks';

const doc = (blocks: unknown[], settings: Record<string, unknown> = {}) => ({ version: 1, settings, blocks }) as unknown as EmailDocument;

/** Between them, every message runChecks can write: the block document's and the HTML source's. */
const blocksInput: CheckInput = {
  subject: '',
  html: '<p>Hi {{ firstNam }} {{ zzz }}</p>',
  type: 'MARKETING',
  knownVariables: ['firstName'],
  document: doc([
    { id: 'img', type: 'image', src: '', alt: '' },
    { id: 'btn', type: 'button', text: 'Go', href: '' },
    { id: 'txt', type: 'text', html: '<a href="#">x</a> <a href="http://example.com">y</a>' },
  ]),
};
const htmlInput: CheckInput = {
  subject: 'S'.repeat(90),
  html: `<img src="a.png"><a>no href</a><a href="http://example.com">x</a><!--${'x'.repeat(MAX_HTML_BYTES)}-->`,
  type: 'TRANSACTIONAL',
  knownVariables: [],
};

const ENGLISH = [
  "{{ firstNam }} is not a field of this project's contacts: did you mean {{ firstName }}? (it renders empty unless the send provides it)",
  "{{ zzz }} is not a field of this project's contacts (it renders empty unless the send provides it)",
  'Marketing email needs an unsubscribe link: add a footer block or a link to {{ unsubscribeUrl }}',
  'This image has no alt text',
  'This image has no source',
  'The button "Go" has no link',
  'A link here has no address',
  'A link here uses http:, not https:',
  'No preheader: inboxes show the first words of the email instead',
  'The subject is empty',
];
const ENGLISH_HTML = [
  'An image has no alt attribute: <img src="a.png">',
  'A link has no address',
  'A link uses http:, not https:',
  'No preheader: inboxes show the first words of the email instead',
  'The HTML is 103 KB: Gmail clips messages over 102 KB, hiding the rest',
  'The subject has 90 characters: inboxes cut it after about 78',
];

describe('the checks’ messages', () => {
  it('stay the English of before when no language is asked for', () => {
    expect(runChecks(blocksInput).map((c) => c.message)).toEqual(ENGLISH);
    expect(runChecks(htmlInput).map((c) => c.message)).toEqual(ENGLISH_HTML);
    expect(runChecks(htmlInput, 'en')).toEqual(runChecks(htmlInput));
  });

  it('are exact in French and German', () => {
    const fr = runChecks(blocksInput, 'fr').map((c) => c.message);
    expect(fr[0]).toBe(
      '{{ firstNam }} n’est pas un champ des contacts de ce projet : vouliez-vous dire {{ firstName }} ? (il reste vide si l’envoi ne le fournit pas)',
    );
    expect(fr[2]).toBe('Un e-mail marketing doit contenir un lien de désinscription : ajoutez un bloc de pied de page ou un lien vers {{ unsubscribeUrl }}');
    expect(fr[5]).toBe('Le bouton « Go » n’a pas de lien');
    const de = runChecks(blocksInput, 'de').map((c) => c.message);
    expect(de[1]).toBe('{{ zzz }} ist kein Feld der Kontakte dieses Projekts (es bleibt leer, wenn der Versand es nicht mitliefert)');
    expect(de[3]).toBe('Dieses Bild hat keinen Alternativtext');
    expect(de[5]).toBe('Die Schaltfläche „Go“ hat keinen Link');
    expect(
      runChecks(htmlInput, 'fr')
        .map((c) => c.message)
        .slice(4),
    ).toEqual([
      'Le HTML fait 103 Ko : Gmail tronque les messages de plus de 102 Ko et masque la suite',
      'L’objet compte 90 caractères : les boîtes de réception le coupent après environ 78',
    ]);
    expect(
      runChecks(htmlInput, 'de')
        .map((c) => c.message)
        .slice(4),
    ).toEqual([
      'Das HTML ist 103 KB groß: Gmail kürzt Nachrichten über 102 KB und verbirgt den Rest',
      'Der Betreff hat 90 Zeichen: Posteingänge schneiden ihn nach etwa 78 ab',
    ]);
  });

  it('have words for every rule in every language, the same checks in each', () => {
    const rules = new Set([...runChecks(blocksInput), ...runChecks(htmlInput)].map((c) => c.rule));
    // Every rule of Check['rule'] is written by one of the two inputs.
    expect([...rules].sort()).toEqual([
      'html-size',
      'image-alt',
      'link-insecure',
      'link-missing',
      'no-preheader',
      'no-unsubscribe',
      'subject-empty',
      'subject-long',
      'unknown-variable',
    ]);
    for (const input of [blocksInput, htmlInput]) {
      const english = runChecks(input);
      for (const lang of ['fr', 'de'] as const) {
        const said = runChecks(input, lang);
        expect(said.map(({ rule, severity, blockId }) => ({ rule, severity, blockId }))).toEqual(
          english.map(({ rule, severity, blockId }) => ({ rule, severity, blockId })),
        );
        said.forEach((c, i) => {
          expect(c.message).not.toBe(english[i].message);
          expect(c.message).not.toMatch(/\b(the|has|is|no|link here|uses|needs)\b/i);
        });
      }
    }
  });
});
