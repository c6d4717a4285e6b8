import { z } from 'zod';
import { route } from '../route';
import type { AppContext } from '../context';
import { notFound } from '../errors';
import { linksFor, verifyConfirmToken, verifySubscriptionToken, SubscriptionTarget } from '../../lib/unsubscribe';
import { consumeConfirmation, isPending } from '../../db/doubleOptIn';
import { findContact, ContactRow } from '../../db/contactReaders';
import { updateContact } from '../../db/contactWriters';
import { contactTopicStates, findTopic, TopicRow, TopicState } from '../../db/topics';
import { escapeHtml, renderPage } from '../pages';
import { type CopyKey, localeForContact, publicCopy, type PublicCopy } from '../../lib/publicCopy';

// Tokens come from lib/unsubscribe; the bound only keeps absurd paths away from the HMAC.
const TokenParams = z.object({ token: z.string().min(1).max(512) });

/** The contact a link was signed for; a forged link looks missing. */
function signedTarget(ctx: AppContext, token: string): SubscriptionTarget {
  const found = verifySubscriptionToken(ctx.deps.config.jwtSecret, token);
  if (!found) throw notFound('Subscription link');
  return found;
}

/** The topic a link was signed for, when it still exists; a link of a deleted topic acts on everything. */
async function linkTopic(ctx: AppContext, t: SubscriptionTarget): Promise<TopicRow | null> {
  return t.topicId ? ((await findTopic(ctx.deps.knex, t.projectId, t.topicId)) ?? null) : null;
}

/** The person's browser (or their mailbox provider's one-click), for the consent record. */
const originOf = (ctx: AppContext) => ({ ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null });

/** RFC 8058: a mailbox provider's one-click POST says so in its form body. */
const isOneClick = (ctx: AppContext) => (ctx.request.body as Record<string, unknown> | undefined)?.['List-Unsubscribe'] === 'One-Click';

/**
 * db/contactWriters owns the flip (and db/topics a topic's), so the contact.subscribed / contact.unsubscribed
 * (or contact.topic.*) event is recorded with it. A link signed for a topic changes that topic only.
 */
async function setSubscribed(ctx: AppContext, token: string, subscribed: boolean) {
  const t = signedTarget(ctx, token);
  const topic = await linkTopic(ctx, t);
  const source = !subscribed && isOneClick(ctx) ? 'one-click' : 'link';
  const change = topic ? { topics: [{ topic, subscribed }] } : { subscribed };
  const result = await updateContact(ctx.deps.knex, { projectId: t.projectId, contactId: t.contactId, ...change, source, origin: originOf(ctx) });
  // A valid link whose contact has since been deleted.
  if (!result) throw notFound('Subscription link');
  await ctx.deps.runtime.events.handOff(result.events);
  return { t, contact: result.contact, topic };
}

/** A button that POSTs to `url`: a plain form, so it needs no script and a link scanner's GET never presses it. */
const button = (url: string, label: string) => `<form method="post" action="${escapeHtml(url)}"><button type="submit">${escapeHtml(label)}</button></form>`;

const manageLink = (say: PublicCopy, url: string) => `<p><a href="${escapeHtml(url)}">${say.html('sub.manageAll')}</a></p>`;

/** The page in the contact's language (its `locale`, lib/publicCopy). */
const copyFor = (contact: ContactRow) => publicCopy(localeForContact(contact.data?.locale));

const show = (ctx: AppContext, say: PublicCopy, title: string, body: string, status = 200) => renderPage(ctx, title, body, status, { lang: say.locale });

/** The state of the contact (or of the link's topic), and the one button that changes it. */
function page(ctx: AppContext, { t, contact, topic }: { t: SubscriptionTarget; contact: ContactRow; topic: TopicRow | null }, subscribed: boolean) {
  const say = copyFor(contact);
  const links = linksFor(ctx.deps.config, t.projectId, t.contactId, topic?.id);
  const action = subscribed ? button(links.unsubscribeUrl, say.text('sub.unsubscribe')) : button(links.subscribeUrl, say.text('sub.subscribeAgain'));
  if (topic) {
    const headline = say.text(subscribed ? 'sub.subscribed.topicTitle' : 'sub.unsubscribed.topicTitle', { topic: topic.name });
    const state = say.html(subscribed ? 'sub.state.topicSubscribed' : 'sub.state.topicUnsubscribed', { email: contact.email, topic: topic.name });
    return show(ctx, say, headline, `<p>${state}</p>\n${action}\n${manageLink(say, links.manageUrl)}`);
  }
  const headline = say.text(subscribed ? 'sub.subscribed.title' : 'sub.unsubscribed.title');
  const state = say.html(contact.subscribed ? 'sub.state.subscribed' : 'sub.state.unsubscribed', { email: contact.email });
  const globalAction = contact.subscribed
    ? button(links.unsubscribeUrl, say.text('sub.unsubscribe'))
    : button(links.subscribeUrl, say.text('sub.subscribeAgain'));
  show(ctx, say, headline, `<p>${state}</p>\n${globalAction}`);
}

