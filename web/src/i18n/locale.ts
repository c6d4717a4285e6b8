import i18n from 'i18next';

/**
 * The active language for Intl (dates, numbers): English as in Britain (day month, 24 h), as before.
 * Apart from index.ts (React, the DOM) so that plain modules (api/dates.ts, and the unit tests that
 * load them under Node) can use it; it reads the one i18next instance index.ts initialises.
 */
export function intlLocale(): string {
  const lng = i18n.resolvedLanguage ?? i18n.language ?? 'en';
  return ({ en: 'en-GB', fr: 'fr-FR', de: 'de-DE' } as Record<string, string>)[lng] ?? 'en-GB';
}
