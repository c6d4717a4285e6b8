import { z } from 'zod';

export const Uuid = z.string().uuid();
export const IdParams = z.object({ id: Uuid });
export const Email = z.string().trim().max(320).email();

/** Page pagination (`page`, `pageSize`), shared by every page-paginated listing. */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});

export const Timestamp = z.string().describe('ISO 8601 timestamp (UTC)');
