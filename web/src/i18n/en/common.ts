/** Words many screens share: states, buttons, the "never" of an empty date. */
export const common = {
  // An estimated count (components/CountText): {{value}} is the number in words, "2.4 million".
  aboutCount: 'about {{value}}',
  loading: 'Loading…',
  loadingProjects: 'Loading your projects…',
  somethingWentWrong: 'Something went wrong',
  save: 'Save',
  saved: 'Saved.',
  never: 'Never',
  language: 'Language',
  languageAuto: 'Browser language',
  languages: { en: 'English', fr: 'Français', de: 'Deutsch' },
  cancel: 'Cancel',
  close: 'Close',
  pages: 'Pages',
  undo: 'Undo',
  didNotWork: 'That did not work',
  notUndone: 'Not undone',
};
