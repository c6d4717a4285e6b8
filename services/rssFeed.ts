import Parser from 'rss-parser';
import type { Config } from '../lib/config';
import type { RssItem } from '../db/campaigns';
import { createResolver } from './dns';
import { guardedFetch, WebhookRefused } from './httpGuard';

/**
 * An RSS campaign's feed (docs/campaigns.md "RSS-to-email"): fetched through the webhook SSRF guard
 * (services/httpGuard.ts: private, loopback and link-local targets refused unless
 * WEBHOOK_ALLOW_PRIVATE), then parsed from the fetched body with rss-parser's `parseString`, never
 * its own fetch (which would bypass the guard). RSS 2.0, RSS 1.0 and Atom are understood.
 */

/** Items a run sends at most (the newest): a first run of a long feed is a digest, not an archive dump. */
export const MAX_ITEMS_PER_RUN = 20;

export { WebhookRefused as FeedRefused };

export class FeedUnreadable extends Error {
  override name = 'FeedUnreadable';
}

/** Tests only: like the WEBHOOK step's (activities/steps/webhook.ts). */
export interface FeedGuardOptions {
  allowAddress?: (ip: string) => boolean;
  allowPort?: (port: number) => boolean;
}

const clip = (s: unknown, max: number) => (typeof s === 'string' ? s.slice(0, max) : '');

/** The feed's items, newest first, as templates see them. Throws WebhookRefused (the guard) or FeedUnreadable. */
export async function fetchFeedItems(config: Config, url: string, options: FeedGuardOptions = {}): Promise<RssItem[]> {
  const res = await guardedFetch(
    { url, method: 'GET', headers: { 'user-agent': 'svc-rss/1', accept: 'application/rss+xml, application/atom+xml, application/xml, text/xml' } },
    { resolver: createResolver(config), allowPrivate: config.webhookAllowPrivate, ...options, maxResponseBytes: 2 * 1024 * 1024 },
  );
  if (res.status < 200 || res.status >= 300) throw new FeedUnreadable(`the feed answered HTTP ${res.status}`);
  if (res.truncated) throw new FeedUnreadable('the feed is larger than 2 MB');
  let feed: Awaited<ReturnType<Parser['parseString']>>;
  try {
    feed = await new Parser().parseString(res.body.toString('utf8'));
  } catch (err) {
    throw new FeedUnreadable(`not an RSS or Atom feed: ${(err as Error).message}`);
  }
  const items = (feed.items ?? []).map((i) => {
    const when = i.isoDate ?? i.pubDate;
    const date = when && !Number.isNaN(new Date(when).getTime()) ? new Date(when).toISOString() : null;
    return {
      title: clip(i.title, 1000),
      link: clip(i.link, 2048),
      summary: clip(i.contentSnippet ?? i.summary, 5000),
      content: clip(i.content ?? i.summary, 50_000),
      date,
    };
  });
  // Newest first; items without a date keep their feed order after the dated ones.
  return items.sort((a, b) => (b.date ?? '').localeCompare(a.date ?? ''));
}

/**
 * The items newer than the last send: all (up to MAX_ITEMS_PER_RUN) on a first run; after that,
 * only dated items later than `after` (an undated item cannot be told new from old).
 */
export function newItems(items: RssItem[], after: Date | null): RssItem[] {
  const fresh = after ? items.filter((i) => i.date !== null && new Date(i.date) > after) : items;
  return fresh.slice(0, MAX_ITEMS_PER_RUN);
}
