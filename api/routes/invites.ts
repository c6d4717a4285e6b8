import { route } from '../route';
import { forbidden, notFound } from '../errors';
import { InviteAcceptedOut, InviteOfferOut, InviteTokenBody, InviteTokenParams } from '../schemas/teams';
import { acceptInvite, findInviteByToken } from '../../db/members';
import { iso } from '../../lib/time';

/**
 * Invitations by their emailed token, for the dashboard (the server's own page is in accountPages.ts).
 * The token is the only way in: verifying or resetting an address never accepts an invite. The
 * token went to the invited inbox, so accepting with it verifies that address (db/members.ts).
 */
export default [
  route({
    method: 'get',
    path: '/auth/invites/:token',
    auth: 'none',
    tag: 'auth',
    summary: 'What an invitation link offers: project name, role, invited address and expiry; 404 for an unknown, used or expired token',
    params: InviteTokenParams,
    resource: 'Invite',
    responses: { 200: { description: 'the invite', schema: InviteOfferOut }, 404: { description: 'unknown, used or expired' } },
    async handler(ctx, { params }) {
      const offer = await findInviteByToken(ctx.deps.knex, params.token);
      if (!offer) throw notFound('Invite');
      return { projectName: offer.projectName, role: offer.role, email: offer.email, expiresAt: iso(offer.expiresAt)! };
    },
  }),
  route({
    method: 'post',
    path: '/auth/invites/accept',
    auth: 'session',
    tag: 'auth',
    summary:
      "Accept an invite with its emailed token: the signed-in account's address must be the invited one; an unverified address is verified by it (the token proves the inbox)",
    body: InviteTokenBody,
    responses: {
      200: { description: 'joined (or already a member)', schema: InviteAcceptedOut },
      403: { description: 'the signed-in account is not the account of the invited address' },
      404: { description: 'unknown, used or expired token' },
    },
    async handler(ctx, { body, user }) {
      const result = await acceptInvite(ctx.deps.knex, body.token, user);
      if (result === 'NOT_FOUND') throw notFound('Invite');
      if (result === 'WRONG_ACCOUNT') throw forbidden('This invite is for another address: sign in with the invited one to accept it');
      return { projectId: result.projectId, role: result.role };
    },
  }),
];
