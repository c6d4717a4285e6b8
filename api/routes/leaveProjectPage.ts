import { z } from 'zod';
import { route } from '../route';
import type { AppContext } from '../context';
import { escapeHtml, renderPage } from '../pages';
import { verifyLeaveToken, type LeaveTarget } from '../../lib/leaveLinks';
import { changeMember, findLeaveOffer, type LeaveOffer } from '../../db/members';
import { audited } from '../../services/audit';

/**
 * The page of the "Leave project" link in the email a person gets when someone adds them to a
 * project (services/memberEmails.ts). GET only shows what the link would do (mail scanners open
 * every link); the form's POST leaves. The signed token is the credential, as an unsubscribe
 * link's is: no session is needed, and it can only take its own person out of its own project,
 * under the rule every leave keeps (a project's last owner cannot leave).
 */

const TITLE = 'Leave project';
// Loose on purpose: a bad value gets a page that says so, not a JSON error.
const TokenField = z.object({ token: z.string().max(2000).optional() });
const common = { auth: 'none', tag: 'pages', noRateLimit: true } as const;

const error = (message: string) => `<p class="error" role="alert">${escapeHtml(message)}</p>`;

function badLink(ctx: AppContext) {
  renderPage(ctx, TITLE, `${error('This link is invalid, or was already used: you are not a member through it any more.')}`, 404);
}

/** The token's membership when it is still the one the link was made for. */
async function offerOf(ctx: AppContext, raw: string | undefined): Promise<{ target: LeaveTarget; offer: LeaveOffer } | null> {
  const target = raw ? verifyLeaveToken(ctx.deps.config.jwtSecret, raw.trim()) : null;
  const offer = target ? await findLeaveOffer(ctx.deps.knex, target.projectId, target.userId, target.joinedAt) : null;
  return target && offer ? { target, offer } : null;
}

export default [
  route({
    ...common,
    method: 'get',
    path: '/leave-project',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Page of the "Leave project" link: names the project and asks to confirm (nothing changes on GET)',
    query: TokenField,
    async handler(ctx, { query }) {
      const found = await offerOf(ctx, query.token);
      if (!found) return badLink(ctx);
      const { offer } = found;
      renderPage(
        ctx,
        TITLE,
        `<p>${escapeHtml(offer.email)} is a member of the project <strong>${escapeHtml(offer.projectName)}</strong> as <strong>${escapeHtml(offer.role)}</strong>.</p>
<p>Leaving removes your access to it at once. Someone in the project can add you again.</p>
<form method="post" action="/leave-project"><input type="hidden" name="token" value="${escapeHtml(query.token!.trim())}"><button type="submit">Leave project</button></form>`,
      );
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/leave-project',
    audit: 'member.remove',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: "Leave the project from the link's page (form field token); a project's last owner cannot leave",
    body: TokenField,
    async handler(ctx, { body }) {
      const found = await offerOf(ctx, body.token);
      if (!found) return badLink(ctx);
      const { target, offer } = found;
      const result = await audited(
        ctx.deps.knex,
        { actor: target.userId, ip: ctx.ip || null },
        (trx) => changeMember(trx, target.projectId, { userId: target.userId, role: offer.role }, target.userId, null),
        (r) =>
          typeof r === 'object' && {
            projectId: target.projectId,
            action: 'member.remove',
            target: { type: 'user', id: target.userId },
            details: { role: r.role, via: 'leave link' },
          },
      );
      if (result === 'LAST_OWNER') {
        return renderPage(ctx, TITLE, error('You are the last owner of this project: make another member OWNER first, then leave.'), 409);
      }
      if (typeof result !== 'object') return badLink(ctx);
      renderPage(ctx, 'You left the project', `<p>${escapeHtml(offer.email)} is no longer a member of <strong>${escapeHtml(offer.projectName)}</strong>.</p>`);
    },
  }),
];
