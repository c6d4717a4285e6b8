import { z } from 'zod';

/** An email address as the API accepts it; services check imported cells with the same rule. */
export const Email = z.string().trim().max(320).email();
