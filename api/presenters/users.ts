import type { UserRow } from '../../db/users';
import type { SessionRow } from '../../db/sessions';
import { iso } from '../../lib/time';

/** Response shapes of the users routes, typed by their `*Out` schemas (api/schemas). */

export const presentUser = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  name: u.name ?? null,
  locale: u.locale ?? null,
  emailVerified: u.email_verified,
  createdAt: iso(u.created_at)!,
});

export const presentSession = (s: SessionRow, currentId: string | undefined) => ({
  id: s.id,
  current: s.id === currentId,
  userAgent: s.user_agent,
  ip: s.ip,
  createdAt: iso(s.created_at)!,
  lastSeenAt: iso(s.last_seen_at)!,
});
