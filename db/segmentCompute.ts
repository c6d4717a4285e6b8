import type { Knex } from 'knex';
import { deterministicBytesSql, uuidOfDigestSql } from '../lib/ids';
import { compileFilter, loadFieldTypes } from './filters';
import type { RoutableEventRow } from './events';
import { matchesPatternsSql } from './webhookEndpoints';
import { saveCount, segmentEventName, storedMemberCount, SegmentRow } from './segments';
import type { ComputeResult } from '../temporal/contract';

/**
 * A tracked segment's compute (POST /segments/:id/compute, the recompute Schedule): its stored
 * membership (`segment_members`) is diffed with the live match of its condition, chunk by chunk of
 * the project's contacts in id order, each chunk one transaction and one statement that moves the
 * members, writes the `segment.<slug>.entry|exit` events, and advances the run row. The events are
 * the contact's record of the change too: the timeline reads a compute's entries and exits from them
 * (db/contactTimeline.ts), so no history row repeats them (a row, two index entries and a foreign key
 * check per member; migration 078). Nothing of a chunk travels through Node but its counts and the events something
 * listens to (docs/capacity.md, "Segment compute").
 */

export interface ComputeRunRow {
  id: string;
  segment_id: string;
  /** RUNNING until counted, then COMPLETED (WALKED: a run before lanes that had walked every contact). */
  status: 'RUNNING' | 'WALKED' | 'COMPLETED';
  /** Runs before lanes (migration 079): their cursor and counters; a lane carries them on. */
  cursor: string | null;
  entered: number;
  exited: number;
  member_count: number | null;
}

/** A range of the run's contacts, walked by its own chunks (migration 079). */
export interface ComputeLaneRow {
  run_id: string;
  lane: number;
  /** Last contact id of the range, inclusive; null: open-ended. */
  hi: string | null;
  /** Last contact id walked (the range's exclusive lower bound before the first chunk). */
  cursor: string;
  status: 'RUNNING' | 'WALKED';
  entered: number;
  exited: number;
}

/**
 * Contacts per chunk. A chunk's statement holds its row locks (the members it inserts or deletes,
 * the run row) until it commits: 50,000 contacts take a second or two on a 2-core machine, short
 * enough for a concurrent compute of the same segment to wait on, large enough that per-statement
 * costs (planning, the filter's per-chunk subqueries, the commit) stay small.
 */
export const DEFAULT_COMPUTE_BATCH = 50_000;

/**
 * Registers a compute run and its lanes, and returns the lanes (idempotent: a retried start finds its
 * rows and resumes them). With `lanes` > 1 and at least a chunk of contacts per lane, the project's
 * contacts are cut by id into that many ranges of about the same size; each lane is walked by its own
 * chunks, side by side with the others (on its own Postgres backend). A run begun before lanes gets
 * one lane carrying its cursor, status and counters.
 */
export async function beginCompute(db: Knex, segmentId: string, runId: string, opts: { lanes?: number; batchSize?: number } = {}): Promise<number[]> {
  await db('segment_computes').insert({ id: runId, segment_id: segmentId }).onConflict('id').ignore();
  return db.transaction(async (trx) => {
    const run = await trx<ComputeRunRow>('segment_computes').where({ id: runId }).forUpdate().first();
    if (!run) return [];
    const existing: number[] = await trx('segment_compute_lanes').where({ run_id: runId }).orderBy('lane').pluck('lane');
    if (existing.length) return existing;
    const fresh = run.status === 'RUNNING' && run.cursor === null && run.entered === 0 && run.exited === 0;
    if (!fresh) {
      const walked = run.status !== 'RUNNING';
      await trx('segment_compute_lanes').insert({
        run_id: runId,
        lane: 0,
        cursor: run.cursor ?? '',
        status: walked ? 'WALKED' : 'RUNNING',
        entered: run.entered,
        exited: run.exited,
      });
      return [0];
    }
    const segment = await trx<SegmentRow>('segments').where({ id: segmentId }).first('project_id');
    const cuts = segment ? await laneCuts(trx, segment.project_id, opts.lanes ?? 1, opts.batchSize ?? DEFAULT_COMPUTE_BATCH) : [];
    // Lane i walks (cuts[i-1], cuts[i]]: '' before the first id, open-ended after the last cut.
    const rows = [...cuts, null].map((hi, lane) => ({ run_id: runId, lane, hi, cursor: lane === 0 ? '' : cuts[lane - 1] }));
    await trx('segment_compute_lanes').insert(rows);
    return rows.map((r) => r.lane);
  });
}

