import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { isDeepStrictEqual } from 'node:util';

/**
 * Workflow versions (docs/workflows.md "Versions"). While a workflow is enabled, every change to what it
 * runs — its trigger, its steps' types, names and configs, its transitions — is kept as a numbered
 * version, written in the transaction of the change under the workflow's row lock. An execution's row
 * takes the newest number when it starts (db/executions.ts), which is therefore the graph it runs: the
 * graph is copied into the execution's input in that same transaction. Positions are layout, not
 * behaviour: moving a node makes no version (they are kept beside it for a restore).
 */

export interface VersionStep {
  id: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
}

export interface VersionTransition {
  from: string;
  to: string;
  branch: string;
}

/** What a version holds: exactly what decides how an execution runs. */
export interface VersionGraph {
  eventName: string;
  steps: VersionStep[];
  transitions: VersionTransition[];
}

export interface VersionRow {
  workflow_id: string;
  number: number;
  graph: VersionGraph;
  layout: Record<string, { x: number; y: number }>;
  note: string;
  created_by: string | null;
  created_at: Date;
}

/**
 * Who is changing workflows in this async context (the route sets it: a user id, or a key's actor
 * name as the audit log writes it). The graph edits are plain db functions called from many routes;
 * this carries the author to the one place a version is written without threading it through each.
 */
export const versionAuthor = new AsyncLocalStorage<string>();

// Not localeCompare: the order must not depend on the process's locale (the migration's backfill sorts with COLLATE "C").
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The graph as a version compares it: sorted, so the same graph is equal whatever the read order. */
export function versionGraph(input: {
  eventName: string;
  steps: Array<{ id: string; type: string; name: string; config: Record<string, unknown> }>;
  transitions: Array<{ from_step_id: string; to_step_id: string; branch: string }>;
}): VersionGraph {
  return {
    eventName: input.eventName,
    steps: input.steps.map((s) => ({ id: s.id, type: s.type, name: s.name, config: s.config })).sort((a, b) => byCodePoint(a.id, b.id)),
    transitions: input.transitions
      .map((t) => ({ from: t.from_step_id, to: t.to_step_id, branch: t.branch }))
      .sort((a, b) => byCodePoint(`${a.from}/${a.branch}`, `${b.from}/${b.branch}`)),
  };
}

/** What changed from one version to the next, in words a person reads in the history. */
export function describeChange(before: VersionGraph | null, after: VersionGraph): string {
  if (!before) return 'First version';
  const old = new Map(before.steps.map((s) => [s.id, s]));
  const now = new Map(after.steps.map((s) => [s.id, s]));
  const parts: string[] = [];
  if (before.eventName !== after.eventName) parts.push(`Trigger changed to “${after.eventName}”`);
  for (const s of after.steps) if (!old.has(s.id)) parts.push(`Added “${s.name}”`);
  for (const s of before.steps) if (!now.has(s.id)) parts.push(`Removed “${s.name}”`);
  for (const s of after.steps) {
    const was = old.get(s.id);
    if (!was) continue;
    if (was.name !== s.name) parts.push(`Renamed “${was.name}” to “${s.name}”`);
    if (!isDeepStrictEqual(was.config, s.config)) parts.push(`Changed “${s.name}”`);
  }
  // Adding or removing a step rewires its neighbours too: say so only when nothing else explains it.
  const stepsCameOrWent = after.steps.length !== before.steps.length || after.steps.some((s) => !old.has(s.id));
  if (!stepsCameOrWent && !isDeepStrictEqual(before.transitions, after.transitions)) parts.push('Reconnected steps');
  return parts.join('; ');
}

export async function latestVersion(db: Knex, workflowId: string): Promise<VersionRow | undefined> {
  return db<VersionRow>('workflow_versions').where({ workflow_id: workflowId }).orderBy('number', 'desc').first();
}

/**
 * Writes the graph as the next version unless it equals the newest one; answers the number now
 * current. Call inside the transaction that changed the graph, with the workflow row locked.
 */
export async function recordVersion(
  trx: Knex.Transaction,
  workflowId: string,
  graph: VersionGraph,
  layout: Record<string, { x: number; y: number }>,
  note?: string,
): Promise<number> {
  const latest = await latestVersion(trx, workflowId);
  if (latest && isDeepStrictEqual(latest.graph, graph)) return latest.number;
  const number = (latest?.number ?? 0) + 1;
  await trx('workflow_versions').insert({
    workflow_id: workflowId,
    number,
    graph: JSON.stringify(graph),
    layout: JSON.stringify(layout),
    note: note ?? describeChange(latest?.graph ?? null, graph),
    created_by: versionAuthor.getStore() ?? null,
  });
  return number;
}

export type VersionWithAuthor = VersionRow & { author_email: string | null };

// created_by is a user id or a key's actor name (text); users.id is a uuid: compare as text.
const withAuthor = (db: Knex, workflowId: string) =>
  db('workflow_versions as v')
    .leftJoin('users as u', (j) => j.on(db.raw('u.id::text = v.created_by')))
    .where('v.workflow_id', workflowId)
    .select('v.*', 'u.email as author_email');

export async function listVersions(db: Knex, workflowId: string): Promise<VersionWithAuthor[]> {
  return withAuthor(db, workflowId).orderBy('v.number', 'desc');
}

export async function findVersion(db: Knex, workflowId: string, number: number): Promise<VersionWithAuthor | undefined> {
  return withAuthor(db, workflowId).where('v.number', number).first();
}
