/** A link's counts as GET /campaigns/:id/links answers them. */
export interface LinkCounts {
  url: string;
  clicks: number;
  uniqueClicks: number;
}

/** The form a URL is compared in: what the browser resolves `href` to, or the text itself when it is not a URL. */
function canonical(url: string): string {
  try {
    return new URL(url.trim()).href;
  } catch {
    return url.trim();
  }
}

/**
 * The email's HTML with each link's clicks and unique clicks in a badge right after it, matched by
 * the link's URL. Computed here, in the dashboard, so the preview frame stays without scripts (its
 * sandbox is empty). A link nobody clicked gets a "0" badge; the badge is a plain styled `<span>`.
 * `words` says a link's counts in the dashboard's language ("1 click · 1 person"; `null`: nobody clicked).
 */
export function annotateLinks(html: string, links: LinkCounts[], words: (link: LinkCounts | null) => string): string {
  const byUrl = new Map(links.map((l) => [canonical(l.url), l]));
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    const href = a.getAttribute('href') ?? '';
    if (!/^https?:/i.test(href.trim())) continue;
    const l = byUrl.get(canonical(href));
    const badge = doc.createElement('span');
    badge.setAttribute('data-click-badge', l ? String(l.clicks) : '0');
    badge.setAttribute(
      'style',
      'display:inline-block;margin-left:4px;padding:1px 6px;border-radius:9px;font:600 11px/16px system-ui,sans-serif;' +
        `color:#fff;background:${l?.clicks ? '#e8590c' : '#868e96'};vertical-align:middle;white-space:nowrap`,
    );
    badge.textContent = words(l ?? null);
    a.after(badge);
  }
  return `<!doctype html>${doc.documentElement.outerHTML}`;
}
