import crypto from 'node:crypto';

/**
 * The "Leave project" link of the email a person gets when someone adds them to a project
 * (docs/roles.md). It carries a signed (projectId, userId, joinedAt) triple: the membership it was
 * made for, to the millisecond, so it works while that membership lasts and never again once the
 * person left (adding them again makes a new membership and a new link). No expiry: it can only
 * ever do what the person may do themselves in the dashboard, leave.
 */
export interface LeaveTarget {
  projectId: string;
  userId: string;
  /** The membership's `created_at`, in ms since the epoch. */
  joinedAt: number;
}

// Signed input differs from a JWT's and from the subscription tokens' (lib/unsubscribe.ts): no token passes for another kind.
const PURPOSE = 'leave-project:';

const sign = (input: string, secret: string) => crypto.createHmac('sha256', secret).update(input).digest('base64url');

export function signLeaveToken(secret: string, t: LeaveTarget): string {
  const payload = Buffer.from(JSON.stringify([t.projectId, t.userId, t.joinedAt])).toString('base64url');
  return `${payload}.${sign(PURPOSE + payload, secret)}`;
}

/** The membership a token was signed for, or null for anything malformed or forged. */
export function verifyLeaveToken(secret: string, token: string): LeaveTarget | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  // Compared as text: base64url decoding ignores stray bits, which would let altered tokens pass.
  const given = Buffer.from(signature);
  const expected = Buffer.from(sign(PURPOSE + payload, secret));
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  try {
    const [projectId, userId, joinedAt, more] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof projectId !== 'string' || typeof userId !== 'string' || typeof joinedAt !== 'number' || more !== undefined) return null;
    return { projectId, userId, joinedAt };
  } catch {
    return null;
  }
}
