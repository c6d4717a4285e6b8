import type { Knex } from 'knex';
import type { CampaignRow } from './campaigns';
import type { DurationUnit } from '../temporal/contract';

/**
 * A/B subject tests of campaigns (docs/campaigns.md "A/B subject test"). The test group and each
 * test recipient's subject are decided once from the audience snapshot (`campaign_recipients`), not
 * in workflow memory, so every retry, replay and worker restart sees the same split; the variant an
 * email went out with is on its `emails` row, and the winner, once chosen, on the campaign row.
 */

export const AB_TEST_METRICS = ['opens', 'clicks'] as const;
export type AbTestMetric = (typeof AB_TEST_METRICS)[number];

/** As stored in `campaigns.ab_test` (validated by the API's `AbTest` schema, api/schemas/campaigns.ts). */
export interface CampaignAbTest {
  /** Liquid sources, 2 to 5. */
  subjects: string[];
  /** Share of the audience in the test group, 1 to 50. */
  testPercent: number;
  /** The workflow DELAY step's duration shape. */
  winnerAfter: { amount: number; unit: DurationUnit };
  metric: AbTestMetric;
}

/** What a batch needs to know about its page's recipients when the campaign has a test. */
export interface AbTestPage {
  /** The subject index a test recipient gets; null for the rest. */
  variant(contactId: string): number | null;
  /** Held back: a recipient outside the test group while no winner is chosen yet. */
  held(contactId: string): boolean;
}

const NO_TEST: AbTestPage = { variant: () => null, held: () => false };

/**
 * The page's test variants (one statement; none when the campaign has no test). While the winner
 * is not chosen, the rest of the audience is held: the batch leaves them unwritten, and the pass
 * after the choice hands them over with the winning subject.
 */
export async function abTestPage(knex: Knex, c: Pick<CampaignRow, 'id' | 'ab_test' | 'ab_winner'>, contactIds: string[]): Promise<AbTestPage> {
  if (!c.ab_test || contactIds.length === 0) return NO_TEST;
  const rows: { contact_id: string; ab_variant: number }[] = await knex('campaign_recipients')
    .where({ campaign_id: c.id })
    .whereIn('contact_id', contactIds)
    .whereNotNull('ab_variant')
    .select('contact_id', 'ab_variant');
  const variants = new Map(rows.map((r) => [r.contact_id, Number(r.ab_variant)]));
  const decided = c.ab_winner !== null && c.ab_winner !== undefined;
  return { variant: (id) => variants.get(id) ?? null, held: (id) => !decided && !variants.has(id) };
}

/** The subject source a recipient gets: its test variant's, else the winner's, else the campaign's. */
export function subjectFor(c: Pick<CampaignRow, 'subject' | 'ab_test' | 'ab_winner'>, variant: number | null): string {
  const subjects = c.ab_test?.subjects;
  if (!subjects) return c.subject;
  if (variant !== null && subjects[variant] !== undefined) return subjects[variant];
  if (c.ab_winner !== null && c.ab_winner !== undefined && subjects[c.ab_winner] !== undefined) return subjects[c.ab_winner];
  return c.subject;
}

/**
 * Picks the test group from the snapshot: recipients in the order of a hash of campaign and contact
 * id (a fixed shuffle, so the group is no alphabetical slice of the audience), the first
 * round(total × testPercent / 100) of them, subject i to every k-th (the split is even to within
 * one). One statement, skipped once a group exists: a retry or a restarted run finds it as it was.
 * Answers the winner when it is already chosen (a run started again by the sweep).
 */
export async function assignAbTestGroup(knex: Knex, campaignId: string): Promise<{ testGroup: number; winner: number | null } | null> {
  return knex.transaction(async (trx) => {
    const c = await trx<CampaignRow>('campaigns').where({ id: campaignId }).forUpdate().first('ab_test', 'ab_winner');
    if (!c?.ab_test) return null;
    const k = c.ab_test.subjects.length;
    const assigned = await trx('campaign_recipients').where({ campaign_id: campaignId }).whereNotNull('ab_variant').count<{ n: string }[]>('* as n');
    let testGroup = Number(assigned[0].n);
    if (testGroup === 0) {
      const { rowCount } = await trx.raw(
        `WITH ranked AS (
           SELECT contact_id, row_number() OVER (ORDER BY md5(campaign_id::text || ':' || contact_id), contact_id) AS rn, count(*) OVER () AS n
             FROM campaign_recipients WHERE campaign_id = :id)
         UPDATE campaign_recipients r SET ab_variant = (ranked.rn - 1) % :k
           FROM ranked
          WHERE r.campaign_id = :id AND r.contact_id = ranked.contact_id AND ranked.rn <= round(ranked.n * :pct / 100.0)`,
        { id: campaignId, k, pct: c.ab_test.testPercent },
      );
      testGroup = rowCount ?? 0;
    }
    return { testGroup, winner: c.ab_winner ?? null };
  });
}

