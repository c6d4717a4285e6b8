import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { core } from './en/core';
import { LANGUAGES, type Language } from './languages';

export { LANGUAGES, type Language } from './languages';

/** The first of the browser's languages (navigator.languages, in its order) the dashboard speaks; English otherwise. */
export function browserLanguage(): Language {
  const wanted = typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of wanted) {
    const base = tag?.toLowerCase().split('-')[0];
    const found = LANGUAGES.find((l) => l === base);
    if (found) return found;
  }
  return 'en';
}

void i18n.use(initReactI18next).init({
  resources: { en: core },
  // The project screens' English (loadAreas) and French and German (switchLanguage) are added when first used.
  partialBundledLanguages: true,
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  ns: Object.keys(core),
  defaultNS: 'common',
  // English is bundled: ready before the first render, so no screen flashes its keys.
  initAsync: false,
  // React escapes what it renders.
  interpolation: { escapeValue: false },
});

/** <html lang> follows, so screen readers pronounce the words in their language (and axe's html-has-lang holds). */
const markDocument = (lng: string) => {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
};
markDocument(i18n.language);
i18n.on('languageChanged', markDocument);

let areas: Promise<void> | undefined;
/**
 * The English of the project screens (campaigns, contacts, settings…), fetched once, before the
 * first screen that needs it renders (routes.tsx `page`); French and German carry theirs whole.
 */
export function loadAreas(): Promise<void> {
  areas ??= import('./en/areas').then((m) => {
    for (const [ns, words] of Object.entries(m.areas)) i18n.addResourceBundle('en', ns, words, true, true);
  });
  return areas;
}

/** Each language's catalogues as a chunk of its own, fetched the first time it is used. */
const CATALOGUES: Record<Exclude<Language, 'en'>, () => Promise<Record<string, object>>> = {
  fr: () => import('./fr').then((m) => m.fr),
  de: () => import('./de').then((m) => m.de),
};

/** Switches to `lng` once its catalogues are in (English always is). */
export async function switchLanguage(lng: Language): Promise<void> {
  if (lng !== 'en' && !i18n.hasResourceBundle(lng, 'common')) {
    const bundles = await CATALOGUES[lng]();
    for (const [ns, words] of Object.entries(bundles)) i18n.addResourceBundle(lng, ns, words, true, true);
  }
  if (i18n.language !== lng) await i18n.changeLanguage(lng);
}

/**
 * The browser's language before the first render (main.tsx waits for it), so a French browser does
 * not see English first. A catalogue that cannot be fetched leaves the dashboard in English.
 */
export const languageReady: Promise<void> = switchLanguage(browserLanguage()).catch(() => undefined);

/** The person's setting (users.locale), else the browser's languages, else English. */
export function followLanguage(setting: Language | null | undefined): void {
  void switchLanguage(setting ?? browserLanguage()).catch(() => undefined);
}

export { intlLocale } from './locale';
export { i18n };
