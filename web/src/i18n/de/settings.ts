import type { settings as en } from '../en/settings';
import type { Catalogue } from '../types';

export const settings: Catalogue<typeof en> = {};
