import type { UserRow } from '../../db/users';

/** Response shapes of the users routes, typed by their `*Out` schemas (api/schemas). */

export const presentUser = (u: UserRow) => ({ id: u.id, email: u.email, emailVerified: u.email_verified, createdAt: u.created_at });
