import { z } from 'zod';
import { route } from '../route';
import type { AppContext } from '../context';
import { notFound } from '../errors';
import { linksFor, verifySubscriptionToken, SubscriptionTarget } from '../../lib/unsubscribe';
import { findContact, updateContact, ContactRow } from '../../db/contacts';
import { handOffEvents } from '../../services/events';
import { escapeHtml, renderPage } from '../pages';

// Tokens come from lib/unsubscribe; the bound only keeps absurd paths away from the HMAC.
const TokenParams = z.object({ token: z.string().min(1).max(512) });

/** The contact a link was signed for; a forged link looks missing. */
function signedTarget(ctx: AppContext, token: string): SubscriptionTarget {
  const found = verifySubscriptionToken(ctx.deps.config.jwtSecret, token);
  if (!found) throw notFound('Subscription link');
  return found;
}

/** db/contacts owns the flip, so the contact.subscribed / contact.unsubscribed event is recorded with it. */
async function setSubscribed(ctx: AppContext, token: string, subscribed: boolean) {
  const t = signedTarget(ctx, token);
  const result = await updateContact(ctx.deps.knex, { ...t, subscribed, source: 'link' });
  // A valid link whose contact has since been deleted.
  if (!result) throw notFound('Subscription link');
  await handOffEvents(ctx.deps, result.events);
  return { t, contact: result.contact };
}

function page(ctx: AppContext, { t, contact }: { t: SubscriptionTarget; contact: ContactRow }, headline: string) {
  const links = linksFor(ctx.deps.config, t.projectId, t.contactId);
  const action = contact.subscribed
    ? `<a href="${escapeHtml(links.unsubscribeUrl)}">Unsubscribe</a>`
    : `<a href="${escapeHtml(links.subscribeUrl)}">Subscribe again</a>`;
  const state = contact.subscribed ? 'subscribed to' : 'unsubscribed from';
  renderPage(ctx, headline, `<p>${escapeHtml(contact.email)} is ${state} these emails.</p>\n<p>${action}</p>`);
}

const common = { auth: 'none', tag: 'subscriptions', noRateLimit: true, params: TokenParams } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/unsubscribe/:token',
    summary: 'Unsubscribe link from an email; answers an HTML page',
    async handler(ctx, { params }) {
      page(ctx, await setSubscribed(ctx, params.token, false), 'You have been unsubscribed');
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/unsubscribe/:token',
    summary: 'RFC 8058 one-click unsubscribe (body List-Unsubscribe=One-Click, form-encoded)',
    async handler(ctx, { params }) {
      // The signed URL is the whole authorisation; mailbox providers' bodies vary, so none is required.
      page(ctx, await setSubscribed(ctx, params.token, false), 'You have been unsubscribed');
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/subscribe/:token',
    summary: 'Subscribe again from a link; answers an HTML page',
    async handler(ctx, { params }) {
      page(ctx, await setSubscribed(ctx, params.token, true), 'You are subscribed');
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/manage/:token',
    summary: 'Current subscription state with a link to change it; answers an HTML page',
    async handler(ctx, { params }) {
      const t = signedTarget(ctx, params.token);
      const contact = await findContact(ctx.deps.knex, t.projectId, t.contactId);
      if (!contact) throw notFound('Subscription link');
      page(ctx, { t, contact }, 'Your email preferences');
    },
  }),
];