/**
 * When the winner is chosen: fixed the first time it is asked (the test group is out), `waitMs`
 * after that, so a run started again by the sweep waits out only what is left. With the database's
 * clock, which the caller measures the wait against.
 */
export async function abTestWinnerDue(knex: Knex, campaignId: string, waitMs: number): Promise<{ dueAt: Date; now: Date } | null> {
  const { rows } = await knex.raw(
    `UPDATE campaigns SET ab_winner_due_at = coalesce(ab_winner_due_at, now() + make_interval(secs => ?::double precision / 1000))
      WHERE id = ? AND ab_test IS NOT NULL
     RETURNING ab_winner_due_at AS due_at, now() AS now`,
    [waitMs, campaignId],
  );
  return rows[0] ? { dueAt: rows[0].due_at, now: rows[0].now } : null;
}

export interface VariantCounts {
  sent: number;
  opened: number;
  clicked: number;
}

/** Sent, opened and clicked emails of each test variant (index order; a variant with none is zeros). */
export async function variantCounts(knex: Knex, campaignId: string, variants: number): Promise<VariantCounts[]> {
  const { rows } = await knex.raw(
    `SELECT ab_variant AS v,
            count(*) FILTER (WHERE sent_at IS NOT NULL)::int AS sent,
            count(*) FILTER (WHERE sent_at IS NOT NULL AND opened_at IS NOT NULL)::int AS opened,
            count(*) FILTER (WHERE sent_at IS NOT NULL AND clicked_at IS NOT NULL)::int AS clicked
       FROM emails WHERE campaign_id = ? AND ab_variant IS NOT NULL
      GROUP BY ab_variant`,
    [campaignId],
  );
  const counts = Array.from({ length: variants }, () => ({ sent: 0, opened: 0, clicked: 0 }));
  for (const r of rows) if (counts[r.v]) counts[r.v] = { sent: r.sent, opened: r.opened, clicked: r.clicked };
  return counts;
}

/**
 * The variant with the best rate of the metric (opened or clicked ÷ sent); ties keep the first.
 * Rates are compared as fractions (a/b > c/d ⇔ a·d > c·b), so no rounding decides a tie.
 */
export function bestVariant(counts: VariantCounts[], metric: AbTestMetric): number {
  const hits = (v: VariantCounts) => (metric === 'opens' ? v.opened : v.clicked);
  // A variant that sent nothing has a rate of 0.
  const better = (a: VariantCounts, b: VariantCounts) => a.sent > 0 && (b.sent === 0 ? hits(a) > 0 : hits(a) * b.sent > hits(b) * a.sent);
  let best = 0;
  for (let i = 1; i < counts.length; i++) if (better(counts[i], counts[best])) best = i;
  return best;
}

/**
 * Chooses the winner from the counters and stores it, once: a retried or replayed choice finds the
 * stored one. null when the campaign is gone or has no test.
 */
export async function chooseAbTestWinner(knex: Knex, campaignId: string): Promise<number | null> {
  return knex.transaction(async (trx) => {
    const c = await trx<CampaignRow>('campaigns').where({ id: campaignId }).forUpdate().first('ab_test', 'ab_winner');
    if (!c?.ab_test) return null;
    if (c.ab_winner !== null && c.ab_winner !== undefined) return c.ab_winner;
    const winner = bestVariant(await variantCounts(trx, campaignId, c.ab_test.subjects.length), c.ab_test.metric);
    await trx('campaigns').where({ id: campaignId }).update({ ab_winner: winner, updated_at: trx.fn.now() });
    return winner;
  });
}

export interface VariantStats extends VariantCounts {
  subject: string;
  winner: boolean;
}

/** `variants` of GET /campaigns/:id/stats: the test group's figures per subject; undefined without a test. */
export async function variantStats(knex: Knex, c: Pick<CampaignRow, 'id' | 'ab_test' | 'ab_winner'>): Promise<VariantStats[] | undefined> {
  if (!c.ab_test) return undefined;
  const counts = await variantCounts(knex, c.id, c.ab_test.subjects.length);
  return c.ab_test.subjects.map((subject, i) => ({ subject, ...counts[i], winner: c.ab_winner === i }));
}
