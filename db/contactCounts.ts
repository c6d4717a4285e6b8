import type { Knex } from 'knex';
import { compileFilter, countMatching, FieldTypes } from './filters';

/**
 * Contact counts that stay fast at any size (docs/capacity.md "Estimated counts"): an exact count
 * reads every matching row, about half a second per million contacts here, so a count the planner
 * puts at or above `threshold` rows is estimated instead and says so (`estimated: true`); below
 * it the count is exact. `threshold` 0 turns estimates off.
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

/** Rows read by a sample: enough that a share of a tenth is known to about ±1 %. */
const SAMPLE_ROWS = 100_000;

/**
 * How many of the project's contacts a filter tree matches. The planner cannot estimate a compiled
 * tree (its EXISTS over rollups, its jsonb paths), so above the threshold the share comes from a
 * block sample of the table instead: the matching share of the project's sampled contacts times
 * the project's planned size. A count the sample puts below the threshold is counted exactly.
 */
export async function countMatchingOrEstimate(db: Knex, projectId: string, tree: unknown, fieldTypes: FieldTypes, threshold: number): Promise<Counted> {
  if (threshold > 0) {
    const projectRows = await plannedRows(db, db('contacts').where({ project_id: projectId }).select(db.raw('1')));
    if (projectRows >= threshold) {
      const sampled = await sampledCount(db, projectId, tree, fieldTypes, projectRows);
      if (sampled !== null && sampled >= threshold) return { count: sampled, estimated: true };
    }
  }
  return { count: await countMatching(db, projectId, tree, fieldTypes), estimated: false };
}

async function sampledCount(db: Knex, projectId: string, tree: unknown, fieldTypes: FieldTypes, projectRows: number): Promise<number | null> {
  const { sql, bindings } = compileFilter(tree, { fieldTypes });
  const { rows: table } = await db.raw("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'contacts'::regclass");
  const percent = Math.min(100, (100 * SAMPLE_ROWS) / Math.max(1, Number(table[0].n)));
  // REPEATABLE: the same blocks each time, so a count asked twice does not wander.
  const { rows } = await db.raw(
    `SELECT count(*)::float8 AS seen, (count(*) FILTER (WHERE (${sql})))::float8 AS hit
       FROM contacts c TABLESAMPLE SYSTEM (?) REPEATABLE (0) WHERE c.project_id = ?`,
    [...bindings, percent, projectId],
  );
  const { seen, hit } = rows[0];
  // Too few of the project's rows in the sample to say anything: count exactly.
  if (seen < 1000) return null;
  return Math.round((hit / seen) * projectRows);
}
