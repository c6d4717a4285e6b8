import type { components, operations } from './schema';
import type { ResponseOf } from './client';
import type { EmailDocument } from './emailEditor';
import i18n from 'i18next';
import { numberWords } from './dates';
import { intlLocale } from '../i18n/locale';
import { countText } from './countWords';

/** The filter tree as the API's schema has it (FilterBuilder's FilterTree is the same shape). */
type FilterTree = components['schemas']['FilterTree'];

/** The campaign composer's and report's own logic (no React), tested in test/unit/webForms.test.ts. */

export type Campaign = ResponseOf<'/campaigns/{id}', 'get'>;
export type CampaignStatus = Campaign['status'];
export type CampaignBody = operations['postCampaigns']['requestBody']['content']['application/json'];
type AbTest = NonNullable<CampaignBody['abTest']>;
export type DurationUnit = AbTest['winnerAfter']['unit'];

export const CAMPAIGN_STATUSES: CampaignStatus[] = ['DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'CANCELLED'];
/** The statuses whose numbers still move: the screens poll while a campaign is in one. */
export const ACTIVE: CampaignStatus[] = ['SCHEDULED', 'SENDING', 'PAUSED'];
/** A sent campaign's opens and clicks keep arriving for about a week: its report keeps polling that long. */
export const REPORT_LIVE_DAYS = 7;

/**
 * How often a campaign's report refreshes: every 2 s while it sends, every 15 s for a week after it
 * finished (engagement still arrives), then not at all.
 */
export function reportPollMs(c: Pick<Campaign, 'status' | 'sentAt'>, now = Date.now()): number | false {
  if (ACTIVE.includes(c.status)) return 2000;
  if (c.status === 'SENT' && c.sentAt && now - Date.parse(c.sentAt) < REPORT_LIVE_DAYS * 86_400_000) return 15_000;
  return false;
}

export const STATUS_COLOR: Record<CampaignStatus, string> = {
  DRAFT: 'gray',
  SCHEDULED: 'blue',
  SENDING: 'yellow',
  PAUSED: 'orange',
  SENT: 'green',
  CANCELLED: 'red',
};
export const DURATION_UNITS: DurationUnit[] = ['minutes', 'hours', 'days', 'weeks'];

/** What the composer edits: inputs as typed (strings), turned into the API's body by `bodyOf`. */
export interface CampaignDraft {
  name: string;
  type: CampaignBody['type'] & string;
  subject: string;
  fromLocal: string;
  fromDomain: string;
  fromName: string;
  replyTo: string;
  /** "HTML" (`body`) or "Blocks" (`document`, compiled by the server when saved). */
  editor: 'html' | 'blocks';
  body: string;
  document: EmailDocument | null;
  text: string;
  audienceType: CampaignBody['audienceType'];
  segmentId: string | null;
  condition: FilterTree;
  sendRate: string;
  /** Listed in the project's public archive once sent. */
  archive: boolean;
  ab: { on: boolean; subjects: string[]; testPercent: string; amount: string; unit: DurationUnit; metric: AbTest['metric'] };
}

/** `newBody`: a new campaign's first HTML, in the person's language (components/emailEditor/starterWords.ts draftBody). */
export function draftOf(c: Campaign | null, emptyTree: FilterTree, newBody = ''): CampaignDraft {
  const [fromLocal = '', fromDomain = ''] = c ? splitAddress(c.from) : [];
  return {
    name: c?.name ?? '',
    type: c?.type ?? 'MARKETING',
    subject: c?.subject ?? '',
    fromLocal,
    fromDomain,
    fromName: c?.fromName ?? '',
    replyTo: c?.replyTo ?? '',
    body: c?.body ?? newBody,
    editor: c?.editor ?? 'html',
    document: c?.document ?? null,
    text: c?.text ?? '',
    audienceType: c?.audienceType ?? 'ALL',
    segmentId: c?.segmentId ?? null,
    condition: (c?.audienceCondition as FilterTree | null) ?? emptyTree,
    sendRate: c?.sendRatePerMinute ? String(c.sendRatePerMinute) : '',
    archive: c?.archive ?? false,
    ab: c?.abTest
      ? {
          on: true,
          subjects: c.abTest.subjects.slice(1),
          testPercent: String(c.abTest.testPercent),
          amount: String(c.abTest.winnerAfter.amount),
          unit: c.abTest.winnerAfter.unit,
          metric: c.abTest.metric,
        }
      : { on: false, subjects: [''], testPercent: '20', amount: '4', unit: 'hours', metric: 'opens' },
  };
}

/** `news@example.com` → `['news', 'example.com']`; the last `@` splits (a quoted local part may hold one). */
export function splitAddress(address: string): [string, string] {
  const at = address.lastIndexOf('@');
  return at < 0 ? [address, ''] : [address.slice(0, at), address.slice(at + 1)];
}

const orNull = (s: string) => (s.trim() ? s : null);
/** A typed number, or the text itself so the API names what is wrong with it. */
const numberOf = (s: string) => (s.trim() && Number.isFinite(Number(s)) ? Number(s) : s.trim() ? (s as unknown as number) : null);

/**
 * The API's body (create and PUT take the same one). An A/B test's first subject is the campaign's
 * own subject; the segment or tree the audience type does not use is sent as null.
 */
export function bodyOf(d: CampaignDraft): CampaignBody {
  return {
    name: d.name,
    type: d.type,
    subject: d.subject,
    from: d.fromDomain ? `${d.fromLocal}@${d.fromDomain}` : d.fromLocal,
    fromName: orNull(d.fromName),
    replyTo: orNull(d.replyTo),
    // A blocks campaign sends its document; the server compiles the body from it.
    ...(d.editor === 'blocks' ? { editor: 'blocks' as const, document: d.document } : { editor: 'html' as const, body: d.body }),
    text: orNull(d.text),
    audienceType: d.audienceType,
    segmentId: d.audienceType === 'SEGMENT' ? d.segmentId : null,
    audienceCondition: d.audienceType === 'FILTERED' ? (d.condition as CampaignBody['audienceCondition']) : null,
    sendRatePerMinute: numberOf(d.sendRate),
    archive: d.archive,
    abTest: d.ab.on
      ? {
          subjects: [d.subject, ...d.ab.subjects],
          testPercent: numberOf(d.ab.testPercent) as number,
          winnerAfter: { amount: numberOf(d.ab.amount) as number, unit: d.ab.unit },
          metric: d.ab.metric,
        }
      : null,
  };
}

/**
 * The UTC instant at which the wall clock of `timeZone` reads `local` (`2026-12-01T09:00`). Found by
 * correcting a first guess with the zone's offset at that guess, twice (once more across a change of
 * offset); a local time skipped by a change (spring forward) lands an hour later, as clocks do.
 */
export function zonedToUtc(local: string, timeZone: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) throw new Error(`not a local date-time: ${local}`);
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0));
  let guess = wall;
  for (let i = 0; i < 2; i++) guess = wall - offsetAt(guess, timeZone);
  return new Date(guess);
}

