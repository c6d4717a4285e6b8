import type { contacts as en } from '../en/contacts';
import type { Catalogue } from '../types';

export const contacts: Catalogue<typeof en> = {};
