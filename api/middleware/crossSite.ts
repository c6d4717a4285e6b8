import type { Next } from 'koa';
import type { AppContext } from '../context';
import { ApiError, forbidden } from '../errors';

/**
 * Guard of every cookie-authenticated state-changing route (api/router.ts). A browser attaches the
 * session cookie to requests other sites make, and SameSite=Lax neither covers same-site
 * subdomains nor every client, so:
 * - a request whose `Origin` is not one of config.dashboardOrigins (or, without `Origin`, whose
 *   `Sec-Fetch-Site` is `cross-site` or `same-site`) is refused with 403; clients that send
 *   neither (curl, servers) are not browsers acting for someone else;
 * - a body must be JSON (multipart where the route takes a file): HTML forms can send only
 *   urlencoded, multipart or text/plain bodies without a CORS preflight, which we never grant.
 *   Routes that take no session and must work from our own pages' forms (`crossSiteForms`:
 *   POST /auth/logout) accept urlencoded too; the Origin check alone guards them.
 * One write is meant to come from other sites: a signup form's POST /f/:id (api/routes/formPages.ts,
 * DESIGN §8), which the embed snippet sends from any page. It takes no session and no key, so it
 * reads no credential a browser attaches, and it is guarded by a honeypot, rate limits and double
 * opt-in instead; it alone is left out of this guard (test/integration/forms.test.ts holds both).
 */
export function crossSiteGuard(opts: { multipart: boolean; forms?: boolean }) {
  const accepted = ['application/json', ...(opts.multipart ? ['multipart/form-data'] : []), ...(opts.forms ? ['application/x-www-form-urlencoded'] : [])];
  return async (ctx: AppContext, next: Next) => {
    const refused = crossSiteRefusal(ctx);
    if (refused) throw forbidden(refused);
    if (hasBody(ctx) && !ctx.is(accepted)) {
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `This endpoint accepts ${accepted.join(' or ')} bodies only`);
    }
    await next();
  };
}

/** Why the request looks made by another site's page, or null: the Origin half of the guard. */
export function crossSiteRefusal(ctx: AppContext): string | null {
  const origin = ctx.get('Origin');
  if (origin) return ctx.deps.config.dashboardOrigins.includes(origin) ? null : `Cross-origin request refused: ${clip(origin)} is not an allowed origin`;
  if (['cross-site', 'same-site'].includes(ctx.get('Sec-Fetch-Site').toLowerCase())) return 'Cross-origin request refused';
  return null;
}

/**
 * The guard for a cookie-authenticated HTML form (the invite page's Accept button): a form body
 * cannot be refused for its type, so the request must say where it comes from. Our pages send
 * `Referrer-Policy: no-referrer`, under which browsers post forms with `Origin: null`; then
 * `Sec-Fetch-Site: same-origin` must vouch for it. A request that names neither is refused.
 */
export function formCrossSiteRefusal(ctx: AppContext): string | null {
  const origin = ctx.get('Origin');
  if (origin && origin !== 'null') return crossSiteRefusal(ctx);
  return ctx.get('Sec-Fetch-Site').toLowerCase() === 'same-origin' ? null : 'Cross-origin request refused: the request does not show it comes from this site';
}

const clip = (s: string) => (s.length > 100 ? `${s.slice(0, 100)}…` : s);

/** A declared content type counts as a body even when empty: a form posts one with no fields. */
function hasBody(ctx: AppContext): boolean {
  return !!ctx.get('Content-Type') || Number(ctx.get('Content-Length') || 0) > 0 || !!ctx.get('Transfer-Encoding');
}