/** The contact a link names, read without changing anything. */
async function signedContact(ctx: AppContext, token: string) {
  const t = signedTarget(ctx, token);
  const contact = await findContact(ctx.deps.knex, t.projectId, t.contactId);
  if (!contact) throw notFound('Subscription link');
  return { t, contact, topic: await linkTopic(ctx, t) };
}

/**
 * What a GET of a subscription link answers: what pressing the button will do, and the button,
 * which POSTs back to the same signed link. Mail scanners and link previews open every GET, so a
 * GET changes nothing (docs/api.md, "Subscription links").
 */
async function confirmPage(ctx: AppContext, token: string, subscribe: boolean) {
  const { t, contact, topic } = await signedContact(ctx, token);
  const say = copyFor(contact);
  const links = linksFor(ctx.deps.config, t.projectId, t.contactId, topic?.id);
  const values = { email: contact.email, topic: topic?.name ?? '' };
  if (subscribe) {
    const ask = say.html(topic ? 'sub.askSubscribe.topic' : 'sub.askSubscribe.all', values);
    show(ctx, say, say.text('sub.askSubscribe.title'), `<p>${ask}</p>\n${button(links.subscribeUrl, say.text('sub.subscribe'))}`);
  } else {
    const ask = say.html(topic ? 'sub.askUnsubscribe.topic' : 'sub.askUnsubscribe.all', values);
    show(ctx, say, say.text('sub.askUnsubscribe.title'), `<p>${ask}</p>\n${button(links.unsubscribeUrl, say.text('sub.unsubscribe'))}`);
  }
}

// ───────────────────────────── preference center ─────────────────────────────

/**
 * The manage page: the global state and, while subscribed, the project's public topics as
 * checkboxes in one form that POSTs back to the same link, plus "unsubscribe from everything"
 * (the global unsubscribe link's form). Plain forms, no script (api/pages.ts CSP).
 */
function preferencePage(ctx: AppContext, t: SubscriptionTarget, contact: ContactRow, topics: TopicState[], notice?: CopyKey) {
  const say = copyFor(contact);
  const links = linksFor(ctx.deps.config, t.projectId, t.contactId);
  const parts: string[] = notice ? [`<p role="status">${say.html(notice)}</p>`] : [];
  if (!contact.subscribed) {
    parts.push(`<p>${say.html('sub.state.unsubscribed', { email: contact.email })}</p>`, button(links.subscribeUrl, say.text('sub.subscribeAgain')));
    return show(ctx, say, say.text('prefs.title'), parts.join('\n'));
  }
  parts.push(`<p>${say.html('sub.state.subscribed', { email: contact.email })}</p>`);
  if (topics.length) {
    const boxes = topics.map(({ topic, subscribed }) => {
      const description = topic.description ? `<br><small>${escapeHtml(topic.description)}</small>` : '';
      return `<input type="hidden" name="shown" value="${escapeHtml(topic.id)}">
<label><span><input type="checkbox" name="topics" value="${escapeHtml(topic.id)}"${subscribed ? ' checked' : ''}> ${escapeHtml(topic.name)}</span>${description}</label>`;
    });
    parts.push(
      `<form method="post" action="${escapeHtml(links.manageUrl)}">\n<fieldset><legend>${say.html('prefs.topics')}</legend>\n${boxes.join('\n')}\n</fieldset>\n<button type="submit">${say.html('prefs.save')}</button></form>`,
    );
    parts.push(button(links.unsubscribeUrl, say.text('sub.unsubscribeAll')));
  } else {
    parts.push(button(links.unsubscribeUrl, say.text('sub.unsubscribe')));
  }
  show(ctx, say, say.text('prefs.title'), parts.join('\n'));
}

/** A form field sent once is a string, sent repeatedly an array (koa-body); anything else counts as none. */
const formList = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const common = { auth: 'none', tag: 'subscriptions', noRateLimit: true, params: TokenParams } as const;

// ───────────────────────────── double opt-in ─────────────────────────────

/** The contact a confirmation link was signed for (its own purpose: a subscription link never confirms). */
async function confirmTarget(ctx: AppContext, token: string) {
  const t = verifyConfirmToken(ctx.deps.config.jwtSecret, token);
  const contact = t && (await findContact(ctx.deps.knex, t.projectId, t.contactId));
  if (!t || !contact) throw notFound('Confirmation link');
  return { t, contact };
}

