import type { Config } from '../lib/config';
import type { TrackingChoice } from '../lib/trackingSettings';
import { MAX_TRACKED_LINKS, trackingUrls } from './trackingTokens';
import { trackHtml } from './trackedLinks';

/** What tracking did to one rendered body: the body to send, and what the email row must keep. */
export interface TrackedBody {
  body: string;
  trackOpens: boolean;
  trackClicks: boolean;
  /** The original URL of each rewritten link (token index order); null when clicks are not tracked. */
  links: string[] | null;
}

/**
 * The rendered HTML of email `emailId` with its links rewritten to click URLs and the open pixel
 * added, as `choice` says. The subscription links (unsubscribe, subscribe, manage: the reader's
 * own controls, which must work however a scanner treats our domain) and links already pointing
 * at our tracking routes stay as they are. The text part is not touched: it keeps the real URLs.
 */
export function trackedBody(config: Pick<Config, 'appUrl' | 'trackingUrl' | 'jwtSecret'>, emailId: string, html: string, choice: TrackingChoice): TrackedBody {
  if (!choice.opens && !choice.clicks) return { body: html, trackOpens: false, trackClicks: false, links: null };
  const kept = [`${config.appUrl}/unsubscribe/`, `${config.appUrl}/subscribe/`, `${config.appUrl}/manage/`, `${config.trackingUrl}/t/`];
  const urls = trackingUrls(config.trackingUrl, config.jwtSecret, emailId);
  const tracked = trackHtml(html, {
    clicks: choice.clicks,
    pixelUrl: choice.opens ? urls.pixel() : undefined,
    clickUrl: urls.click,
    keep: (url) => kept.some((prefix) => url.startsWith(prefix)),
    maxLinks: MAX_TRACKED_LINKS,
  });
  return { body: tracked.html, trackOpens: choice.opens, trackClicks: choice.clicks, links: choice.clicks ? tracked.links : null };
}
