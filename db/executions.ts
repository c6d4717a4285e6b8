import type { Knex } from 'knex';
import { pageOf } from './pages';
import { containsPattern } from './search';
import { ACTIVE_STATUSES, Graph, GraphCache, TRIGGER, WorkflowRow, loadGraph } from './workflows';
import type { BoundaryUpdate, EventPayload, ExecutionEnd, ProgressUpdate } from '../temporal/contract';

/**
 * Workflow executions as Postgres mirrors them (the source of truth the API lists). Every writer
 * here is idempotent: the workflow's activities may run any of them twice.
 */

export const EXECUTION_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export interface ExecutionRow {
  id: string;
  project_id: string;
  workflow_id: string;
  contact_id: string;
  status: ExecutionStatus;
  current_step_id: string | null;
  context: Record<string, unknown>;
  error: string | null;
  trigger_event_id: string | null;
  waiting_for: string | null;
  waiting_seq: number | null;
  waiting_since: Date | null;
  wake_at: Date | null;
  waiting_reason?: string | null;
  /** The workflow version it runs (db/workflowVersions.ts); null: a draft's manual start, or started before versions. */
  workflow_version?: number | null;
  /** Set on a test run (POST /workflows/:id/test); null on real executions. */
  test?: TestRun | null;
  started_at: Date;
  finished_at: Date | null;
  updated_at: Date;
}

export interface ExecutionStepRow {
  execution_id: string;
  seq: number;
  step_id: string;
  type: string;
  status: string;
  output: unknown;
  error: string | null;
  /** The branch the step was left by (migration 055); null when it ended, failed or was cancelled, or before. */
  branch?: string | null;
  started_at: Date;
  finished_at: Date | null;
}

/**
 * A test run's settings, kept in the row (never in the Temporal history: `to` is a person's
 * address): its emails go to `to`, its webhooks are called only with `callWebhooks`.
 */
export interface TestRun {
  to: string;
  callWebhooks: boolean;
  /** Who started it (the signed-in user), when a person did. */
  userId: string | null;
}

// ───────────────────────────── reads ─────────────────────────────

export interface ListExecutionsInput {
  page: number;
  pageSize: number;
  status?: ExecutionStatus;
  contactId?: string;
  /** Test runs are left out unless asked for: true lists only them. */
  test?: boolean;
  /** Part of the contact's email address. */
  search?: string;
}

/** An execution with its contact's address, as lists show it. */
export type ListedExecution = ExecutionRow & { contact_email: string | null };

export async function listExecutions(db: Knex, workflowId: string, input: ListExecutionsInput) {
  const filtered = () => {
    const q = db<ExecutionRow>('workflow_executions').where({ workflow_id: workflowId });
    if (input.status) q.andWhere({ status: input.status });
    if (input.contactId) q.andWhere({ contact_id: input.contactId });
    if (input.test) q.whereNotNull('test');
    else q.whereNull('test');
    if (input.search) {
      // The workflow's project's contacts only: executions and their contacts share it.
      const contacts = db('contacts').where('email', 'ilike', containsPattern(input.search)).select('id');
      q.whereIn('contact_id', contacts.whereIn('project_id', db('workflows').where({ id: workflowId }).select('project_id')));
    }
    return q;
  };
  const page = await pageOf<ExecutionRow>(filtered, { page: input.page, pageSize: input.pageSize, orderSql: 'started_at', dir: 'desc' });
  return { ...page, rows: await withContactEmails(db, page.rows) };
}

/** The rows with their contacts' addresses (one read for the page). */
export async function withContactEmails(db: Knex, rows: ExecutionRow[]): Promise<ListedExecution[]> {
  const ids = [...new Set(rows.map((r) => r.contact_id))];
  const contacts: Array<{ id: string; email: string }> = ids.length ? await db('contacts').whereIn('id', ids).select('id', 'email') : [];
  const emails = new Map(contacts.map((c) => [c.id, c.email]));
  return rows.map((r) => ({ ...r, contact_email: emails.get(r.contact_id) ?? null }));
}

export async function findExecution(db: Knex, workflowId: string, id: string): Promise<ExecutionRow | undefined> {
  return db<ExecutionRow>('workflow_executions').where({ workflow_id: workflowId, id }).first();
}

export async function executionSteps(db: Knex, executionId: string): Promise<ExecutionStepRow[]> {
  return db<ExecutionStepRow>('workflow_execution_steps').where({ execution_id: executionId }).orderBy('seq');
}

