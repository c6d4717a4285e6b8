import { z } from 'zod';
import { route } from '../route';
import type { AppContext } from '../context';
import { renderPage } from '../pages';
import { followClick, recordOpen } from '../../services/engagements';

// Tokens come from services/trackingTokens; the bound only keeps absurd paths away from the HMAC.
const TokenParams = z.object({ token: z.string().min(1).max(200) });

/** A 1×1 transparent GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

// A cached pixel or redirect would hide every later open or click from us.
const NO_CACHE = { 'Cache-Control': 'no-store, no-cache, must-revalidate, private, max-age=0', Pragma: 'no-cache', Expires: '0' };

const meta = (ctx: AppContext) => ({ head: ctx.method === 'HEAD', userAgent: ctx.get('user-agent') || undefined });

/** A bad or forged token: a page, never a redirect (no open redirect through our domain). */
const notFoundPage = (ctx: AppContext) => renderPage(ctx, 'Link not found', '<p>This link is not valid.</p>', 404);

const common = { auth: 'none', tag: 'tracking', noRateLimit: true, params: TokenParams, method: 'get' } as const;

export default [
  route({
    ...common,
    path: '/t/o/:token',
    summary: 'Open pixel of a tracked email: a 1×1 transparent GIF; the open is recorded (HEAD requests as a machine)',
    responses: { 200: { description: 'image/gif, never cached' }, 404: { description: 'not a token this server signed (an HTML page)' } },
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
      302: { description: 'Location: the original URL' },
      404: { description: 'not a token this server signed, or no such link (an HTML page, no Location)' },
    },
    async handler(ctx, { params }) {
      const url = await followClick(ctx.deps, params.token, meta(ctx));
      if (!url) return notFoundPage(ctx);
      ctx.set({ ...NO_CACHE, 'Referrer-Policy': 'no-referrer' });
      ctx.redirect(url);
    },
  }),
];
