import { route } from '../route';
import type { AppContext } from '../context';
import { notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { escapeHtml, PAGE_CSP, renderPage } from '../pages';
import { findPublicForm, type FormRow } from '../../db/forms';
import { formMarkup } from '../../lib/formMarkup';
import { HONEYPOT_NAME, postedText, readSubmission, STAMP_NAME, type Submission } from '../../lib/formFields';
import { checkFormStamp, signFormStamp } from '../../lib/formStamp';
import { formOptIn, formThrottle, submitForm } from '../../services/formSubmissions';
import { localeForVisitor, publicCopy, type PublicCopy } from '../../lib/publicCopy';

/**
 * A signup form's hosted page and its submissions (docs/forms.md). POST /f/:id is the one route that
 * takes a write from another site (the embed snippet posts to it from anywhere): it reads no cookie
 * and no key, and in place of the origin check every other state change keeps
 * (api/middleware/crossSite.ts) it is guarded by a honeypot, a signed fill-time stamp, rate limits
 * and double opt-in. It answers the same page whether or not the address was known or subscribed.
 */

/**
 * The pages' CSP, with the form's redirect origin allowed as a form target: browsers apply
 * form-action to the redirect that answers a submission too.
 */
function formCsp(form: FormRow): string {
  if (!form.redirect_url) return PAGE_CSP;
  return PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${new URL(form.redirect_url).origin}`);
}

async function publicForm(ctx: AppContext, id: string): Promise<FormRow> {
  const form = await findPublicForm(ctx.deps.knex, id);
  if (!form) throw notFound('Form');
  return form;
}

/** The page's own words in the visitor's language (Accept-Language); the form's labels are its author's. */
const visitorCopy = (ctx: AppContext) => publicCopy(localeForVisitor(ctx.acceptsLanguages()));

/** The form, empty or as posted with a message on each refused field; with a fresh stamp. */
function formPage(ctx: AppContext, say: PublicCopy, form: FormRow, posted?: Submission) {
  const markup = formMarkup({
    action: `/f/${form.id}`,
    fields: form.fields,
    values: posted?.values,
    errors: posted?.errors,
    stamp: signFormStamp(ctx.deps.config.jwtSecret, form.id),
    honeypot: 'class',
    words: { email: say.text('form.email'), honeypot: say.text('form.honeypot'), subscribe: say.text('form.subscribe') },
  });
  const alert = posted ? `<p class="error" role="alert">${say.html('form.fix')}</p>\n` : '';
  renderPage(ctx, form.name, `${alert}${markup}`, posted ? 422 : 200, { csp: formCsp(form), lang: say.locale });
}

/**
 * What every accepted submission answers, stored or not (a bot's, a known address's): the form's
 * redirect (303) or its success page. Under double opt-in the page asks to confirm by email, for
 * every address alike.
 */
function successPage(ctx: AppContext, say: PublicCopy, form: FormRow, confirmByEmail: boolean) {
  if (form.redirect_url) {
    ctx.status = 303;
    ctx.redirect(form.redirect_url);
    return;
  }
  const message = `<p role="status">${form.success_message ? escapeHtml(form.success_message) : say.html('form.thanks.body')}</p>`;
  const confirm = confirmByEmail ? `\n<p>${say.html('form.checkInbox.body')}</p>` : '';
  const title = say.text(confirmByEmail ? 'form.checkInbox.title' : 'form.thanks.title');
  renderPage(ctx, title, `${message}${confirm}`, 200, { csp: formCsp(form), lang: say.locale });
}

/** A filled honeypot, or a stamp that is forged or too fresh: a bot's, taken in silence. */
function looksAutomated(ctx: AppContext, form: FormRow, body: Record<string, unknown>): boolean {
  if (postedText(body[HONEYPOT_NAME])) return true;
  const stamp = postedText(body[STAMP_NAME]);
  return !!stamp && checkFormStamp(ctx.deps.config.jwtSecret, form.id, stamp) !== 'ok';
}

const common = { auth: 'none', tag: 'forms', resource: 'Form', noRateLimit: true, params: IdParams } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/f/:id',
    summary: "A signup form's hosted page: a plain HTML form (no script) posting to the same URL",
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    async handler(ctx, { params }) {
      formPage(ctx, visitorCopy(ctx), await publicForm(ctx, params.id));
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/f/:id',
    summary:
      'Submits a signup form (application/x-www-form-urlencoded, from any site): creates or updates the contact, subscribed or pending double opt-in; answers the success page or 303 to the redirect URL, 422 the form with its errors, 429 when rate limited',
    responses: {
      200: { description: 'the success page', contentType: 'text/html' },
      303: { description: "to the form's redirect URL" },
    },
    async handler(ctx, { params }) {
      const form = await publicForm(ctx, params.id);
      const say = visitorCopy(ctx);
      const retryAfter = await formThrottle(ctx.deps, form.id, ctx.ip || 'unknown');
      if (retryAfter !== null) {
        renderPage(ctx, say.text('form.tooMany.title'), `<p>${say.html('form.tooMany.body')}</p>`, 429, { csp: formCsp(form), lang: say.locale });
        ctx.set('Retry-After', String(retryAfter));
        return;
      }
      const optIn = await formOptIn(ctx.deps.knex, form);
      if (optIn === 'unavailable') {
        return renderPage(ctx, say.text('form.closed.title'), `<p>${say.html('form.closed.body')}</p>`, 503, { lang: say.locale });
      }
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      if (looksAutomated(ctx, form, body)) return successPage(ctx, say, form, !!optIn);
      const submission = readSubmission(form.fields, body, say.text);
      if (Object.keys(submission.errors).length) return formPage(ctx, say, form, submission);
      await submitForm(ctx.deps, form, optIn, submission, { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null });
      successPage(ctx, say, form, !!optIn);
    },
  }),
];
