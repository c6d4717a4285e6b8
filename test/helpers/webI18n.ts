import i18n from 'i18next';
import { resources } from '../../web/src/i18n/resources';

/**
 * Starts the i18next instance the dashboard's plain modules read (web/src/api/*: words and Intl
 * formats), with the dashboard's catalogues, in English. Not web/src/i18n/index.ts itself: that one
 * reads the browser (navigator, document), which the Node tests do not have.
 */
export async function startWebI18n(): Promise<void> {
  await i18n.init({ resources, lng: 'en', fallbackLng: 'en', initAsync: false, interpolation: { escapeValue: false } });
}
