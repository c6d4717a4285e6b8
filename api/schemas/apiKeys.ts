import { z } from 'zod';
import { Timestamp } from './common';
import { API_KEY_SCOPES } from '../../db/apiKeys';

export const ApiKeyScopeSchema = z.enum(API_KEY_SCOPES).describe('`full` grants every scope');

export const ApiKeyCreate = z.object({
  name: z.string().trim().min(1).max(100).describe('what the key is for, to recognise it in the list'),
  scopes: z.array(ApiKeyScopeSchema).min(1).max(API_KEY_SCOPES.length),
});

export const ApiKeyOut = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(ApiKeyScopeSchema),
  prefix: z.string().describe('the first characters of the secret, to recognise it by'),
  createdBy: z.string().nullable().describe('the address of the user who created it; null when a key did, or the user is gone'),
  createdAt: Timestamp,
  lastUsedAt: Timestamp.nullable().describe('moves at most once a minute'),
});

/** Creation only: the one answer that shows the secret. */
export const ApiKeyWithSecretOut = ApiKeyOut.extend({ secret: z.string().describe('shown only in this answer: only its sha256 is kept') });
