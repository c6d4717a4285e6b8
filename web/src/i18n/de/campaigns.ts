import type { campaigns as en } from '../en/campaigns';
import type { Catalogue } from '../types';

export const campaigns: Catalogue<typeof en> = {};
