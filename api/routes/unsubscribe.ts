import { z } from 'zod';
import { route } from '../route';
import type { AppContext } from '../context';
import { notFound } from '../errors';
import { linksFor, verifySubscriptionToken, SubscriptionTarget } from '../../lib/unsubscribe';
import { findContact, updateContact, ContactRow } from '../../db/contacts';
import { handOffEvents } from '../../services/events';

// Tokens come from lib/unsubscribe; the bound only keeps absurd paths away from the HMAC.
const TokenParams = z.object({ token: z.string().min(1).max(512) });

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

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
  ctx.type = 'html';
  // The token in the URL is a credential for this contact's flag: keep it out of caches and referrers.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(headline)}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem">
<h1>${escapeHtml(headline)}</h1>
<p>${escapeHtml(contact.email)} is ${state} these emails.</p>
<p>${action}</p>
</body></html>`;
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
