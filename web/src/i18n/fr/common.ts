import type { common as en } from '../en/common';
import type { Catalogue } from '../types';

export const common: Catalogue<typeof en> = {
  aboutCount: 'environ {{value}}',
  loading: 'Chargement…',
  loadingProjects: 'Chargement de vos projets…',
  somethingWentWrong: 'Une erreur est survenue',
  save: 'Enregistrer',
  saved: 'Enregistré.',
  never: 'Jamais',
  language: 'Langue',
  languageAuto: 'Langue du navigateur',
  languages: { en: 'English', fr: 'Français', de: 'Deutsch' },
  cancel: 'Annuler',
  close: 'Fermer',
  pages: 'Pages',
  undo: 'Annuler',
  didNotWork: 'Cela n’a pas fonctionné',
  notUndone: 'Non annulé',
};
