import type { common as en } from '../en/common';
import type { Catalogue } from '../types';

export const common: Catalogue<typeof en> = {
  aboutCount: 'etwa {{value}}',
  loading: 'Wird geladen…',
  loadingProjects: 'Ihre Projekte werden geladen…',
  somethingWentWrong: 'Etwas ist schiefgelaufen',
  save: 'Speichern',
  saved: 'Gespeichert.',
  never: 'Nie',
  language: 'Sprache',
  languageAuto: 'Sprache des Browsers',
  languages: { en: 'English', fr: 'Français', de: 'Deutsch' },
  cancel: 'Abbrechen',
  close: 'Schließen',
  pages: 'Seiten',
  undo: 'Rückgängig',
  didNotWork: 'Das hat nicht geklappt',
  notUndone: 'Nicht rückgängig gemacht',
};
