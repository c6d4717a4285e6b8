import i18next from 'i18next';
import { chooseVariant } from '../templateContent';
import { de } from './de';
import { type CopyKey, en } from './en';
import { fr } from './fr';

export type { CopyKey } from './en';

/**
 * The public pages' words (unsubscribe, preference center, confirmation, signup forms) in the
 * reader's language: the contact's `locale` where the page knows the contact, the browser's
 * Accept-Language where it does not (a signup form). English is the fallback and the reference
 * catalogue; a locale is picked by the templates' rule (exact, then the language alone).
 */
export const PUBLIC_LOCALES = ['en', 'fr', 'de'] as const;
export type PublicLocale = (typeof PUBLIC_LOCALES)[number];

const i18n = i18next.createInstance();
void i18n.init({
  resources: { en: { translation: en }, fr: { translation: fr }, de: { translation: de } },
  lng: 'en',
  fallbackLng: 'en',
  // The catalogues are in memory: initialise now, so the first page never waits.
  initAsync: false,
  // Keys are flat ("form.email"), not paths into nested objects.
  keySeparator: false,
  nsSeparator: false,
  interpolation: { escapeValue: false },
});

export interface PublicCopy {
  locale: PublicLocale;
  /** Plain text (a page title, escaped where it is written). */
  text(key: CopyKey, values?: Record<string, string | number>): string;
  /** Markup-safe: every value is HTML-escaped; the catalogue's own words are trusted. */
  html(key: CopyKey, values?: Record<string, string | number>): string;
}

export function publicCopy(locale: PublicLocale): PublicCopy {
  const t = i18n.getFixedT(locale);
  return {
    locale,
    text: (key, values) => t(key, { ...values }),
    html: (key, values) => t(key, { ...values, interpolation: { escapeValue: true } }),
  };
}

/** The language for a contact's `locale` (data.locale): fr-CA → fr, unknown or none → en. */
export function localeForContact(locale: unknown): PublicLocale {
  return (chooseVariant(['fr', 'de'], locale) as PublicLocale | null) ?? 'en';
}

/** The language for a visitor the page does not know, from the browser's preference order. */
export function localeForVisitor(accepted: readonly string[]): PublicLocale {
  for (const wanted of accepted) {
    if (wanted === '*') return 'en';
    const found = chooseVariant(PUBLIC_LOCALES, wanted);
    if (found) return found as PublicLocale;
  }
  return 'en';
}
