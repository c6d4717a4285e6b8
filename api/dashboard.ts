import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Next } from 'koa';
import type { AppContext } from './context';

/**
 * The dashboard (web/, built into web/dist by scripts/buildWeb.ts) on the API's own origin under
 * /app/, so the session cookie and the cross-site guard apply unchanged (docs/dashboard.md):
 * - hashed files under /app/assets/ are cached for a year; index.html is revalidated every time;
 * - any other GET under /app/ that names no file is a client route: index.html;
 * - a browser asking for `/` (Accept: text/html) is sent to /app/; API routes are untouched.
 * Every answer under /app/ carries a CSP that allows no inline script.
 */
export const DASHBOARD_DIST = path.resolve(__dirname, '..', 'web', 'dist');

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Mantine writes its theme variables into a <style> element and positions popovers with style attributes.
  "style-src 'self' 'unsafe-inline'",
  // https: the template preview (a sandboxed srcdoc iframe inherits this policy) shows an email's remote images.
  "img-src 'self' data: blob: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  // The template preview is an iframe of srcdoc (same origin, sandboxed).
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Dashboard not built</title>
<p>The dashboard has not been built on this machine. Run <code>npm run build:web</code> (or <code>npm start</code>, which builds it when missing).</p>`;

/** The file a path under /app/ names inside dist, or null when it names none (client route, traversal, dotfile). */
async function fileFor(dist: string, rel: string): Promise<string | null> {
  if (!rel || rel.endsWith('/')) return null;
  if (rel.split('/').some((seg) => seg.startsWith('.') || seg === '')) return null;
  const full = path.resolve(dist, rel);
  if (!full.startsWith(dist + path.sep)) return null;
  const stat = await fsp.stat(full).catch(() => null);
  return stat?.isFile() ? full : null;
}

export function dashboard(dist = DASHBOARD_DIST) {
  return async (ctx: AppContext, next: Next) => {
    const get = ctx.method === 'GET' || ctx.method === 'HEAD';
    if (get && ctx.path === '/' && ctx.accepts('json', 'html') === 'html' && ctx.get('Accept').includes('text/html')) {
      ctx.redirect('/app/');
      return;
    }
    if (ctx.path !== '/app' && !ctx.path.startsWith('/app/')) return next();
    if (!get) return next();
    if (ctx.path === '/app') {
      ctx.redirect('/app/');
      return;
    }
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    let rel: string;
    try {
      rel = decodeURIComponent(ctx.path.slice('/app/'.length));
    } catch {
      ctx.status = 404;
      ctx.body = 'Not found';
      return;
    }
    const file = rel.includes('\0') ? null : await fileFor(dist, rel);
    if (file && path.basename(file) !== 'index.html') {
      ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
      // Vite names every file under assets/ by its content hash: a new build is a new URL.
      ctx.set('Cache-Control', rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      ctx.body = fs.createReadStream(file);
      return;
    }
    // A missing asset is a 404, not the page: a stale tab asking for an old chunk must fail visibly.
    if (rel.startsWith('assets/') || /\.[a-z0-9]+$/i.test(rel)) {
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'Not found';
      return;
    }
    const index = path.join(dist, 'index.html');
    if (!fs.existsSync(index)) {
      ctx.status = 503;
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = NOT_BUILT;
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = fs.createReadStream(index);
  };
}
