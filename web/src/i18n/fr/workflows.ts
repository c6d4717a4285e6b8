import type { workflows as en } from '../en/workflows';
import type { Catalogue } from '../types';

export const workflows: Catalogue<typeof en> = {};
