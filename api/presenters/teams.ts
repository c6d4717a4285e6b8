import type { z } from 'zod';
import type { InviteOut, MemberOut, SecurityOut } from '../schemas/teams';
import type { Invite, Member } from '../../db/members';
import type { securityState } from '../../db/security';
import { iso } from '../../lib/time';

/** Response shapes of the team and security routes, typed by their `*Out` schemas (api/schemas). */

export const presentMember = (m: Member): z.input<typeof MemberOut> => ({ ...m, joinedAt: iso(m.joinedAt)! });

export const presentInvite = (i: Invite): z.input<typeof InviteOut> => ({ ...i, createdAt: iso(i.createdAt)!, expiresAt: iso(i.expiresAt)! });

export function presentSecurityState(s: Awaited<ReturnType<typeof securityState>>): z.input<typeof SecurityOut> {
  return {
    ...s,
    window: { ...s.window, from: iso(s.window.from)!, to: iso(s.window.to)! },
    suspensions: s.suspensions.map((x) => ({ ...x, createdAt: iso(x.createdAt)! })),
  };
}
