import { route } from '../route';
import type { AppContext } from '../context';
import { notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { VersionDetail, VersionList, VersionParams, WorkflowOut } from '../schemas/workflows';
import { audited, requestAuditor } from '../../services/audit';
import { senderCheckWaived } from '../../lib/config';
import { iso } from '../../lib/time';
import { findWorkflow, loadGraph, restoreVersion, type WorkflowRow } from '../../db/workflows';
import { findVersion, listVersions, type VersionWithAuthor } from '../../db/workflowVersions';
import { stepNames } from '../../services/stepSummaries';
import { presentWorkflow } from '../presenters/workflows';
import { assertRunnable, registryOf } from './workflows';
import { answerLanguage } from '../language';

/**
 * A workflow's versions (docs/workflows.md "Versions"): the history of what it ran, one version, and
 * "Restore" (the version's graph becomes the workflow's; enabled, it is the next version at once).
 */

const common = { auth: 'secret', tag: 'workflows', resource: 'Workflow' } as const;

async function workflowOr404(ctx: AppContext, projectId: string, id: string): Promise<WorkflowRow> {
  const row = await findWorkflow(ctx.deps.knex, projectId, id);
  if (!row) throw notFound('Workflow');
  return row;
}

const presentVersion = (v: VersionWithAuthor, workflow: WorkflowRow, newest: number | undefined) => ({
  number: v.number,
  note: v.note,
  createdBy: v.author_email ?? v.created_by,
  createdAt: iso(v.created_at)!,
  current: workflow.enabled && v.number === newest,
});

export default [
  route({
    ...common,
    method: 'get',
    path: '/workflows/:id/versions',
    summary: 'The versions of a workflow, newest first: number, what changed, who, when, and which one new executions start on',
    params: IdParams,
    responses: { 200: { description: 'the versions', schema: VersionList } },
    async handler(ctx, { params, project }) {
      const workflow = await workflowOr404(ctx, project.id, params.id);
      const rows = await listVersions(ctx.deps.knex, workflow.id);
      return { data: rows.map((v) => presentVersion(v, workflow, rows[0]?.number)) };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/workflows/:id/versions/:number',
    summary: 'One version of a workflow with its graph (trigger, steps, transitions)',
    params: VersionParams,
    responses: { 200: { description: 'the version', schema: VersionDetail } },
    async handler(ctx, { params, project }) {
      const workflow = await workflowOr404(ctx, project.id, params.id);
      const [version, newest] = await Promise.all([findVersion(ctx.deps.knex, workflow.id, params.number), listVersions(ctx.deps.knex, workflow.id)]);
      if (!version) throw notFound('Version');
      return { ...presentVersion(version, workflow, newest[0]?.number), graph: version.graph };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/workflows/:id/versions/:number/restore',
    audit: 'workflow.update',
    summary:
      "Restore a version: its steps and transitions become the workflow's (an enabled workflow runs them from now on, as a new version; 422 when it could not run any more, 409 when its trigger differs while executions are active)",
    params: VersionParams,
    responses: {
      200: { description: 'the workflow as restored', schema: WorkflowOut },
      409: { description: "the version's trigger differs while executions of the current one are active" },
      422: { description: 'the workflow is enabled and the restored graph could not run (a template it sends was deleted since)' },
    },
    async handler(ctx, { params, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) =>
          restoreVersion(trx, project.id, params.id, params.number, (inner) =>
            assertRunnable(inner, project.id, params.id, registryOf(ctx), senderCheckWaived(ctx.deps.config)),
          ),
        () => ({ projectId: project.id, action: 'workflow.update', target: { type: 'workflow', id: params.id }, details: { restoredVersion: params.number } }),
      );
      const graph = await loadGraph(ctx.deps.knex, row.id);
      return presentWorkflow(row, graph, registryOf(ctx), await stepNames(ctx.deps.knex, row.project_id, graph.steps, registryOf(ctx)), answerLanguage(ctx));
    },
  }),
];
