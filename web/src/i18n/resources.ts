import { account as deAccount } from './de/account';
import { campaigns as deCampaigns } from './de/campaigns';
import { common as deCommon } from './de/common';
import { contacts as deContacts } from './de/contacts';
import { data as deData } from './de/data';
import { editor as deEditor } from './de/editor';
import { frame as deFrame } from './de/frame';
import { home as deHome } from './de/home';
import { mail as deMail } from './de/mail';
import { settings as deSettings } from './de/settings';
import { workflows as deWorkflows } from './de/workflows';
import { account as enAccount } from './en/account';
import { campaigns as enCampaigns } from './en/campaigns';
import { common as enCommon } from './en/common';
import { contacts as enContacts } from './en/contacts';
import { data as enData } from './en/data';
import { editor as enEditor } from './en/editor';
import { frame as enFrame } from './en/frame';
import { home as enHome } from './en/home';
import { mail as enMail } from './en/mail';
import { settings as enSettings } from './en/settings';
import { workflows as enWorkflows } from './en/workflows';
import { account as frAccount } from './fr/account';
import { campaigns as frCampaigns } from './fr/campaigns';
import { common as frCommon } from './fr/common';
import { contacts as frContacts } from './fr/contacts';
import { data as frData } from './fr/data';
import { editor as frEditor } from './fr/editor';
import { frame as frFrame } from './fr/frame';
import { home as frHome } from './fr/home';
import { mail as frMail } from './fr/mail';
import { settings as frSettings } from './fr/settings';
import { workflows as frWorkflows } from './fr/workflows';

/**
 * The dashboard's catalogues: a namespace per area (one file per language and area, so people
 * translating different screens do not edit the same file). English is the reference: fr and de are
 * typed from it (types.ts). A new namespace is added here for all three languages.
 */
export const resources = {
  en: {
    common: enCommon,
    frame: enFrame,
    account: enAccount,
    home: enHome,
    campaigns: enCampaigns,
    contacts: enContacts,
    data: enData,
    settings: enSettings,
    editor: enEditor,
    workflows: enWorkflows,
    mail: enMail,
  },
  fr: {
    common: frCommon,
    frame: frFrame,
    account: frAccount,
    home: frHome,
    campaigns: frCampaigns,
    contacts: frContacts,
    data: frData,
    settings: frSettings,
    editor: frEditor,
    workflows: frWorkflows,
    mail: frMail,
  },
  de: {
    common: deCommon,
    frame: deFrame,
    account: deAccount,
    home: deHome,
    campaigns: deCampaigns,
    contacts: deContacts,
    data: deData,
    settings: deSettings,
    editor: deEditor,
    workflows: deWorkflows,
    mail: deMail,
  },
};

export const LANGUAGES = ['en', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
