import type { Knex } from 'knex';
import { compileFilter, countMatching, FieldTypes } from './filters';

/**
 * Contact counts that stay fast at any size (docs/capacity.md "Estimated counts"): an exact count
 * reads every matching row, about half a second per million contacts here, so in a project of at
 * least `threshold` contacts a count may be estimated instead, and says so (`estimated: true`);
 * below it the count is exact. `threshold` 0 turns estimates off.
 */
export interface Counted {
  count: number;
  estimated: boolean;
}

/** The planner's row estimate for a query, from EXPLAIN (planning only, nothing is read). */
export async function plannedRows(db: Knex, query: Knex.QueryBuilder): Promise<number> {
  const { rows } = await db.raw('EXPLAIN (FORMAT JSON) ?', [query]);
  return Math.round(Number(rows[0]['QUERY PLAN'][0].Plan['Plan Rows']));
}

/**
 * The count of `query` (a builder over contacts that the caller has filtered by project and
 * plain columns, whose estimates come from the column statistics): the planner's estimate when it
 * is at or above `threshold`, else the exact count.
 */
export async function countOrEstimate(db: Knex, query: () => Knex.QueryBuilder, threshold: number): Promise<Counted> {
  if (threshold > 0) {
    const planned = await plannedRows(db, query().select(db.raw('1')));
    if (planned >= threshold) return { count: planned, estimated: true };
  }
  const [row] = await query().count<{ count: string }[]>('* as count');
  return { count: Number(row.count), estimated: false };
}

/**
 * Rows read by a sample (of the whole table: a project's share of it is what its estimate sees). A
 * tenth of it first: a large match (the counts that are slow to count exactly) is already solid in
 * 10,000 rows, and the smaller sample's joins stay small (an event filter's EXISTS over the sampled
 * contacts, not over every rollup row of the name); only a smaller share needs the whole sample.
 */
const SAMPLE_ROWS = 100_000;

/**
 * An estimate is answered only when its standard error is at most this share of it (a 95 % interval
 * of about ±5 %), with the error measured between the sample's blocks, not between its rows: rows
 * written together (an import of one country, one campaign's recipients) sit in the same pages, and a
 * block sample sees them together. Spread evenly, that is about 1,600 matching rows in the sample; a
 * match bunched in a few pages needs many more, and is counted exactly.
 */
export const MAX_RELATIVE_ERROR = 0.025;

/** Below this many sampled matches the between-blocks error is itself too rough to trust. */
const MIN_SAMPLED_MATCHES = 100;

/** Below this many of the project's rows in the sample, the sample says nothing. */
const MIN_SAMPLED_ROWS = 1000;

export interface CountOptions {
  /** COUNT_ESTIMATE_THRESHOLD: projects with fewer contacts (by the planner) are always counted exactly; 0: never estimate. */
  threshold: number;
  /** Rows of the table the larger sample reads, the first a tenth of it (tests set a small one to sample part of a small table). */
  sampleRows?: number;
}

/**
 * How many of the project's contacts a filter tree matches. A project the planner puts at or above
 * the threshold is first sampled: a `TABLESAMPLE SYSTEM` block sample of about `sampleRows` rows of
 * the table gives the matching share of the project's sampled contacts, times the project's planned
 * size. That estimate is the answer when it is solid (`solidShare`); otherwise, and always below the
 * threshold, the count is exact. The planner cannot estimate a compiled tree (its EXISTS over
 * rollups, its jsonb paths), hence the sample.
 */
export async function countMatchingOrEstimate(db: Knex, projectId: string, tree: unknown, fieldTypes: FieldTypes, opts: CountOptions): Promise<Counted> {
  // The sample asks about its own contacts: a windowed count reads theirs, not the project's window.
  const matches = () => compileFilter(tree, { fieldTypes, scope: 'few' });
  return countWhereOrEstimate(db, projectId, matches, () => countMatching(db, projectId, tree, fieldTypes), opts);
}

/** A condition on the contacts row `c` (a compiled filter tree, a campaign's consent rule, or both). */
export interface ContactPredicate {
  sql: string;
  bindings: readonly Knex.Value[];
}

/**
 * countMatchingOrEstimate's rule for any condition on `c`: the sample's estimate in a project at or
 * above the threshold when it is solid, else `exact()`. `matches` is built only when a sample is read.
 */