/** The ids that cut the project's contacts into `lanes` ranges of about the same size (none when a lane would have less than a chunk). */
async function laneCuts(trx: Knex, projectId: string, lanes: number, batchSize: number): Promise<string[]> {
  if (lanes < 2) return [];
  const n = Number((await trx('contacts').where({ project_id: projectId }).count<{ n: string }[]>('* as n'))[0].n);
  const k = Math.min(lanes, Math.floor(n / batchSize));
  const cuts: string[] = [];
  for (let i = 1; i < k; i++) {
    const row = await trx('contacts')
      .where({ project_id: projectId })
      .orderBy('id')
      .offset(Math.floor((n * i) / k) - 1)
      .first('id');
    if (row && row.id !== cuts[cuts.length - 1]) cuts.push(row.id);
  }
  return cuts;
}

export interface BatchOutcome {
  /** true once the run has walked past the last contact (or its segment is gone). */
  done: boolean;
  /** The entry/exit events of this chunk that something may act on (db/events eventListenedSql): to hand to routing. */
  events: RoutableEventRow[];
  /** Contacts this chunk read. */
  walked: number;
  /** Members this chunk added and removed. */
  entered: number;
  exited: number;
}

const DONE: BatchOutcome = { done: true, events: [], walked: 0, entered: 0, exited: 0 };

/**
 * The chunk's statement (its positional bindings: see computeBatch).
 *
 * - `batch`/`bound`/`live`: the ids of the next contacts after the cursor, and those of the id
 *   range they span that match. `live` reads the range from `contacts` (its pages are the ones
 *   `batch` just read): matched over a CTE, the planner could not size the chunk, and joined an
 *   event filter by hashing every rollup row of the name, once per chunk (docs/benchmarks.md).
 * - `entered`/`exited`/`tail`: INSERT … ON CONFLICT DO NOTHING and DELETE … RETURNING say exactly
 *   who moved, even when two runs of the same segment overlap; the last (short) chunk is
 *   open-ended, so members above the last contact seen leave too.
 * - `named`: each change's event id digest, from (segment, contact, run, change)
 *   like lib/ids deterministicUuid. No event_keys claim (db/eventKeys.ts): a change is returned by
 *   the one INSERT … ON CONFLICT or DELETE that made it, and the run row's cursor moves in the same
 *   transaction, so no path writes an id twice; the claim cost a row and a foreign key check per member.
 * - `listened`: whether a workflow or a webhook endpoint acts on each of the two names, asked once
 *   per chunk instead of once per row; `waits`: the project's executions waiting for either. An
 *   event nothing acts on is written already routed (as db/emailStates markHandedOver does), so a
 *   million entries nobody listens to cost no routing pass; a wait that commits while the statement
 *   runs is caught after the commit (reopenWaited).
 */
