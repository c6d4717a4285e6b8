import type { SentenceLanguage } from './fieldSentences/types';
import { pluralForm } from './pluralForm';

/**
 * The editor's check messages (lib/templateChecks.ts) in each language the API speaks: a missing one
 * fails tsc. Liquid (`{{ unsubscribeUrl }}`), HTML and what the author wrote are quoted as they are.
 * "here" messages sit beside a block; the others speak of the whole HTML source.
 */
export interface TemplateCheckWords {
  /** An output naming no known variable; `guess` is the closest known name, if any. */
  unknownVariable(name: string, guess: string | null): string;
  noUnsubscribe: string;
  blockImageNoAlt: string;
  blockImageNoSource: string;
  /** `text` is the button's own label. */
  buttonNoLink(text: string): string;
  linkHereNoAddress: string;
  linkHereInsecure: string;
  noPreheader: string;
  /** `tag` is the start of the `<img>` tag as written. */
  imageNoAltAttribute(tag: string): string;
  linkNoAddress: string;
  linkInsecure: string;
  htmlSize(kb: number, maxKb: number): string;
  subjectEmpty: string;
  subjectLong(chars: number, max: number): string;
}

export const TEMPLATE_CHECK_WORDS: Record<SentenceLanguage, TemplateCheckWords> = {
  en: {
    unknownVariable: (name, guess) =>
      `{{ ${name} }} is not a field of this project's contacts${guess ? `: did you mean {{ ${guess} }}?` : ''} (it renders empty unless the send provides it)`,
    noUnsubscribe: 'Marketing email needs an unsubscribe link: add a footer block or a link to {{ unsubscribeUrl }}',
    blockImageNoAlt: 'This image has no alt text',
    blockImageNoSource: 'This image has no source',
    buttonNoLink: (text) => `The button "${text}" has no link`,
    linkHereNoAddress: 'A link here has no address',
    linkHereInsecure: 'A link here uses http:, not https:',
    noPreheader: 'No preheader: inboxes show the first words of the email instead',
    imageNoAltAttribute: (tag) => `An image has no alt attribute: ${tag}`,
    linkNoAddress: 'A link has no address',
    linkInsecure: 'A link uses http:, not https:',
    htmlSize: (kb, maxKb) => `The HTML is ${kb} KB: Gmail clips messages over ${maxKb} KB, hiding the rest`,
    subjectEmpty: 'The subject is empty',
    subjectLong: (chars, max) =>
      `The subject has ${chars} ${pluralForm('en', chars) === 'one' ? 'character' : 'characters'}: inboxes cut it after about ${max}`,
  },
  fr: {
    unknownVariable: (name, guess) =>
      `{{ ${name} }} n’est pas un champ des contacts de ce projet${guess ? ` : vouliez-vous dire {{ ${guess} }} ?` : ''} (il reste vide si l’envoi ne le fournit pas)`,
    noUnsubscribe: 'Un e-mail marketing doit contenir un lien de désinscription : ajoutez un bloc de pied de page ou un lien vers {{ unsubscribeUrl }}',
    blockImageNoAlt: 'Cette image n’a pas de texte alternatif',
    blockImageNoSource: 'Cette image n’a pas de source',
    buttonNoLink: (text) => `Le bouton « ${text} » n’a pas de lien`,
    linkHereNoAddress: 'Un lien de ce bloc n’a pas d’adresse',
    linkHereInsecure: 'Un lien de ce bloc utilise http: au lieu de https:',
    noPreheader: 'Pas de texte d’aperçu : les boîtes de réception affichent à la place les premiers mots de l’e-mail',
    imageNoAltAttribute: (tag) => `Une image n’a pas d’attribut alt : ${tag}`,
    linkNoAddress: 'Un lien n’a pas d’adresse',
    linkInsecure: 'Un lien utilise http: au lieu de https:',
    htmlSize: (kb, maxKb) => `Le HTML fait ${kb} Ko : Gmail tronque les messages de plus de ${maxKb} Ko et masque la suite`,
    subjectEmpty: 'L’objet est vide',
    subjectLong: (chars, max) =>
      `L’objet compte ${chars} ${pluralForm('fr', chars) === 'one' ? 'caractère' : 'caractères'} : les boîtes de réception le coupent après environ ${max}`,
  },
  de: {
    unknownVariable: (name, guess) =>
      `{{ ${name} }} ist kein Feld der Kontakte dieses Projekts${guess ? `: Meinten Sie {{ ${guess} }}?` : ''} (es bleibt leer, wenn der Versand es nicht mitliefert)`,
    noUnsubscribe: 'Marketing-E-Mails brauchen einen Abmeldelink: Fügen Sie einen Fußzeilenblock oder einen Link auf {{ unsubscribeUrl }} hinzu',
    blockImageNoAlt: 'Dieses Bild hat keinen Alternativtext',
    blockImageNoSource: 'Dieses Bild hat keine Quelle',
    buttonNoLink: (text) => `Die Schaltfläche „${text}“ hat keinen Link`,
    linkHereNoAddress: 'Ein Link in diesem Block hat keine Adresse',
    linkHereInsecure: 'Ein Link in diesem Block verwendet http: statt https:',
    noPreheader: 'Kein Vorschautext: Posteingänge zeigen stattdessen die ersten Wörter der E-Mail',
    imageNoAltAttribute: (tag) => `Ein Bild hat kein alt-Attribut: ${tag}`,
    linkNoAddress: 'Ein Link hat keine Adresse',
    linkInsecure: 'Ein Link verwendet http: statt https:',
    htmlSize: (kb, maxKb) => `Das HTML ist ${kb} KB groß: Gmail kürzt Nachrichten über ${maxKb} KB und verbirgt den Rest`,
    subjectEmpty: 'Der Betreff ist leer',
    subjectLong: (chars, max) => `Der Betreff hat ${chars} Zeichen: Posteingänge schneiden ihn nach etwa ${max} ab`,
  },
};