export async function countWhereOrEstimate(
  db: Knex,
  projectId: string,
  matches: () => ContactPredicate,
  exact: () => Promise<number>,
  opts: CountOptions,
): Promise<Counted> {
  if (opts.threshold > 0) {
    const projectRows = await plannedRows(db, db('contacts').where({ project_id: projectId }).select(db.raw('1')));
    if (projectRows >= opts.threshold) {
      const predicate = matches();
      const rows = opts.sampleRows ?? SAMPLE_ROWS;
      for (const sampleRows of [rows / 10, rows]) {
        const blocks = await sampleBlocks(db, projectId, predicate, sampleRows);
        const share = solidShare(blocks);
        if (share !== null) return { count: Math.round(share * projectRows), estimated: true };
        if (sampleRows < rows && !largerSampleMayBeSolid(blocks, rows / sampleRows)) break;
      }
    }
  }
  return { count: await exact(), estimated: false };
}

/** What a block sample saw of the project: sums over its blocks of rows seen `s` and matches `h`. */
export interface SampleBlocks {
  /** Blocks holding at least one of the project's rows. */
  blocks: number;
  seen: number;
  hits: number;
  hh: number;
  hs: number;
  ss: number;
  /** The share of the table's blocks sampled (0–1). */
  fraction: number;
}

/**
 * The sample's matching share and its standard error relative to it. The share is a ratio estimate
 * over blocks (sum of matches / sum of the project's rows); its variance, with the finite-population
 * correction of the blocks sampled, is (1 - f) · n/(n - 1) · Σ(h - R·s)² / (Σs)². A sample of every
 * block is the exact share (error 0). Infinite when the sample has no match.
 */
function shareAndError(b: SampleBlocks): { share: number; error: number } {
  const share = b.hits / b.seen;
  if (b.hits === 0) return { share, error: Number.POSITIVE_INFINITY };
  if (b.fraction >= 1) return { share, error: 0 };
  const residuals = Math.max(0, b.hh - 2 * share * b.hs + share * share * b.ss);
  const variance = ((1 - b.fraction) * (b.blocks / (b.blocks - 1)) * residuals) / (b.seen * b.seen);
  return { share, error: Math.sqrt(variance) / share };
}

/**
 * The matching share when the sample pins it down, else null: enough of the project's rows and
 * matches, and a standard error at most MAX_RELATIVE_ERROR of the share.
 */
export function solidShare(b: SampleBlocks): number | null {
  if (b.seen < MIN_SAMPLED_ROWS || b.blocks < 2) return null;
  const { share, error } = shareAndError(b);
  if (b.fraction < 1 && b.hits < MIN_SAMPLED_MATCHES) return null;
  return error <= MAX_RELATIVE_ERROR ? share : null;
}

/**
 * Whether a sample `factor` times larger could be solid where this one was not: the error shrinks
 * about as 1/√factor and the matches grow by the factor. A rare match (none or a few in the smaller
 * sample) is then counted exactly without reading the larger sample first.
 */
export function largerSampleMayBeSolid(b: SampleBlocks, factor: number): boolean {
  if (b.fraction >= 1) return false;
  if (b.seen < MIN_SAMPLED_ROWS || b.blocks < 2) return true;
  if (b.hits * factor < MIN_SAMPLED_MATCHES) return false;
  // A margin: the smaller sample's error is itself an estimate.
  return shareAndError(b).error / Math.sqrt(factor) <= 1.5 * MAX_RELATIVE_ERROR;
}

async function sampleBlocks(db: Knex, projectId: string, { sql, bindings }: ContactPredicate, sampleRows: number): Promise<SampleBlocks> {
  const { rows: table } = await db.raw("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'contacts'::regclass");
  const percent = Math.min(100, (100 * sampleRows) / Math.max(1, Number(table[0].n)));
  // The same blocks twice (REPEATABLE, same percent; a block's choice depends only on its number), so
  // the matches are counted with the filter in WHERE, where its EXISTS become joins, and a count
  // asked twice does not wander. The block is the page of the row's ctid.
  const sampled = `FROM contacts c TABLESAMPLE SYSTEM (?) REPEATABLE (0) WHERE c.project_id = ?`;
  const block = '(c.ctid::text::point)[0]';
  const { rows } = await db.raw(
    `WITH seen AS (SELECT ${block} AS b, count(*)::float8 AS s ${sampled} GROUP BY 1),
          hit AS (SELECT ${block} AS b, count(*)::float8 AS h ${sampled} AND (${sql}) GROUP BY 1)
     SELECT count(*)::float8 AS blocks, coalesce(sum(s), 0) AS seen, coalesce(sum(h), 0) AS hits,
            coalesce(sum(h * h), 0) AS hh, coalesce(sum(h * s), 0) AS hs, coalesce(sum(s * s), 0) AS ss
       FROM seen LEFT JOIN hit USING (b)`,
    [percent, projectId, percent, projectId, ...bindings],
  );
  const r = rows[0];
  return {
    blocks: Number(r.blocks),
    seen: Number(r.seen),
    hits: Number(r.hits),
    hh: Number(r.hh),
    hs: Number(r.hs),
    ss: Number(r.ss),
    fraction: percent / 100,
  };
}