function chunkSql(match: string): string {
  // lib/ids deterministicUuid('segment-membership', segment, contact, run, change): the bytes around the
  // contact are the same for the whole chunk, so they are built once (`k`) and each change hashes once
  // (`named`); the id is cast from the materialized digest.
  const head = (kind: string) => `${deterministicBytesSql([`'${kind}'`, 's.segment_id::text'])} || '\\x00'::bytea`;
  const key = (which: string) => `sha256(k.${which} || convert_to(ch.contact_id, 'UTF8') || k.run_part || convert_to(ch.change, 'UTF8'))`;
  return `WITH s AS (SELECT ?::uuid AS segment_id, ?::text AS segment_name, ?::text AS run_id, ?::text AS entry_name, ?::text AS exit_name),
    k AS (SELECT ${head('segment-membership')} AS event_head,
                 '\\x00'::bytea || convert_to(s.run_id, 'UTF8') || '\\x00'::bytea AS run_part FROM s),
    batch AS MATERIALIZED (SELECT c.id FROM contacts c WHERE c.project_id = ? AND c.id > ? AND (?::text IS NULL OR c.id <= ?) ORDER BY c.id LIMIT ?),
    bound AS (SELECT max(id) AS hi, count(*) < ? AS last, count(*) AS n FROM batch),
    live AS MATERIALIZED (SELECT c.id FROM contacts c WHERE c.project_id = ? AND c.id > ? AND c.id <= (SELECT hi FROM bound) AND (${match})),
    entered AS (INSERT INTO segment_members (segment_id, contact_id)
                SELECT s.segment_id, live.id FROM live, s ON CONFLICT DO NOTHING RETURNING contact_id),
    exited AS (DELETE FROM segment_members m USING s
                WHERE m.segment_id = s.segment_id AND m.contact_id > ? AND m.contact_id <= (SELECT hi FROM bound)
                  AND NOT EXISTS (SELECT 1 FROM live WHERE live.id = m.contact_id)
                RETURNING m.contact_id),
    tail AS (DELETE FROM segment_members m USING s
              WHERE (SELECT last FROM bound) AND m.segment_id = s.segment_id AND m.contact_id > COALESCE((SELECT hi FROM bound), ?)
                AND (?::text IS NULL OR m.contact_id <= ?)
              RETURNING m.contact_id),
    changes AS (SELECT contact_id, 'entry' AS change FROM entered
                UNION ALL SELECT contact_id, 'exit' FROM exited
                UNION ALL SELECT contact_id, 'exit' FROM tail),
    named AS MATERIALIZED (
      SELECT ch.contact_id, ch.change, CASE ch.change WHEN 'entry' THEN s.entry_name ELSE s.exit_name END AS name,
             ${key('event_head')} AS event_digest
        FROM changes ch, s, k),
    listened AS MATERIALIZED (
      SELECT v.name, EXISTS (SELECT 1 FROM workflows w WHERE w.project_id = ? AND w.enabled AND w.trigger_config->>'eventName' = v.name)
                  OR EXISTS (SELECT 1 FROM webhook_endpoints h WHERE h.project_id = ? AND h.enabled AND ${matchesPatternsSql('h.events', 'v.name')}) AS any
        FROM s, LATERAL (VALUES (s.entry_name), (s.exit_name)) v(name)),
    waits AS MATERIALIZED (
      SELECT DISTINCT x.contact_id, x.waiting_for FROM workflow_executions x, s
       WHERE x.project_id = ? AND x.status = 'WAITING' AND x.waiting_for IN (s.entry_name, s.exit_name)),
    written AS (
      INSERT INTO events (id, project_id, contact_id, name, data, routed_at)
      SELECT ${uuidOfDigestSql('n.event_digest')}, ?, n.contact_id, n.name, jsonb_build_object('segmentId', s.segment_id, 'segmentName', s.segment_name, 'computeId', s.run_id),
             CASE WHEN l.any OR EXISTS (SELECT 1 FROM waits w WHERE w.contact_id = n.contact_id AND w.waiting_for = n.name) THEN NULL ELSE now() END
        FROM named n JOIN listened l ON l.name = n.name, s
      RETURNING id, contact_id, name, routed_at IS NULL AS open),
    counts AS (SELECT count(*) FILTER (WHERE change = 'entry') AS entered, count(*) FILTER (WHERE change = 'exit') AS exited FROM named),
    advance AS (
      UPDATE segment_compute_lanes r SET cursor = COALESCE(b.hi, r.cursor),
                                         status = CASE WHEN b.last THEN 'WALKED' ELSE 'RUNNING' END,
                                         entered = r.entered + k.entered, exited = r.exited + k.exited
        FROM bound b, counts k, s WHERE r.run_id = s.run_id AND r.lane = ?)
  SELECT b.last, b.n::int AS walked, k.entered::int, k.exited::int, now() AS at,
         EXISTS (SELECT 1 FROM written WHERE NOT open) AS settled,
         (SELECT coalesce(json_agg(json_build_object('id', id, 'contact_id', contact_id, 'name', name)), '[]') FROM written WHERE open) AS events
    FROM bound b, counts k`;
}

interface ChunkRow {
  last: boolean;
  walked: number;
  entered: number;
  exited: number;
  at: Date;
  settled: boolean;
  events: Array<Omit<RoutableEventRow, 'project_id'>>;
}

/**
 * One chunk of a lane of a compute run, in its own transaction (see chunkSql). The lane row, locked
 * first, makes a retried chunk a no-op and keeps two workers from running the same lane's chunk
 * twice; other lanes run alongside. After the commit, events written routed whose contact began
 * waiting for them meanwhile are reopened and returned with the rest.
 */
export async function computeBatch(db: Knex, runId: string, batchSize = DEFAULT_COMPUTE_BATCH, lane = 0): Promise<BatchOutcome> {
  const chunk = await runChunk(db, runId, batchSize, lane);
  if (!chunk) return DONE;
  const { segment, row } = chunk;
  const events = row.events.map((e) => ({ ...e, project_id: segment.project_id }));
  if (row.settled) events.push(...(await reopenWaited(db, segment, runId, row.at)));
  return { done: row.last, walked: row.walked, entered: row.entered, exited: row.exited, events };
}