/** The step an execution's history ran at `seq`. */
export async function stepAt(db: Knex, executionId: string, seq: number): Promise<string | undefined> {
  const row = await db('workflow_execution_steps').where({ execution_id: executionId, seq }).first('step_id');
  return row?.step_id;
}

export async function activeExecutionIds(db: Knex, workflowId: string): Promise<string[]> {
  const rows = await db('workflow_executions').where({ workflow_id: workflowId }).whereIn('status', ACTIVE_STATUSES).select('id');
  return rows.map((r: { id: string }) => r.id);
}

// ───────────────────────────── starting ─────────────────────────────

export interface NewExecution {
  /** Deterministic for triggered starts (event + workflow), so a retried router creates nothing new. */
  id: string;
  projectId: string;
  workflowId: string;
  contactId: string;
  context: Record<string, unknown>;
  triggerEvent?: { id: string; name: string };
  /**
   * `trigger`: the workflow must be enabled with this trigger, and allowReentry applies.
   * `manual`: POST /workflows/:id/executions; only the one-active-execution rule applies.
   * `test`: POST /workflows/:id/test; no rule applies, and the contact is not recorded as entered.
   */
  mode: 'trigger' | 'manual' | 'test';
  /** With mode `test`: the run's settings. */
  test?: TestRun;
}

export type CreatedExecution =
  | { execution: ExecutionRow; workflow: WorkflowRow; graph: Graph /** false when an earlier call created the row */; fresh: boolean }
  | { skipped: 'not-triggered' | 'already-entered' | 'already-active' };

const WORKFLOW_COLUMNS = [
  'id',
  'project_id',
  'name',
  'description',
  'enabled',
  'allow_reentry',
  'trigger_type',
  'trigger_config',
  'created_at',
  'updated_at',
] as const;

/**
 * Creates the execution row, or says why none may start. Races are decided by constraints, not by
 * reads: `workflow_entries` (one row per workflow and contact, ever) for non-re-entrant workflows,
 * the partial unique index on active executions for re-entrant ones. The workflow row is share-locked,
 * so a trigger change, a disable or a delete waits for the start and sees its execution.
 *
 * The checks and the inserts are one statement (the lock, the existing row, the trigger rule, the
 * entry, the row and its trigger step): this runs once per triggered contact. The graph is read in
 * the same transaction, under the same lock, so it is the version of the row we hold.
 */
export async function createExecution(db: Knex, input: NewExecution, graphs?: GraphCache): Promise<CreatedExecution> {
  const graphOf = (trx: Knex.Transaction, workflow: WorkflowRow) => (graphs ? graphs.graph(trx, workflow) : loadGraph(trx, workflow.id));
  const manual = input.mode !== 'trigger';
  const test = input.mode === 'test' ? (input.test ?? null) : null;
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(
      `WITH wf AS (
         SELECT ${WORKFLOW_COLUMNS.join(', ')} FROM workflows WHERE id = ? AND project_id = ? FOR SHARE
       ), existing AS (
         SELECT x.* FROM workflow_executions x WHERE x.id = ? AND EXISTS (SELECT 1 FROM wf)
       ), go AS (
         SELECT wf.id, wf.allow_reentry FROM wf
         WHERE NOT EXISTS (SELECT 1 FROM existing) AND (?::boolean OR (wf.enabled AND wf.trigger_config->>'eventName' = ?))
       ), entered AS (
         INSERT INTO workflow_entries (workflow_id, contact_id, first_execution_id)
         SELECT id, ?, ? FROM go WHERE NOT ?::boolean
         ON CONFLICT (workflow_id, contact_id) DO NOTHING
         RETURNING workflow_id
       ), ex AS (
         INSERT INTO workflow_executions (id, project_id, workflow_id, contact_id, status, context, trigger_event_id, test, current_step_id, workflow_version)
         SELECT ?, ?, go.id, ?, 'RUNNING', ?::jsonb, ?, ?::jsonb,
                -- One TRIGGER per workflow (unique index workflow_steps_one_trigger).
                (SELECT s.id FROM workflow_steps s WHERE s.workflow_id = go.id AND s.type = ?),
                -- The newest version is the graph this transaction reads (db/workflowVersions.ts); none: a
                -- disabled workflow's manual start, which runs its draft.
                (SELECT max(v.number) FROM workflow_versions v JOIN wf ON wf.id = v.workflow_id WHERE wf.enabled)
         FROM go WHERE ?::boolean OR go.allow_reentry OR EXISTS (SELECT 1 FROM entered)
         ON CONFLICT DO NOTHING
         RETURNING *
       ), step AS (
         -- The trigger step is recorded with the row (its engine then skips that write: ExecutionInput.startRecorded).
         INSERT INTO workflow_execution_steps (execution_id, seq, step_id, type, status)
         SELECT id, 0, current_step_id, ?, 'RUNNING' FROM ex WHERE current_step_id IS NOT NULL
       )
       SELECT ${WORKFLOW_COLUMNS.map((c) => `w.${c} AS wf_${c}`).join(', ')},
              EXISTS (SELECT 1 FROM go) AS triggered, EXISTS (SELECT 1 FROM entered) AS entered, e.*
       FROM wf w
       LEFT JOIN (
         SELECT 'existing' AS kind, x.* FROM existing x
         UNION ALL SELECT 'created', c.* FROM ex c
       ) e ON true`,
      [
        input.workflowId,
        input.projectId,
        input.id,
        manual,
        input.triggerEvent?.name ?? null,
        input.contactId,
        input.id,
        test !== null,
        input.id,
        input.projectId,
        input.contactId,
        JSON.stringify(input.context),
        input.triggerEvent?.id ?? null,
        test === null ? null : JSON.stringify(test),
        TRIGGER,
        manual,
        TRIGGER,
      ],
    );
    if (!rows[0]) return { skipped: 'not-triggered' as const };
    // One row: the workflow's columns (wf_…), two flags, and the execution's columns when there is one.
    const { kind, triggered, entered, ...columns } = rows[0];
    const workflow = Object.fromEntries(WORKFLOW_COLUMNS.map((c) => [c, columns[`wf_${c}`]])) as unknown as WorkflowRow;
    const execution = Object.fromEntries(Object.entries(columns).filter(([c]) => !c.startsWith('wf_'))) as unknown as ExecutionRow;
    if (kind === 'existing') return { execution, workflow, graph: await graphOf(trx, workflow), fresh: false };
    if (!triggered) return { skipped: 'not-triggered' as const };
    if (!kind) return { skipped: !manual && !workflow.allow_reentry && !entered ? ('already-entered' as const) : ('already-active' as const) };
    return { execution, workflow, graph: await graphOf(trx, workflow), fresh: true };
  });
}