const expiredPage = (ctx: AppContext, contact: ContactRow) => {
  const say = copyFor(contact);
  show(ctx, say, say.text('confirm.expired.title'), `<p>${say.html('confirm.expired.body')}</p>`, 410);
};

export default [
  route({
    ...common,
    method: 'get',
    path: '/unsubscribe/:token',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Unsubscribe link from an email: an HTML page whose button POSTs to the same link (a GET changes nothing)',
    async handler(ctx, { params }) {
      await confirmPage(ctx, params.token, false);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/unsubscribe/:token',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary:
      "Unsubscribes (from the email's topic only, when it was sent as one): the page's button, and RFC 8058 one-click (body List-Unsubscribe=One-Click, form-encoded)",
    async handler(ctx, { params }) {
      // The signed URL is the whole authorisation; mailbox providers' bodies vary, so none is required.
      page(ctx, await setSubscribed(ctx, params.token, false), false);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/subscribe/:token',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Subscribe-again link: an HTML page whose button POSTs to the same link (a GET changes nothing)',
    async handler(ctx, { params }) {
      await confirmPage(ctx, params.token, true);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/subscribe/:token',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: "Subscribes again (to the email's topic only, when it was sent as one); answers an HTML page",
    async handler(ctx, { params }) {
      page(ctx, await setSubscribed(ctx, params.token, true), true);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/confirm/:token',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Double opt-in link from the confirmation email: an HTML page whose button POSTs to the same link (a GET changes nothing)',
    async handler(ctx, { params }) {
      const { t, contact } = await confirmTarget(ctx, params.token);
      if (!(await isPending(ctx.deps.knex, t.contactId))) return expiredPage(ctx, contact);
      const url = `${ctx.deps.config.appUrl}/confirm/${params.token}`;
      const say = copyFor(contact);
      show(ctx, say, say.text('confirm.title'), `<p>${say.html('confirm.body', { email: contact.email })}</p>\n${button(url, say.text('confirm.button'))}`);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/confirm/:token',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Confirms a double opt-in: subscribes the contact (contact.subscribed with source double_opt_in); 410 page when the link was used or expired',
    async handler(ctx, { params }) {
      const { t, contact } = await confirmTarget(ctx, params.token);
      const result = await ctx.deps.knex.transaction(async (trx) => {
        if (!(await consumeConfirmation(trx, t.projectId, t.contactId))) return null;
        return updateContact(trx, { projectId: t.projectId, contactId: t.contactId, subscribed: true, source: 'double_opt_in', origin: originOf(ctx) });
      });
      if (!result) return expiredPage(ctx, contact);
      await ctx.deps.runtime.events.handOff(result.events);
      const say = copyFor(result.contact);
      const state = say.html('sub.state.subscribed', { email: result.contact.email });
      show(ctx, say, say.text('confirm.done.title'), `<p>${state}</p>\n${manageLink(say, linksFor(ctx.deps.config, t.projectId, t.contactId).manageUrl)}`);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/manage/:token',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Preference center: the subscription state and the public topics with their states, changed by form POST; answers an HTML page',
    async handler(ctx, { params }) {
      const { t, contact } = await signedContact(ctx, params.token);
      preferencePage(ctx, t, contact, await contactTopicStates(ctx.deps.knex, t.projectId, t.contactId, true));
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/manage/:token',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary:
      'Saves the preference center form (form-encoded `shown` and `topics`: topic ids; a shown topic left unchecked is unsubscribed); answers the page again',
    async handler(ctx, { params }) {
      const t = signedTarget(ctx, params.token);
      const form = (ctx.request.body ?? {}) as Record<string, unknown>;
      const checked = new Set(formList(form.topics));
      const shown = new Set(formList(form.shown));
      // Only public topics the page showed change: one created since the page was opened keeps its state.
      const states = await contactTopicStates(ctx.deps.knex, t.projectId, t.contactId, true);
      const topics = states.filter((s) => shown.has(s.topic.id)).map((s) => ({ topic: s.topic, subscribed: checked.has(s.topic.id) }));
      const result = await updateContact(ctx.deps.knex, { projectId: t.projectId, contactId: t.contactId, topics, source: 'link', origin: originOf(ctx) });
      if (!result) throw notFound('Subscription link');
      await ctx.deps.runtime.events.handOff(result.events);
      preferencePage(ctx, t, result.contact, await contactTopicStates(ctx.deps.knex, t.projectId, t.contactId, true), 'prefs.saved');
    },
  }),
];
