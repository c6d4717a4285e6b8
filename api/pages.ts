import type { AppContext } from './context';

/**
 * The server-rendered pages people reach from our emails (subscription links, account links):
 * plain HTML forms, no script at all, one stylesheet from this origin, and a CSP that allows
 * nothing else, so an injected string could neither run nor load anything.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_STYLESHEET_PATH = '/pages.css';

export const PAGE_CSS = `body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a }
h1 { font-size: 1.5rem }
form { display: grid; gap: .75rem; margin: 1.5rem 0 }
label { display: grid; gap: .25rem }
input { font: inherit; padding: .5rem; border: 1px solid #999; border-radius: 4px }
button { font: inherit; padding: .6rem 1rem; border: 0; border-radius: 4px; background: #2451b7; color: #fff; cursor: pointer }
.error { color: #a40000 }
select, textarea { font: inherit; padding: .5rem; border: 1px solid #999; border-radius: 4px }
.hp { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden }
`;

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Answers an HTML page; `body` is trusted markup, every value in it must already be escaped. */
export function renderPage(
  ctx: AppContext,
  title: string,
  body: string,
  status = 200,
  { csp = PAGE_CSP, indexable = false, lang = 'en' }: { csp?: string; indexable?: boolean; lang?: string } = {},
) {
  ctx.status = status;
  ctx.type = 'html';
  // Links carry tokens that are credentials: keep them out of caches and referrers.
  ctx.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff' });
  ctx.body = `<!doctype html>
<html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${indexable ? '' : '<meta name="robots" content="noindex">'}<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${PAGE_STYLESHEET_PATH}"></head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}

/**
 * Email content shown as a page (view in browser, the public archive): the email's own markup,
 * inline styles and remote images allowed (emails are built that way), and still no script, no
 * frame, no form, no plugin. The other headers are the pages' own (renderPage).
 */
export const EMAIL_PAGE_CSP =
  "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' https: http: data:; font-src https:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/** Answers an email's rendered HTML as a page; `html` is the email's own markup, `title` plain text. */
export function renderEmailPage(ctx: AppContext, title: string, html: string, { noIndex = true }: { noIndex?: boolean } = {}) {
  ctx.status = 200;
  ctx.type = 'html';
  ctx.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'Content-Security-Policy': EMAIL_PAGE_CSP, 'X-Content-Type-Options': 'nosniff' });
  if (noIndex) ctx.set('X-Robots-Tag', 'noindex');
  // A body that is a whole document is sent as it is; a fragment gets a document around it.
  ctx.body = /<html[\s>]/i.test(html)
    ? html
    : `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body>
${html}
</body></html>`;
}
