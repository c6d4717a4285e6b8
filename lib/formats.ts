import { z } from 'zod';

/** Formats the API's schemas accept and services check again on what arrives another way (an import file, a Stripe event). */

/** An email address. */
export const Email = z.string().trim().max(320).email();

/** A UUID (our ids). */
export const Uuid = z.string().uuid();
