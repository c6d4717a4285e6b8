import type { ResponseOf } from './client';
import type { Campaign, CampaignBody, CampaignDraft } from './campaigns';

/** The RSS campaign form's and page's own logic (no React): docs/campaigns.md "RSS-to-email". */

export type RssRun = ResponseOf<'/campaigns/{id}/runs', 'get'>['data'][number];
export type RssSchedule = NonNullable<Campaign['schedule']>;

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * `POST /campaigns` with `kind: "RSS"`. The route validates it with its RSS schema; the OpenAPI
 * document names only the regular body, so the client's type is the regular one.
 */
export interface RssCampaignBody {
  kind: 'RSS';
  name: string;
  feedUrl: string;
  schedule: { frequency: 'daily' | 'weekly'; time: string; timezone: string; weekday?: number };
  template: string;
  type: CampaignDraft['type'];
  audienceType: CampaignDraft['audienceType'];
  segmentId: string | null;
  audienceCondition: CampaignBody['audienceCondition'];
  archive: boolean;
}

/** What the form edits. */
export interface RssDraft extends Pick<CampaignDraft, 'name' | 'type' | 'audienceType' | 'segmentId' | 'condition' | 'archive'> {
  feedUrl: string;
  frequency: 'daily' | 'weekly';
  time: string;
  timezone: string;
  weekday: number;
  template: string | null;
}

export function newRssDraft(condition: CampaignDraft['condition'], timezone: string): RssDraft {
  return {
    name: '',
    type: 'MARKETING',
    audienceType: 'ALL',
    segmentId: null,
    condition,
    archive: false,
    feedUrl: '',
    frequency: 'weekly',
    time: '09:00',
    timezone,
    weekday: 1,
    template: null,
  };
}

export function rssBodyOf(d: RssDraft): RssCampaignBody {
  return {
    kind: 'RSS',
    name: d.name,
    feedUrl: d.feedUrl.trim(),
    schedule: { frequency: d.frequency, time: d.time, timezone: d.timezone, ...(d.frequency === 'weekly' ? { weekday: d.weekday } : {}) },
    template: d.template ?? '',
    type: d.type,
    audienceType: d.audienceType,
    segmentId: d.audienceType === 'SEGMENT' ? d.segmentId : null,
    audienceCondition: d.audienceType === 'FILTERED' ? (d.condition as CampaignBody['audienceCondition']) : null,
    archive: d.archive,
  };
}

/** "Weekly on Monday at 09:00 (Europe/Paris)". */
export function scheduleText(s: RssSchedule): string {
  const when = s.frequency === 'weekly' ? `Weekly on ${WEEKDAYS[s.weekday ?? 1]}` : 'Daily';
  return `${when} at ${s.time} (${s.timezone})`;
}

/** A run's outcome in words: "2 new items", "Nothing new", "Failed: …". */
export function runOutcome(r: Pick<RssRun, 'status' | 'itemCount' | 'error'> & { finishedAt: string | null }): string {
  if (!r.finishedAt && r.status !== 'FAILED') return 'Running';
  if (r.status === 'FAILED') return `Failed${r.error ? `: ${r.error}` : ''}`;
  if (r.status === 'NOTHING_NEW') return 'Nothing new';
  return `${r.itemCount} new item${r.itemCount === 1 ? '' : 's'}`;
}

/** The browser's time zone, and the zones it knows (the schedule's zone picker). */
export { browserZone } from './dates';
export function zoneNames(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}
