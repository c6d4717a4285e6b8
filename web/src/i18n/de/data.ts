import type { data as en } from '../en/data';
import type { Catalogue } from '../types';

export const data: Catalogue<typeof en> = {};
