import type { Knex } from 'knex';
import { TrackingPatch, TrackingSettings, trackingSettingsOf } from '../lib/trackingSettings';
import type { EmailStatus } from './emails';
import { prepared } from './prepared';

/** First-party open and click tracking (docs/tracking.md): settings, links, engagements, reports. */

/** SQL turning a JSON array of strings (one text parameter per row) into `emails.links`' text[]; null stays null. */
export const LINKS_OF = (json: string) => `CASE WHEN ${json} IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(${json}::jsonb)) END`;

export async function trackingSettings(db: Knex, projectId: string): Promise<TrackingSettings | undefined> {
  const row: { tracking: unknown } | undefined = await db('projects').where({ id: projectId }).first('tracking');
  return row && trackingSettingsOf(row.tracking);
}

export type TrackingSettingsPatch = Partial<Record<keyof TrackingSettings, TrackingPatch>>;

/** Changes only the types and keys given; the rest keep their value (or default). */
export async function updateTrackingSettings(db: Knex, projectId: string, patch: TrackingSettingsPatch): Promise<TrackingSettings | undefined> {
  let expr = "coalesce(tracking, '{}'::jsonb)";
  const bindings: string[] = [];
  for (const type of ['MARKETING', 'TRANSACTIONAL'] as const) {
    if (!patch[type]) continue;
    expr = `jsonb_set(${expr}, '{${type}}', coalesce(tracking->'${type}', '{}'::jsonb) || ?::jsonb)`;
    bindings.push(JSON.stringify(patch[type]));
  }
  const [row] = await db('projects')
    .where({ id: projectId })
    .update({ tracking: db.raw(expr, bindings), updated_at: db.fn.now() })
    .returning('tracking');
  return row && trackingSettingsOf(row.tracking);
}

/** A tracked link as the click route needs it. */
export interface TrackedLink {
  url: string;
  /** When the email went out (its creation time while it has not): a link's age counts from there. */
  sentAt: Date;
  /** The email's project's VERIFIED tracking domain; null when it has none. */
  ownDomain: string | null;
}

/** Where link `index` of an email leads, how old it is and where it may redirect freely; undefined for no such email or link. */
export async function trackedLink(db: Knex, emailId: string, index: number): Promise<TrackedLink | undefined> {
  // Prepared: the redirect's only statement, planned once per connection (db/prepared.ts). Knex
  // turns `?` into `$n`. Two primary-key reads: the email, and its project's tracking domain.
  const { rows } = await prepared(
    db,
    `SELECT e.links[?::int + 1] AS url, coalesce(e.sent_at, e.created_at) AS sent_at, t.domain AS own_domain
       FROM emails e LEFT JOIN tracking_domains t ON t.project_id = e.project_id AND t.status = 'VERIFIED'
      WHERE e.id = ?::uuid`,
    [index, emailId],
  );
  const row = rows[0];
  return row?.url ? { url: row.url, sentAt: new Date(row.sent_at), ownDomain: row.own_domain ?? null } : undefined;
}

/** One open or click as the tracking routes heard it. */
export interface EngagementHit {
  /** Fresh per hit: the engagement row's and its event's id, so a re-applied batch records nothing twice. */
  id: string;
  emailId: string;
  kind: 'open' | 'click';
  link?: number;
  at: Date;
  /** A HEAD request: a machine checking the link, never a reader. */
  head: boolean;
  /** The user agent is a known prefetcher or link scanner (services/machineAgents.ts). */
  scanner: boolean;
}

export interface EngagementRules {
  /** A scanner's hit this many seconds or less after the hand-over is a machine's. */
  machineWindowSeconds: number;
  /** The statuses an email moves from to OPENED, and to CLICKED (never backwards: services/providerEvents). */
  toOpened: EmailStatus[];
  toClicked: EmailStatus[];
}

export interface RecordedEngagements {
  recorded: number;
  /** The `email.opened`/`email.clicked` events written (human hits of emails with a contact), for routing. */
  events: Array<{ id: string; project_id: string; contact_id: string; name: string }>;
}

export interface LinkReport {
  url: string;
  /** Human clicks, repeats included. */
  clicks: number;
  /** Emails whose reader clicked it at least once. */
  uniqueClicks: number;
}

/** The campaign's links by human clicks, most clicked first. */
export async function campaignLinks(db: Knex, campaignId: string): Promise<LinkReport[]> {
  const { rows } = await db.raw(
    `SELECT e.links[g.link_index + 1] AS url, count(*)::int AS clicks, count(DISTINCT g.email_id)::int AS "uniqueClicks"
       FROM email_engagements g JOIN emails e ON e.id = g.email_id
      WHERE g.campaign_id = ? AND g.kind = 'click' AND NOT g.machine
      GROUP BY 1
      ORDER BY clicks DESC, url`,
    [campaignId],
  );
  return rows;
}

export interface EngagementTotals {
  /** Human opens and clicks, repeats included. */
  opens: number;
  clicks: number;
  /** Machine hits (HEAD requests, prefetchers and scanners right after hand-over): not counted above. */
  machineOpens: number;
  machineClicks: number;
}

/** A campaign's first-party engagement totals. */
export async function campaignEngagementTotals(db: Knex, campaignId: string): Promise<EngagementTotals> {
  const { rows } = await db.raw(
    `SELECT count(*) FILTER (WHERE kind = 'open' AND NOT machine)::int AS opens, count(*) FILTER (WHERE kind = 'click' AND NOT machine)::int AS clicks,
            count(*) FILTER (WHERE kind = 'open' AND machine)::int AS "machineOpens", count(*) FILTER (WHERE kind = 'click' AND machine)::int AS "machineClicks"
       FROM email_engagements WHERE campaign_id = ?`,
    [campaignId],
  );
  return rows[0];
}
