import type { Knex } from 'knex';
import { TrackingPatch, TrackingSettings, trackingSettingsOf } from '../lib/trackingSettings';
import type { EmailStatus } from './emails';
import { inTransaction } from './transaction';
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

/**
 * Records a batch of hits, set-based: every hit of a tracked email becomes an engagement row (a
 * machine's too, marked); a human one also an `email.opened`/`email.clicked` event with the link's
 * URL. The first human open and click of an email set its `opened_at`/`clicked_at`, move its status
 * forward, and move its campaign's counters once. Hits of emails not tracked for that kind, or of
 * links the email does not have, are dropped.
 *
 * The email rows are locked first, in id order (as every writer locks them before contacts and
 * campaigns), so the statement that follows reads which milestones are still unset knowing no
 * concurrent batch can set them in between.
 */
export async function recordEngagements(db: Knex, hits: EngagementHit[], rules: EngagementRules): Promise<RecordedEngagements> {
  if (!hits.length) return { recorded: 0, events: [] };
  return inTransaction(db, async (trx) => {
    await trx.raw('SELECT 1 FROM emails WHERE id = ANY(?::uuid[]) ORDER BY id FOR UPDATE', [[...new Set(hits.map((h) => h.emailId))]]);
    const { rows } = await trx.raw(
      `WITH hits AS (
         SELECT * FROM unnest(:ids::uuid[], :emailIds::uuid[], :kinds::text[], :links::int[], :ats::timestamptz[], :heads::boolean[], :scanners::boolean[])
                AS h(id, email_id, kind, link_index, at, head, scanner)),
       judged AS (
         SELECT h.id, h.email_id, h.kind, h.link_index, h.at, e.project_id, e.contact_id, e.campaign_id,
                CASE WHEN h.kind = 'click' THEN e.links[h.link_index + 1] END AS url,
                (h.head OR (h.scanner AND (e.sent_at IS NULL OR h.at <= e.sent_at + make_interval(secs => :window)))) AS machine
           FROM hits h JOIN emails e ON e.id = h.email_id
          WHERE (h.kind = 'open' AND e.track_opens) OR (h.kind = 'click' AND e.links[h.link_index + 1] IS NOT NULL)),
       recorded AS (
         INSERT INTO email_engagements (id, email_id, project_id, campaign_id, kind, link_index, machine, at)
         SELECT id, email_id, project_id, campaign_id, kind, link_index, machine, at FROM judged
         ON CONFLICT (id) DO NOTHING
         RETURNING id),
       firsts AS (
         SELECT email_id, min(at) FILTER (WHERE kind = 'open' AND NOT machine) AS first_open, min(at) FILTER (WHERE kind = 'click' AND NOT machine) AS first_click
           FROM judged GROUP BY email_id),
       fresh AS (
         SELECT e.id, e.campaign_id, (e.opened_at IS NULL AND f.first_open IS NOT NULL) AS opens, (e.clicked_at IS NULL AND f.first_click IS NOT NULL) AS clicks
           FROM emails e JOIN firsts f ON f.email_id = e.id),
       moved AS (
         UPDATE emails e
            SET opened_at = coalesce(e.opened_at, f.first_open),
                clicked_at = coalesce(e.clicked_at, f.first_click),
                status = CASE WHEN f.first_click IS NOT NULL AND e.status = ANY(:toClicked::text[]) THEN 'CLICKED'
                              WHEN f.first_open IS NOT NULL AND e.status = ANY(:toOpened::text[]) THEN 'OPENED'
                              ELSE e.status END,
                updated_at = now()
           FROM firsts f
          WHERE e.id = f.email_id AND (f.first_open IS NOT NULL OR f.first_click IS NOT NULL)
          RETURNING e.id),
       counted AS (
         UPDATE campaigns c SET opened_count = c.opened_count + n.opens, clicked_count = c.clicked_count + n.clicks
           FROM (SELECT campaign_id, count(*) FILTER (WHERE opens)::int AS opens, count(*) FILTER (WHERE clicks)::int AS clicks
                   FROM fresh WHERE campaign_id IS NOT NULL GROUP BY campaign_id) n
          WHERE c.id = n.campaign_id AND (n.opens > 0 OR n.clicks > 0)),
       events AS (
         INSERT INTO events (id, project_id, contact_id, name, data)
         SELECT j.id, j.project_id, j.contact_id, CASE j.kind WHEN 'open' THEN 'email.opened' ELSE 'email.clicked' END,
                jsonb_strip_nulls(jsonb_build_object('emailId', j.email_id, 'campaignId', j.campaign_id, 'url', j.url, 'provider', 'first-party'))
           FROM judged j JOIN contacts ct ON ct.id = j.contact_id
          WHERE NOT j.machine
         ON CONFLICT (id) DO NOTHING
         RETURNING id, project_id, contact_id, name)
       SELECT (SELECT count(*)::int FROM recorded) AS recorded, (SELECT count(*) FROM moved) AS moved,
              (SELECT coalesce(json_agg(events), '[]') FROM events) AS events`,
      {
        ids: hits.map((h) => h.id),
        emailIds: hits.map((h) => h.emailId),
        kinds: hits.map((h) => h.kind),
        links: hits.map((h) => (h.kind === 'click' ? (h.link ?? null) : null)),
        ats: hits.map((h) => h.at.toISOString()),
        heads: hits.map((h) => h.head),
        scanners: hits.map((h) => h.scanner),
        window: rules.machineWindowSeconds,
        toOpened: rules.toOpened,
        toClicked: rules.toClicked,
      },
    );
    return { recorded: rows[0].recorded, events: rows[0].events };
  });
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
