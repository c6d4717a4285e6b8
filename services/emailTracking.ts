import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import { trackingBaseUrl, TrackingChoice, TrackingSettings } from '../lib/trackingSettings';
import { trackingSettings } from '../db/tracking';
import { verifiedTrackingDomain } from '../db/trackingDomains';
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
 * added, as `choice` says. The subscription links (unsubscribe, subscribe, manage) and the
 * view-in-browser link (the reader's own controls, which must work however a scanner treats our domain) and links already pointing
 * at our tracking routes stay as they are. The text part is not touched: it keeps the real URLs.
 * `base`: where the pixel and links point (the project's verified tracking domain, from
 * `projectTracking`); TRACKING_URL when absent.
 */
export function trackedBody(
  config: Pick<Config, 'appUrl' | 'trackingUrl' | 'jwtSecret'>,
  emailId: string,
  html: string,
  choice: TrackingChoice,
  base: string = config.trackingUrl,
): TrackedBody {
  if (!choice.opens && !choice.clicks) return { body: html, trackOpens: false, trackClicks: false, links: null };
  const kept = [
    `${config.appUrl}/unsubscribe/`,
    `${config.appUrl}/subscribe/`,
    `${config.appUrl}/manage/`,
    `${config.appUrl}/v/`,
    `${config.trackingUrl}/t/`,
    `${base}/t/`,
  ];
  const urls = trackingUrls(base, config.jwtSecret, emailId);
  const tracked = trackHtml(html, {
    clicks: choice.clicks,
    pixelUrl: choice.opens ? urls.pixel() : undefined,
    clickUrl: urls.click,
    keep: (url) => kept.some((prefix) => url.startsWith(prefix)),
    maxLinks: MAX_TRACKED_LINKS,
  });
  return { body: tracked.html, trackOpens: choice.opens, trackClicks: choice.clicks, links: choice.clicks ? tracked.links : null };
}

/** A project's tracking as rendering needs it: its settings, and the base its URLs go under. */
export interface ProjectTracking {
  settings: TrackingSettings;
  base: string;
}

/** Read once per render batch; undefined for a project that no longer exists. */
export async function projectTracking(knex: Knex, config: Pick<Config, 'trackingUrl'>, projectId: string): Promise<ProjectTracking | undefined> {
  const [settings, domain] = await Promise.all([trackingSettings(knex, projectId), verifiedTrackingDomain(knex, projectId)]);
  return settings && { settings, base: trackingBaseUrl(config.trackingUrl, domain) };
}