/** The zone's offset from UTC at `instant`, in milliseconds (Paris in winter: +3,600,000). */
function offsetAt(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(instant / 1000) * 1000;
}

export type Schedule = { kind: 'now' } | { kind: 'at'; local: string; timeZone: string } | { kind: 'local'; local: string };

/** POST /campaigns/:id/send's body: nothing (now), an instant, or a local date-time sent in each recipient's zone. */
export function sendBodyOf(s: Schedule): { scheduledFor?: string; recipientTimezone?: boolean } {
  if (s.kind === 'now') return {};
  if (s.kind === 'local') return { scheduledFor: s.local.length === 16 ? `${s.local}:00` : s.local, recipientTimezone: true };
  return { scheduledFor: zonedToUtc(s.local, s.timeZone).toISOString() };
}

/**
 * Whether `n` takes the singular in the dashboard's language (French says "0 contact" and "1 contact",
 * English "0 contacts"): the catalogues hold a One and an Other sentence, picked here, so every
 * language has the same keys.
 */
export const isOne = (n: number) => new Intl.PluralRules(intlLocale()).select(n) === 'one';

/** "3 contacts" / "1 contact", in the dashboard's language; an estimate (`estimated: true`) as "about 2.4 million contacts". */
export function contactsText(n: number, estimated?: boolean): string {
  if (!estimated) return i18n.getFixedT(null, 'campaigns')(isOne(n) ? 'count.contactOne' : 'count.contactOther', { n: numberWords(n) });
  return i18n.getFixedT(null, 'campaigns')('count.contactOther', { n: countText(n, true) });
}

/** A share of 0 to 1 as a percentage with one decimal ("66.7%", "66,7 %"). */
export const percent = (rate: number) =>
  new Intl.NumberFormat(intlLocale(), { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(rate);
