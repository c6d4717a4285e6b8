import { campaigns } from './campaigns';
import { contacts } from './contacts';
import { data } from './data';
import { editor } from './editor';
import { mail } from './mail';
import { settings } from './settings';
import { starters } from './starters';
import { steps } from './steps';
import { workflows } from './workflows';

/** The project screens' namespaces: a chunk of their own, fetched with the first screen that needs them (routes.tsx `page`). */
export const areas = { campaigns, contacts, data, settings, editor, workflows, mail, steps, starters };
