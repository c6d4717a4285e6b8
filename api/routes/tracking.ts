import { z } from 'zod';
import { route } from '../route';
import type { AppContext } from '../context';
import { escapeHtml, renderPage } from '../pages';
import { followClick, recordOpen } from '../../services/engagements';

// Tokens come from services/trackingTokens; the bound only keeps absurd paths away from the HMAC.
const TokenParams = z.object({ token: z.string().min(1).max(200) });

/** A 1×1 transparent GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

// A cached pixel or redirect would hide every later open or click from us.
const NO_CACHE = { 'Cache-Control': 'no-store, no-cache, must-revalidate, private, max-age=0', Pragma: 'no-cache', Expires: '0' };

// `ctx.hostname` is the Host header's name (X-Forwarded-Host behind the trusted proxy), without the port.
const meta = (ctx: AppContext) => ({
  head: ctx.method === 'HEAD',
  userAgent: ctx.get('user-agent') || undefined,
  host: ctx.hostname.toLowerCase() || undefined,
});

/** A bad or forged token: a page, never a redirect (no open redirect through our domain). */
const notFoundPage = (ctx: AppContext) => renderPage(ctx, 'Link not found', '<p>This link is not valid.</p>', 404);

/**
 * An old link on the shared host: a page that names where the link leads and lets the person go on,
 * never a redirect (docs/tracking.md). The destination is shown whole and escaped, its host apart
 * (punycode, as the URL parser spells it), so a look-alike name is visible for what it is; the
 * link is a plain one, and the page runs no script (api/pages.ts).
 */
function interstitialPage(ctx: AppContext, url: string) {
  let host: string | null = null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') host = parsed.hostname;
  } catch {
    // Stored links are http(s) URLs; anything else is shown as text, never as a link.
  }
  const shown = escapeHtml(url);
  const body = host
    ? `<p>This link comes from an email sent some time ago. Before you go on, check that you expect to visit this site.</p>
<p>It leads to <strong>${escapeHtml(host)}</strong>:</p>
<p><code>${shown}</code></p>
<p><a href="${shown}" rel="noopener noreferrer nofollow">Continue to ${escapeHtml(host)}</a></p>`
    : `<p>This link comes from an email sent some time ago and leads to:</p>\n<p><code>${shown}</code></p>`;
  renderPage(ctx, 'Check where this link leads', body);
  ctx.set(NO_CACHE);
}

const common = { auth: 'none', tag: 'tracking', noRateLimit: true, params: TokenParams, method: 'get' } as const;

export default [
  route({
    ...common,
    path: '/t/o/:token',
    summary: 'Open pixel of a tracked email: a 1×1 transparent GIF; the open is recorded (HEAD requests as a machine)',
    responses: {
      200: { description: 'a 1×1 GIF, never cached', contentType: 'image/gif' },
      404: { description: 'not a token this server signed (an HTML page)' },
    },
    handler(ctx, { params }) {
      if (!recordOpen(ctx.deps, params.token, meta(ctx))) return notFoundPage(ctx);
      ctx.set(NO_CACHE);
      ctx.type = 'image/gif';
      ctx.body = PIXEL;
    },
  }),
  route({
    ...common,
    path: '/t/c/:token',
    summary: "Tracked link of an email: 302 to the link's original URL; the click is recorded (HEAD requests as a machine)",
    responses: {
      200: {
        description: `a link older than TRACKING_LINK_DAYS on any host but its project's verified tracking domain: an HTML page naming the original URL with a plain link to it, no redirect (the click is recorded)`,
        contentType: 'text/html',
      },
      302: { description: 'Location: the original URL' },
      404: { description: 'not a token this server signed, or no such link (an HTML page, no Location)' },
    },
    async handler(ctx, { params }) {
      const click = await followClick(ctx.deps, params.token, meta(ctx));
      if (!click) return notFoundPage(ctx);
      if (!click.redirect) return interstitialPage(ctx, click.url);
      ctx.set({ ...NO_CACHE, 'Referrer-Policy': 'no-referrer' });
      ctx.redirect(click.url);
    },
  }),
];