// ───────────────────────────── mirroring ─────────────────────────────

/**
 * Applies one ProgressUpdate of the workflowExecution engine. Answers whether the execution is still
 * active here: one cancelled (or deleted with its workflow) while its engine was between two steps
 * must not go on.
 */
export async function recordProgress(db: Knex, u: ProgressUpdate): Promise<{ active: boolean; ended: boolean; stepStarted: boolean }> {
  const row = await progressStatement(db, u);
  // `ended` and `stepStarted` are true only for the call that made the change, not for a retry of it.
  return { active: row.moved && !u.end, ended: row.moved && !!u.end, stepStarted: row.step_started };
}

/** The wait an execution enters (markWaiting): the step's `seq`, and what ends the wait. */
export interface WaitFields {
  seq: number;
  /** Set by WAIT_FOR_EVENT; a DELAY waits on its timer only. */
  eventName?: string;
  /** The timer (DELAY, or a WAIT_FOR_EVENT timeout) in milliseconds from now, for `wake_at`. */
  wakeInMs?: number;
  /** Why a timer waits, for people (`quiet hours until …`); shown as the execution's `waitingReason`. */
  reason?: string;
}

interface ProgressRow {
  moved: boolean;
  step_started: boolean;
  contact_id: string | null;
  waiting_since: Date | null;
  started_at: Date | null;
  trigger_event_id: string | null;
}

/**
 * One statement, not a transaction of five: this runs at every step boundary of every execution.
 * Its parts see one snapshot; the step rows are written whatever the status (a cancellation is
 * recorded on an execution already marked CANCELLED), the execution row only while active. With
 * `wait`, the execution row ends WAITING instead of RUNNING: a step boundary and the wait that
 * follows it are one write (markWaiting).
 */
