import type { TFunction } from 'i18next';
import { contacts } from '../i18n/en/contacts';

type Source = keyof typeof contacts.timeline.source;

/**
 * A consent record's source in words (the contact timeline's subscription and topic changes). The
 * catalogue has words for each source the server writes (lib/consentSources.ts; tsc holds
 * `timeline.source` to the API's ConsentSources), a signup form's `form:<id>` read as `form`; a
 * source of an older record, written before that list, is named as the API names it.
 */
export function sourceWords(t: TFunction<'contacts'>, source: string): string {
  const kind = source.startsWith('form:') ? 'form' : source;
  return Object.hasOwn(contacts.timeline.source, kind) ? t(`timeline.source.${kind as Source}`) : t('timeline.otherSource', { source });
}
