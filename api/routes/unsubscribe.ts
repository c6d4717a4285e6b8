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

/** A button that POSTs to `url`: a plain form, so it needs no script and a link scanner's GET never presses it. */
const button = (url: string, label: string) => `<form method="post" action="${escapeHtml(url)}"><button type="submit">${escapeHtml(label)}</button></form>`;

/** The state of the contact, and the one button that changes it. */
function page(ctx: AppContext, { t, contact }: { t: SubscriptionTarget; contact: ContactRow }, headline: string) {
  const links = linksFor(ctx.deps.config, t.projectId, t.contactId);
  const action = contact.subscribed ? button(links.unsubscribeUrl, 'Unsubscribe') : button(links.subscribeUrl, 'Subscribe again');
  const state = contact.subscribed ? 'subscribed to' : 'unsubscribed from';
  renderPage(ctx, headline, `<p>${escapeHtml(contact.email)} is ${state} these emails.</p>\n${action}`);
}

/** The contact a link names, read without changing anything. */
async function signedContact(ctx: AppContext, token: string) {
  const t = signedTarget(ctx, token);
  const contact = await findContact(ctx.deps.knex, t.projectId, t.contactId);
  if (!contact) throw notFound('Subscription link');
  return { t, contact };
}

/**
 * What a GET of a subscription link answers: what pressing the button will do, and the button,
 * which POSTs back to the same signed link. Mail scanners and link previews open every GET, so a
 * GET changes nothing (docs/api.md, "Subscription links").
 */
async function confirmPage(ctx: AppContext, token: string, subscribe: boolean) {
  const { t, contact } = await signedContact(ctx, token);
  const links = linksFor(ctx.deps.config, t.projectId, t.contactId);
  const email = escapeHtml(contact.email);
  if (subscribe) {
    renderPage(ctx, 'Subscribe again?', `<p>Press the button to receive these emails at ${email} again.</p>\n${button(links.subscribeUrl, 'Subscribe')}`);
  } else {
    renderPage(ctx, 'Unsubscribe?', `<p>Press the button to stop receiving these emails at ${email}.</p>\n${button(links.unsubscribeUrl, 'Unsubscribe')}`);
  }
}

const common = { auth: 'none', tag: 'subscriptions', noRateLimit: true, params: TokenParams } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/unsubscribe/:token',
    summary: 'Unsubscribe link from an email: an HTML page whose button POSTs to the same link (a GET changes nothing)',
    async handler(ctx, { params }) {
      await confirmPage(ctx, params.token, false);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/unsubscribe/:token',
    summary: 'Unsubscribes: the page\'s button, and RFC 8058 one-click (body List-Unsubscribe=One-Click, form-encoded)',
    async handler(ctx, { params }) {
      // The signed URL is the whole authorisation; mailbox providers' bodies vary, so none is required.
      page(ctx, await setSubscribed(ctx, params.token, false), 'You have been unsubscribed');
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/subscribe/:token',
    summary: 'Subscribe-again link: an HTML page whose button POSTs to the same link (a GET changes nothing)',
    async handler(ctx, { params }) {
      await confirmPage(ctx, params.token, true);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/subscribe/:token',
    summary: 'Subscribes again (the button of the subscribe page); answers an HTML page',
    async handler(ctx, { params }) {
      page(ctx, await setSubscribed(ctx, params.token, true), 'You are subscribed');
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/manage/:token',
    summary: 'Current subscription state with a button to change it; answers an HTML page',
    async handler(ctx, { params }) {
      page(ctx, await signedContact(ctx, params.token), 'Your email preferences');
    },
  }),
];
