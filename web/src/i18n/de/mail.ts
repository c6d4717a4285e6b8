import type { mail as en } from '../en/mail';
import type { Catalogue } from '../types';

export const mail: Catalogue<typeof en> = {};