async function runChunk(db: Knex, runId: string, batchSize: number, laneNo: number): Promise<{ segment: SegmentRow; row: ChunkRow } | null> {
  return db.transaction(async (trx) => {
    const lane = await trx<ComputeLaneRow>('segment_compute_lanes').where({ run_id: runId, lane: laneNo }).forUpdate().first();
    if (lane?.status !== 'RUNNING') return null;
    const run = await trx<ComputeRunRow>('segment_computes').where({ id: runId }).first();
    if (run?.status !== 'RUNNING') return null;
    const segment = await trx<SegmentRow>('segments').where({ id: run.segment_id }).first();
    if (!segment) return null;
    const { sql, bindings } = await chunkStatement(trx, lane, segment, batchSize);
    const { rows } = await trx.raw<{ rows: ChunkRow[] }>(sql, bindings);
    return { segment, row: rows[0] };
  });
}

/** The statement of a run's next chunk and its bindings (exported for bench/segmentRefresh.ts's EXPLAIN). */
export async function chunkStatement(trx: Knex, lane: ComputeLaneRow, segment: SegmentRow, batchSize: number) {
  const lo = lane.cursor;
  const hi = lane.hi;
  const project = segment.project_id;
  // A chunk asks about its own contacts only: a windowed count reads their events, not the project's window.
  const match = compileFilter(segment.condition, { fieldTypes: await loadFieldTypes(trx, project), scope: 'few' });
  // In the order of chunkSql's placeholders: s, batch, bound, live (and the filter's), exited, tail,
  // listened (2), waits, written, advance.
  const bindings = [
    ...[segment.id, segment.name, lane.run_id, segmentEventName(segment.slug, 'entry'), segmentEventName(segment.slug, 'exit')],
    ...[project, lo, hi, hi, batchSize],
    batchSize,
    ...[project, lo, ...match.bindings],
    lo,
    ...[lo, hi, hi],
    ...[project, project, project, project],
    lane.lane,
  ];
  return { sql: chunkSql(match.sql), bindings };
}

/**
 * After a chunk's commit: of its events written already routed (created at its transaction's
 * `at`, under its run), those whose contact has an execution waiting for them now (a wait that
 * committed while the chunk's statement ran, which that statement did not see) are marked
 * unrouted and returned, to hand to routing. It starts from the project's waits for the two names,
 * so a project without such waits pays one index probe, and `at` keeps it to one partition.
 */
async function reopenWaited(db: Knex, segment: SegmentRow, runId: string, at: Date): Promise<RoutableEventRow[]> {
  const { rows } = await db.raw(
    `UPDATE events e SET routed_at = NULL
       FROM workflow_executions x
      WHERE x.project_id = ? AND x.status = 'WAITING' AND x.waiting_for IN (?, ?)
        AND e.contact_id = x.contact_id AND e.name = x.waiting_for AND e.created_at = ?
        AND e.data->>'computeId' = ? AND e.routed_at IS NOT NULL
      RETURNING e.id, e.project_id, e.contact_id, e.name`,
    [segment.project_id, segmentEventName(segment.slug, 'entry'), segmentEventName(segment.slug, 'exit'), at, runId],
  );
  return rows;
}

/** Closes a run once its lanes are walked: caches the stored membership as `memberCount` and returns the lanes' totals (idempotent). */
export async function finishCompute(db: Knex, runId: string): Promise<ComputeResult> {
  return db.transaction(async (trx) => {
    const run = await trx<ComputeRunRow>('segment_computes').where({ id: runId }).forUpdate().first();
    if (!run) return { memberCount: 0, entered: 0, exited: 0 };
    if (run.status === 'COMPLETED') return { memberCount: run.member_count ?? 0, entered: run.entered, exited: run.exited };
    const [totals] = await trx('segment_compute_lanes')
      .where({ run_id: runId })
      .select(trx.raw('count(*)::int AS lanes, coalesce(sum(entered), 0)::int AS entered, coalesce(sum(exited), 0)::int AS exited'));
    const { entered, exited } = totals.lanes ? totals : run;
    const memberCount = await storedMemberCount(trx, run.segment_id);
    await saveCount(trx, run.segment_id, memberCount);
    await trx('segment_computes').where({ id: runId }).update({ status: 'COMPLETED', member_count: memberCount, entered, exited, finished_at: trx.fn.now() });
    return { memberCount, entered, exited };
  });
}
