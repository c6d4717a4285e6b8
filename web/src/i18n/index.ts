import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, type Language, resources } from './resources';

export { LANGUAGES, type Language } from './resources';

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
  resources,
  lng: browserLanguage(),
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  ns: Object.keys(resources.en),
  defaultNS: 'common',
  // The catalogues are bundled: ready before the first render, so no screen flashes its keys.
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

/** The person's setting (users.locale), else the browser's languages, else English. */
export function followLanguage(setting: Language | null | undefined): void {
  const wanted = setting ?? browserLanguage();
  if (i18n.language !== wanted) void i18n.changeLanguage(wanted);
}

export { intlLocale } from './locale';
export { i18n };
