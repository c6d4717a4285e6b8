import type { editor as en } from '../en/editor';
import type { Catalogue } from '../types';

export const editor: Catalogue<typeof en> = {};