async function progressStatement(db: Knex, u: ProgressUpdate, wait?: WaitFields): Promise<ProgressRow> {
  const parts: string[] = ['cur AS (SELECT id FROM workflow_executions WHERE id = ?)'];
  const bindings: Knex.RawBinding[] = [u.executionId];
  if (u.finished) {
    parts.push(`fin AS (
      UPDATE workflow_execution_steps SET status = ?, output = COALESCE(?::jsonb, output), error = ?, branch = ?, finished_at = now()
      WHERE execution_id = ? AND seq = ? AND finished_at IS NULL RETURNING 1)`);
    bindings.push(
      u.finished.status,
      u.finished.output === undefined ? null : JSON.stringify(u.finished.output),
      u.finished.error ?? null,
      u.finished.branch ?? null,
      u.executionId,
      u.finished.seq,
    );
  }
  if (u.started) {
    parts.push(`ins AS (
      INSERT INTO workflow_execution_steps (execution_id, seq, step_id, type, status)
      SELECT id, ?, ?, ?, 'RUNNING' FROM cur
      ON CONFLICT (execution_id, seq) DO NOTHING RETURNING 1)`);
    bindings.push(u.started.seq, u.started.stepId, u.started.type);
  }
  const sets = ['updated_at = now()'];
  const setBindings: Knex.RawBinding[] = [];
  if (u.context) {
    sets.push('context = ?::jsonb');
    setBindings.push(JSON.stringify(u.context));
  } else if (u.contextPatch) {
    sets.push(`context = COALESCE(context, '{}'::jsonb) || ?::jsonb`);
    setBindings.push(JSON.stringify(u.contextPatch));
  }
  if (u.started) {
    sets.push(`current_step_id = ?`);
    setBindings.push(u.started.stepId);
  }
  if (wait) {
    sets.push(
      `status = 'WAITING'`,
      'waiting_for = ?',
      'waiting_reason = ?',
      // A retried call keeps the first start of this wait, so it cannot skip an event in between.
      'waiting_since = CASE WHEN waiting_seq = ? AND waiting_since IS NOT NULL THEN waiting_since ELSE now() END',
      'waiting_seq = ?',
      `wake_at = CASE WHEN ?::bigint IS NULL THEN NULL ELSE now() + ?::bigint * interval '1 millisecond' END`,
    );
    const wakeIn = wait.wakeInMs === undefined ? null : Math.round(wait.wakeInMs);
    setBindings.push(wait.eventName ?? null, wait.reason ?? null, wait.seq, wait.seq, wakeIn, wakeIn);
  } else {
    sets.push('waiting_for = NULL', 'waiting_seq = NULL', 'waiting_since = NULL', 'wake_at = NULL', 'waiting_reason = NULL');
    if (u.started) sets.push(`status = 'RUNNING'`);
  }
  if (u.end) {
    sets.push('status = ?', 'error = ?', 'finished_at = now()');
    setBindings.push(u.end.status, u.end.error ?? null);
  }
  parts.push(
    `moved AS (UPDATE workflow_executions SET ${sets.join(', ')} WHERE id = ? AND status IN (${ACTIVE_STATUSES.map((x) => `'${x}'`).join(', ')})
      RETURNING contact_id, waiting_since, started_at, trigger_event_id)`,
  );
  bindings.push(...setBindings, u.executionId);
  const stepStarted = u.started ? 'EXISTS (SELECT 1 FROM ins)' : 'false';
  const { rows } = await db.raw(
    `WITH ${parts.join(',\n')}
     SELECT EXISTS (SELECT 1 FROM moved) AS moved, ${stepStarted} AS step_started, m.*
     FROM (SELECT 1) one LEFT JOIN moved m ON true`,
    bindings,
  );
  return rows[0] as ProgressRow;
}

/**
 * The stored context of an execution: what step activities render with. It stays in Postgres, where
 * erasure reaches it; workflows carry the execution id only.
 */
export async function executionContext(db: Knex, executionId: string): Promise<Record<string, unknown>> {
  const row = await db('workflow_executions').where({ id: executionId }).first('context');
  return row?.context ?? {};
}

/** The test settings of an execution: null for a real one (or one that no longer exists). */
export async function executionTestRun(db: Knex, executionId: string): Promise<TestRun | null> {
  const row = await db('workflow_executions').where({ id: executionId }).first('test');
  return row?.test ?? null;
}

/**
 * A step's result written by its own activity (WEBHOOK: the answer may echo personal data, so it goes
 * to the context and the step row here instead of through the workflow). The step's later
 * `finished` write without output keeps it.
 */
export async function recordStepResult(
  db: Knex,
  executionId: string,
  seq: number,
  result: { contextPatch: Record<string, unknown>; output: unknown },
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('workflow_executions')
      .where({ id: executionId })
      .update({ context: trx.raw(`COALESCE(context, '{}'::jsonb) || ?::jsonb`, [JSON.stringify(result.contextPatch)]), updated_at: trx.fn.now() });
    await trx('workflow_execution_steps')
      .where({ execution_id: executionId, seq })
      .update({ output: JSON.stringify(result.output) });
  });
}

export interface WaitingInput extends WaitFields {
  executionId: string;
}

