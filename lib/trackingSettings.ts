/**
 * Which first-party tracking an email gets (docs/tracking.md): the project's settings per email
 * type, a campaign's own choice, or a /v1/send request's `track`, most specific first.
 */

export interface TrackingChoice {
  opens: boolean;
  clicks: boolean;
}

/** The project settings; HEADLESS mail follows TRANSACTIONAL. */
export interface TrackingSettings {
  MARKETING: TrackingChoice;
  TRANSACTIONAL: TrackingChoice;
}

/** A change or an override: only the keys given count. */
export type TrackingPatch = { opens?: boolean; clicks?: boolean };

// Marketing mail is measured by engagement; a receipt or a password reset is not, and tracking it
// would only cost privacy.
export const DEFAULT_TRACKING: TrackingSettings = {
  MARKETING: { opens: true, clicks: true },
  TRANSACTIONAL: { opens: false, clicks: false },
};

export const NO_TRACKING: TrackingChoice = { opens: false, clicks: false };

/** Stored settings (jsonb, maybe partial or null) over the defaults. */
export function trackingSettingsOf(stored: unknown): TrackingSettings {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Partial<Record<keyof TrackingSettings, TrackingPatch>>;
  const pick = (type: keyof TrackingSettings): TrackingChoice => ({
    opens: typeof s[type]?.opens === 'boolean' ? s[type].opens : DEFAULT_TRACKING[type].opens,
    clicks: typeof s[type]?.clicks === 'boolean' ? s[type].clicks : DEFAULT_TRACKING[type].clicks,
  });
  return { MARKETING: pick('MARKETING'), TRANSACTIONAL: pick('TRANSACTIONAL') };
}

/** What an email of `type` gets: the override's keys, else the settings for its type. */
export function resolveTracking(settings: TrackingSettings, type: 'MARKETING' | 'TRANSACTIONAL' | 'HEADLESS', override?: TrackingPatch | null): TrackingChoice {
  const base = type === 'MARKETING' ? settings.MARKETING : settings.TRANSACTIONAL;
  return { opens: override?.opens ?? base.opens, clicks: override?.clicks ?? base.clicks };
}

/**
 * The base of an email's pixel and link URLs: TRACKING_URL, or with the project's verified tracking
 * domain, TRACKING_URL with its host replaced by that domain (scheme, port and path kept: the
 * domain is a CNAME to TRACKING_URL's host, so it reaches the same server the same way).
 */
export function trackingBaseUrl(trackingUrl: string, domain: string | null | undefined): string {
  if (!domain) return trackingUrl;
  const url = new URL(trackingUrl);
  url.hostname = domain;
  return url.toString().replace(/\/+$/, '');
}

/** The shared tracking host: TRACKING_URL's host name, what a project's tracking domain is a CNAME to. */
export const trackingHostOf = (trackingUrl: string) => new URL(trackingUrl).hostname;
