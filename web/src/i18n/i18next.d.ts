import 'i18next';
import type { resources } from './resources';

// Typed keys: t('frame:title.contacts') is checked against the English catalogue by tsc.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: (typeof resources)['en'];
  }
}
