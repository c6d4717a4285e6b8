import { account as deAccount } from './de/account';
import { common as deCommon } from './de/common';
import { frame as deFrame } from './de/frame';
import { home as deHome } from './de/home';
import { account as enAccount } from './en/account';
import { common as enCommon } from './en/common';
import { frame as enFrame } from './en/frame';
import { home as enHome } from './en/home';
import { account as frAccount } from './fr/account';
import { common as frCommon } from './fr/common';
import { frame as frFrame } from './fr/frame';
import { home as frHome } from './fr/home';

/**
 * The dashboard's catalogues: a namespace per area (one file per language and area, so people
 * translating different screens do not edit the same file). English is the reference: fr and de are
 * typed from it (types.ts). A new namespace is added here for all three languages.
 */
export const resources = {
  en: { common: enCommon, frame: enFrame, account: enAccount, home: enHome },
  fr: { common: frCommon, frame: frFrame, account: frAccount, home: frHome },
  de: { common: deCommon, frame: deFrame, account: deAccount, home: deHome },
};

export const LANGUAGES = ['en', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
