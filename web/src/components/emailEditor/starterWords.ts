import type { TFunction } from 'i18next';
import { starters } from '../../i18n/en/starters';
import type { BlockWords } from './blocks';

/**
 * The starting points in the person's language (i18n/<lng>/starters.ts): a template starter's name
 * and description by its id, the server's words for a starter the catalogue does not know; and the
 * first content the dashboard writes into a new template, campaign or block.
 */
export interface StarterWords {
  name(starter: { id: string; name: string }): string;
  description(starter: { id: string; description: string }): string;
  /** A new email's HTML body: a greeting with the contact's first name, and where to write. */
  draftBody: string;
  /** A new block's content (blocks.ts newBlock). */
  block: BlockWords;
}

const known = (id: string): id is keyof typeof starters.templates => Object.hasOwn(starters.templates, id);

/** `<h1>Hello {{ data.firstName ?? "there" }}</h1>…`: the words are the catalogue's, the template syntax is not (i18next would read its braces). */
export const draftBodyOf = (words: { hello: string; there: string; message: string }) =>
  `<h1>${words.hello} {{ data.firstName ?? "${words.there.replace(/"/g, '')}" }}</h1>\n<p>${words.message}</p>`;

export function starterWords(t: TFunction<'starters'>): StarterWords {
  return {
    name: (s) => (known(s.id) ? t(`templates.${s.id}.name`) : s.name),
    description: (s) => (known(s.id) ? t(`templates.${s.id}.description`) : s.description),
    draftBody: draftBodyOf({ hello: t('draft.hello'), there: t('draft.there'), message: t('draft.message') }),
    block: { heading: t('block.heading'), message: t('draft.message'), button: t('block.button'), html: t('block.html') },
  };
}
