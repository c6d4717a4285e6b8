import type { ResponseOf } from './client';
import i18n from 'i18next';
import { type Campaign, type CampaignBody, type CampaignDraft, isOne } from './campaigns';
import { numberWords } from './dates';
import { intlLocale } from '../i18n/locale';

/** The RSS campaign form's and page's own logic (no React): docs/campaigns.md "RSS-to-email". */

export type RssRun = ResponseOf<'/campaigns/{id}/runs', 'get'>['data'][number];
export type RssSchedule = NonNullable<Campaign['schedule']>;

/** Day `i` of the week (0 is Sunday, as the API counts) in the dashboard's language: "Monday", "lundi", "Montag". */
export function weekdayName(i: number): string {
  // 1 January 2023 was a Sunday.
  return new Intl.DateTimeFormat(intlLocale(), { weekday: 'long', timeZone: 'UTC' }).format(Date.UTC(2023, 0, 1 + i));
}

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
  const t = i18n.getFixedT(null, 'campaigns');
  const at = { time: s.time, zone: s.timezone };
  return s.frequency === 'weekly' ? t('rss.weekly', { day: weekdayName(s.weekday ?? 1), ...at }) : t('rss.daily', at);
}

/** A run's outcome in words: "2 new items", "Nothing new", "Failed: …". */
export function runOutcome(r: Pick<RssRun, 'status' | 'itemCount' | 'error'> & { finishedAt: string | null }): string {
  const t = i18n.getFixedT(null, 'campaigns');
  if (!r.finishedAt && r.status !== 'FAILED') return t('rss.running');
  // The error is the server's own words (a feed's HTTP status, a parse failure).
  if (r.status === 'FAILED') return r.error ? t('rss.failedWith', { error: r.error }) : t('rss.failed');
  if (r.status === 'NOTHING_NEW') return t('rss.nothingNew');
  return t(isOne(r.itemCount) ? 'rss.newItemOne' : 'rss.newItemOther', { n: numberWords(r.itemCount) });
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
