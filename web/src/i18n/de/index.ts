import { account } from './account';
import { campaigns } from './campaigns';
import { common } from './common';
import { contacts } from './contacts';
import { data } from './data';
import { editor } from './editor';
import { frame } from './frame';
import { home } from './home';
import { mail } from './mail';
import { settings } from './settings';
import { starters } from './starters';
import { steps } from './steps';
import { workflows } from './workflows';

/** Every namespace of this language (resources.ts lists the languages; index.ts loads this one). */
export const de = { common, frame, account, home, campaigns, contacts, data, settings, editor, workflows, mail, steps, starters };