/** What markWaiting answers: whether the execution is still active, and an event that came early. */
export interface Waiting {
  active: boolean;
  /** The step `boundary` started a row (false on a retry), for the step counter. */
  stepStarted: boolean;
  early: EventPayload | null;
}

/**
 * Marks the execution WAITING, after writing the step `boundary` that leads to the wait when one is
 * given (the engine folds the two: one statement and one local activity fewer per waiting step).
 * For an event wait, it then returns the first event of that name that was still being routed while
 * we got here (or came after): routeEvent signals only executions it sees WAITING, so this read —
 * after our commit — is what closes the gap between the two.
 */
export async function markWaiting(db: Knex, input: WaitingInput, boundary: BoundaryUpdate = {}): Promise<Waiting> {
  const { executionId, ...wait } = input;
  const row = await progressStatement(db, { executionId, ...boundary }, wait);
  if (!row.moved || !input.eventName) return { active: row.moved, stepStarted: row.step_started, early: null };
  const event = await db('events')
    .where({ contact_id: row.contact_id!, name: input.eventName })
    .andWhere((q) => q.whereNull('routed_at').orWhere('routed_at', '>=', row.waiting_since!))
    .andWhere('created_at', '>=', row.started_at!)
    .modify((q) => {
      if (row.trigger_event_id) q.whereNot({ id: row.trigger_event_id });
    })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .first('id', 'name', 'data', 'created_at');
  return { active: true, stepStarted: row.step_started, early: event ? toPayload(event) : null };
}

export const toPayload = (e: { id: string; name: string; data: Record<string, unknown>; created_at: Date }): EventPayload => ({
  id: e.id,
  name: e.name,
  data: e.data ?? {},
  createdAt: new Date(e.created_at).toISOString(),
});

export interface WaitingExecution {
  id: string;
  contact_id: string;
  waiting_for: string;
  trigger_event_id: string | null;
}

/** Executions of these contacts waiting for an event of one of these names. */
export async function waitingExecutionsOf(db: Knex, contactIds: string[], names: string[]): Promise<WaitingExecution[]> {
  if (!contactIds.length) return [];
  return db('workflow_executions')
    .where({ status: 'WAITING' })
    .whereIn('contact_id', [...new Set(contactIds)])
    .whereIn('waiting_for', [...new Set(names)])
    .select('id', 'contact_id', 'waiting_for', 'trigger_event_id');
}

/**
 * Ends active executions as CANCELLED (the workflow records the same when its cancellation lands).
 * `moved`: the rows this statement ended; `cancelled`: those plus the ones among `ids` already
 * CANCELLED when it ran (a workflow whose cancellation landed first records it itself).
 */
export async function markCancelled(db: Knex, workflowId: string, ids: string[]): Promise<{ moved: number; cancelled: number }> {
  if (!ids.length) return { moved: 0, cancelled: 0 };
  const CANCELLED: ExecutionEnd = 'CANCELLED';
  // The count's subquery reads the statement's snapshot: the rows `moved` ends are not in it yet.
  const { rows } = await db.raw(
    `WITH moved AS (
       UPDATE workflow_executions
          SET status = ?, finished_at = now(), updated_at = now(),
              waiting_for = NULL, waiting_reason = NULL, waiting_seq = NULL, waiting_since = NULL, wake_at = NULL
        WHERE workflow_id = ? AND id = ANY(?::uuid[]) AND status = ANY(?::text[])
        RETURNING 1)
     SELECT (SELECT count(*) FROM moved)::int AS moved,
            (SELECT count(*) FROM workflow_executions WHERE workflow_id = ? AND id = ANY(?::uuid[]) AND status = ?)::int AS already`,
    [CANCELLED, workflowId, ids, [...ACTIVE_STATUSES], workflowId, ids, CANCELLED],
  );
  return { moved: rows[0].moved, cancelled: rows[0].moved + rows[0].already };
}

/**
 * Runs a step's side effect once per (execution, seq): the step's history row, locked for the
 * transaction, records the outcome with the change, so a retried activity gets the recorded
 * outcome instead of applying again.
 */
export async function applyStepOnce<T extends object>(db: Knex, executionId: string, seq: number, apply: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    const where = { execution_id: executionId, seq };
    const record = await trx('workflow_execution_steps').where(where).forUpdate().first('output');
    if (record?.output?.applied) return record.output as T;
    const outcome = await apply(trx);
    if (record)
      await trx('workflow_execution_steps')
        .where(where)
        .update({ output: JSON.stringify({ applied: true, ...outcome }) });
    return outcome;
  });
}
