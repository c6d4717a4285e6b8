import { senderCheckWaived } from '../../lib/config';
import type { Knex } from 'knex';
import { z } from 'zod';
import { route } from '../route';
import { answerLanguage, requestLanguage } from '../language';
import { audited, changedKeys, requestAuditor } from '../../services/audit';
import type { AppContext } from '../context';
import { ApiError, conflict, notFound, validationError } from '../errors';
import { IdParams } from '../schemas/common';
import {
  CancelAllOut,
  ExecutionDetail,
  ExecutionListQuery,
  ExecutionOut,
  ExecutionPage,
  ExecutionParams,
  ExecutionStart,
  StepCreate,
  StepDeleteQuery,
  StepOut,
  StepParams,
  StepTypeOut,
  StepUpdate,
  TransitionCreate,
  TransitionOut,
  TransitionParams,
  WorkflowCreate,
  WorkflowFieldsOut,
  WorkflowFieldsQuery,
  WorkflowListQuery,
  WorkflowOut,
  WorkflowPage,
  WorkflowStatsOut,
  WorkflowStatsQuery,
  WorkflowUpdate,
  StarterCreate,
  StarterParams,
  WorkflowStarterList,
  WorkflowTestBody,
  WorkflowTestOut,
  parseStepConfig,
  stepCreateSchema,
  filterTreeShapeErrors,
} from '../schemas/workflows';
import { stepConfigProblems } from '../../services/stepChecks';
import {
  WorkflowRow,
  addStep,
  addTransition,
  createWorkflow,
  deleteStep,
  deleteTransition,
  deleteWorkflow,
  eventDataFields,
  findWorkflow,
  listWorkflows,
  loadGraph,
  updateStep,
  updateWorkflow,
  workflowEventNames,
  type StepRow,
} from '../../db/workflows';
import { activeExecutionIds, executionSteps, findExecution, listExecutions, withContactEmails } from '../../db/executions';
import { workflowStepCounts } from '../../db/workflowStepCounts';
import { describeFields } from '../../db/fields';
import { findContact } from '../../db/contactReaders';
import { cancelExecutions, startExecution } from '../../services/executions';
import { stepBranches, transitionBranchProblem } from '../../services/workflowGraphs';
import { notRunnable } from '../../services/workflowRunnable';
import { referencePaths } from '../../services/stepReferences';
import { describeStepTypes, stepTitle } from '../../services/stepTypes';
import { WORKFLOW_STARTERS, createFromStarter, findWorkflowStarter } from '../../services/workflowStarters';
import { stepNames } from '../../services/stepSummaries';
import { STEP_TYPES, StepRegistry, findStepType } from '../../temporal/steps';
import { uuid } from '../../lib/ids';
import { type CurrentStepOf, presentExecution, presentExecutionStep } from '../presenters/executions';
import { presentStep, presentTransition, presentWorkflow } from '../presenters/workflows';

const common = { auth: 'secret', tag: 'workflows', resource: 'Workflow' } as const;

/** The step types this app serves (tests inject a registry of their own). */
export const registryOf = (ctx: AppContext): StepRegistry => ctx.deps.steps ?? STEP_TYPES;

async function workflowOr404(ctx: AppContext, projectId: string, id: string): Promise<WorkflowRow> {
  const row = await findWorkflow(ctx.deps.knex, projectId, id);
  if (!row) throw notFound('Workflow');
  return row;
}

async function present(ctx: AppContext, row: WorkflowRow) {
  const graph = await loadGraph(ctx.deps.knex, row.id);
  return presentWorkflow(row, graph, registryOf(ctx), await stepNames(ctx.deps.knex, row.project_id, graph.steps, registryOf(ctx)), answerLanguage(ctx));
}

/** The workflow's steps by id, in words, for the executions it lists. */
async function currentStepOf(ctx: AppContext, workflowId: string): Promise<CurrentStepOf> {
  const graph = await loadGraph(ctx.deps.knex, workflowId);
  const steps = new Map(graph.steps.map((s) => [s.id, s]));
  return (id) => {
    const step = id ? steps.get(id) : undefined;
    return step ? { name: step.name, type: step.type, title: findStepType(registryOf(ctx), step.type)?.title ?? step.type } : null;
  };
}

/** One step as the API shows it, its summary's names looked up. */
async function presentOne(ctx: AppContext, projectId: string, step: StepRow) {
  return presentStep(step, registryOf(ctx), await stepNames(ctx.deps.knex, projectId, [step], registryOf(ctx)), answerLanguage(ctx));
}

/** A workflow that cannot run (services/workflowRunnable) is a 422 naming every offending step. */
export async function assertRunnable(knex: Knex, project: string, workflowId: string, registry: StepRegistry, senderWaived: boolean): Promise<void> {
  const problem = await notRunnable(knex, project, workflowId, { registry, senderWaived, filterShape: filterTreeShapeErrors });
  if (!problem) return;
  throw new ApiError(422, 'VALIDATION_ERROR', problem.message, { errors: problem.errors, details: { stepIds: problem.stepIds } });
}

async function assertValidConfig(
  knex: Knex,
  project: string,
  type: string,
  config: Record<string, unknown>,
  registry: StepRegistry,
  senderWaived: boolean,
): Promise<void> {
  const problems = await stepConfigProblems(knex, project, type, config, 'save', { registry, senderWaived, filterShape: filterTreeShapeErrors });
  if (problems.length) throw validationError(problems);
}

export default [
  route({
    ...common,
    method: 'get',
    path: '/workflows',
    summary: 'List workflows (page pagination; search on name and description; enabled filter)',
    query: WorkflowListQuery,
    responses: { 200: { description: 'a page of workflows with their graphs', schema: WorkflowPage } },
    async handler(ctx, { query, project }) {
      const { rows, graphs, total, totalPages } = await listWorkflows(ctx.deps.knex, project.id, query);
      const names = await stepNames(
        ctx.deps.knex,
        project.id,
        [...graphs.values()].flatMap((g) => g.steps),
        registryOf(ctx),
      );
      const lang = answerLanguage(ctx);
      return {
        data: rows.map((r) => presentWorkflow(r, graphs.get(r.id)!, registryOf(ctx), names, lang)),
        page: query.page,
        pageSize: query.pageSize,
        total,
        totalPages,
      };
    },
  }),
  // Before /workflows/:id, so "step-types" and "fields" are never read as ids.
  route({
    ...common,
    method: 'get',
    path: '/workflows/step-types',
    summary: 'The registered step types: branches (fixed, or derived from the config), required branches, the config as JSON Schema, docs',
    responses: { 200: { description: 'every step type of the registry, TRIGGER (internal) included', schema: z.array(StepTypeOut) } },
    async handler(ctx) {
      return describeStepTypes(registryOf(ctx));
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/workflows/starters',
    summary: 'Flows to start a workflow from (welcome series, abandoned cart, re-engagement, double opt-in nurture, post-purchase follow-up)',
    responses: { 200: { description: 'the starters', schema: WorkflowStarterList } },
    handler(ctx) {
      const registry = registryOf(ctx);
      return Promise.resolve({
        data: WORKFLOW_STARTERS.map((s) => ({
          key: s.key,
          name: s.name,
          description: s.description,
          eventName: s.eventName,
          steps: s.steps.map((step) => {
            const def = findStepType(registry, step.type);
            return { key: step.key, type: step.type, title: def ? stepTitle(def) : step.type, name: step.name };
          }),
          templatesToPick: s.steps.filter((step) => step.type === 'SEND_EMAIL' && !step.config.templateId).length,
        })),
      });
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/workflows/starters/:key',
    audit: 'workflow.create',
    summary: 'Create a workflow from a starter: disabled, its Send email steps waiting for a template to be picked',
    params: StarterParams,
    body: StarterCreate,
    responses: { 201: { description: 'created', schema: WorkflowOut } },
    async handler(ctx, { params, body, project }) {
      const starter = findWorkflowStarter(params.key);
      if (!starter) throw notFound('Starter');
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createFromStarter(trx, project.id, starter, body.name),
        (w) => ({ projectId: project.id, action: 'workflow.create', target: { type: 'workflow', id: w.id }, details: { name: w.name, starter: starter.key } }),
      );
      ctx.status = 201;
      return await present(ctx, row);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/workflows/fields',
    summary: 'Fields usable in CONDITION filters and templates: contact fields, and the data keys seen on events the workflows start on or wait for',
    query: WorkflowFieldsQuery,
    responses: { 200: { description: 'contact and event fields', schema: WorkflowFieldsOut } },
    async handler(ctx, { query, project }) {
      if (query.workflowId) await workflowOr404(ctx, project.id, query.workflowId);
      const names = await workflowEventNames(ctx.deps.knex, project.id, referencePaths('eventName', registryOf(ctx)), query.workflowId);
      const [contactFields, eventFields] = await Promise.all([describeFields(ctx.deps.knex, project.id), eventDataFields(ctx.deps.knex, project.id, names)]);
      return { contactFields, eventFields };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/workflows',
    audit: 'workflow.create',
    summary: 'Create a workflow (trigger type EVENT, disabled) with its TRIGGER step',
    body: WorkflowCreate,
    responses: { 201: { description: 'created', schema: WorkflowOut } },
    async handler(ctx, { body, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createWorkflow(trx, project.id, body),
        (w) => ({ projectId: project.id, action: 'workflow.create', target: { type: 'workflow', id: w.id }, details: { name: w.name } }),
      );
      ctx.status = 201;
      return await present(ctx, row);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/workflows/:id',
    summary: 'One workflow with its steps and transitions',
    params: IdParams,
    responses: { 200: { description: 'the workflow', schema: WorkflowOut } },
    async handler(ctx, { params, project }) {
      return await present(ctx, await workflowOr404(ctx, project.id, params.id));
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/workflows/:id',
    audit: ['workflow.enable', 'workflow.disable', 'workflow.update'],
    summary: 'Update name, description, trigger (409 while executions are active), enabled (422 when the graph cannot run), allowReentry',
    params: IdParams,
    body: WorkflowUpdate,
    responses: {
      200: { description: 'the updated workflow', schema: WorkflowOut },
      409: { description: 'the trigger changes while executions are active' },
      422: { description: 'enabling a workflow whose graph cannot run; errors name the steps' },
    },
    async handler(ctx, { params, body, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) =>
          updateWorkflow(trx, project.id, params.id, body, (inner, workflow) =>
            assertRunnable(inner, project.id, workflow.id, registryOf(ctx), senderCheckWaived(ctx.deps.config)),
          ),
        // `enabled` is recorded as asked (also when it was already so): the log shows who meant to turn it on or off.
        () => ({
          projectId: project.id,
          action: body.enabled === undefined ? 'workflow.update' : body.enabled ? 'workflow.enable' : 'workflow.disable',
          target: { type: 'workflow', id: params.id },
          ...(body.enabled === undefined ? { details: { changed: changedKeys(body) } } : {}),
        }),
      );
      return await present(ctx, row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/workflows/:id',
    audit: 'workflow.delete',
    summary: 'Delete a workflow and its finished executions; 409 while executions are active',
    params: IdParams,
    responses: { 204: { description: 'deleted' }, 409: { description: 'active executions exist' } },
    async handler(ctx, { params, project }) {
      await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteWorkflow(trx, project.id, params.id),
        () => ({ projectId: project.id, action: 'workflow.delete', target: { type: 'workflow', id: params.id } }),
      );
      ctx.status = 204;
    },
  }),

  route({
    ...common,
    method: 'post',
    path: '/workflows/:id/steps',
    summary: 'Add a step of one of the registered step types (with `after`, in place on a branch); its config is validated by the type',
    params: IdParams,
    body: StepCreate,
    bodyFor: (deps) => stepCreateSchema(deps.steps),
    responses: { 201: { description: 'the step', schema: StepOut } },
    async handler(ctx, { params, body, project }) {
      await workflowOr404(ctx, project.id, params.id);
      const registry = registryOf(ctx);
      const def = findStepType(registry, body.type);
      const insert = body.after && {
        stepId: body.after.stepId,
        branch: body.after.branch,
        onward: (def && stepBranches(def, body.config)[0]) ?? null,
        branchProblem: (from: StepRow, branch: string) => transitionBranchProblem(from, branch, registry),
      };
      const { after: _after, ...input } = body;
      const step = await addStep(
        ctx.deps.knex,
        project.id,
        params.id,
        input,
        (trx) => assertValidConfig(trx, project.id, body.type, body.config, registry, senderCheckWaived(ctx.deps.config)),
        insert,
      );
      ctx.status = 201;
      return await presentOne(ctx, project.id, step);
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/workflows/:id/steps/:stepId',
    summary: "Update a step's name, config (validated by its type) or position; a TRIGGER config moves the trigger",
    params: StepParams,
    body: StepUpdate,
    responses: { 200: { description: 'the step', schema: StepOut } },
    async handler(ctx, { params, body, project }) {
      const step = await updateStep(ctx.deps.knex, project.id, params.id, params.stepId, body, async (current, trx) => {
        if (body.config === undefined) return undefined;
        const parsed = parseStepConfig(current.type, body.config, registryOf(ctx), requestLanguage(ctx));
        if ('errors' in parsed) throw validationError(parsed.errors);
        await assertValidConfig(trx, project.id, current.type, parsed.data, registryOf(ctx), senderCheckWaived(ctx.deps.config));
        return parsed.data;
      });
      return await presentOne(ctx, project.id, step);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/workflows/:id/steps/:stepId',
    summary: 'Delete a step; with splice=true its incoming transitions are reconnected to its next successor',
    params: StepParams,
    query: StepDeleteQuery,
    responses: { 204: { description: 'deleted' }, 409: { description: 'the TRIGGER step cannot be deleted' } },
    async handler(ctx, { params, query, project }) {
      await deleteStep(ctx.deps.knex, project.id, params.id, params.stepId, query.splice);
      ctx.status = 204;
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/workflows/:id/transitions',
    summary: 'Connect two steps of the workflow on a branch (next by default; CONDITION: yes/no; WAIT_FOR_EVENT: next/timeout)',
    params: IdParams,
    body: TransitionCreate,
    responses: { 201: { description: 'the transition', schema: TransitionOut }, 409: { description: 'the step already has a transition on that branch' } },
    async handler(ctx, { params, body, project }) {
      const row = await addTransition(ctx.deps.knex, project.id, params.id, body, (from, branch) => transitionBranchProblem(from, branch, registryOf(ctx)));
      ctx.status = 201;
      return presentTransition(row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/workflows/:id/transitions/:transitionId',
    summary: 'Delete a transition',
    params: TransitionParams,
    responses: { 204: { description: 'deleted' } },
    async handler(ctx, { params, project }) {
      await deleteTransition(ctx.deps.knex, project.id, params.id, params.transitionId);
      ctx.status = 204;
    },
  }),

  route({
    ...common,
    method: 'get',
    path: '/workflows/:id/stats',
    summary: 'Per-step numbers: entered, waiting now, left by each branch; sent / opened / clicked for Send email steps',
    params: IdParams,
    query: WorkflowStatsQuery,
    responses: { 200: { description: 'the counts of each step of the workflow', schema: WorkflowStatsOut } },
    async handler(ctx, { params, query, project }) {
      const workflow = await workflowOr404(ctx, project.id, params.id);
      const graph = await loadGraph(ctx.deps.knex, workflow.id);
      const period = { from: query.from ? new Date(query.from) : undefined, to: query.to ? new Date(query.to) : undefined };
      // Steps of the Messages category write emails: theirs are counted too.
      const emailSteps = graph.steps.filter((s) => findStepType(registryOf(ctx), s.type)?.category === 'Messages').map((s) => s.id);
      const steps = await workflowStepCounts(ctx.deps.knex, workflow.id, graph.steps, emailSteps, period);
      return { workflowId: workflow.id, from: query.from ? period.from!.toISOString() : null, to: query.to ? period.to!.toISOString() : null, steps };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/workflows/:id/executions',
    summary: 'Start an execution for a contact now (enabled or not; the graph must be runnable; one active execution per contact)',
    params: IdParams,
    body: ExecutionStart,
    responses: {
      201: { description: 'the execution', schema: ExecutionOut },
      409: { description: 'the contact already has an active execution of this workflow' },
      422: { description: 'unknown contact, or a graph that cannot run' },
    },
    async handler(ctx, { params, body, project }) {
      const workflow = await workflowOr404(ctx, project.id, params.id);
      if (!(await findContact(ctx.deps.knex, project.id, body.contactId))) {
        throw validationError([{ field: 'contactId', code: 'custom', message: 'Contact not found in this project' }]);
      }
      await assertRunnable(ctx.deps.knex, project.id, workflow.id, registryOf(ctx), senderCheckWaived(ctx.deps.config));
      const created = await startExecution(ctx.deps, {
        id: uuid(),
        projectId: project.id,
        workflowId: workflow.id,
        contactId: body.contactId,
        context: body.context ?? {},
        mode: 'manual',
      });
      if ('skipped' in created) throw conflict('The contact already has an active execution of this workflow');
      ctx.status = 201;
      return presentExecution(created.execution);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/workflows/:id/test',
    summary:
      'Test with a contact: runs the workflow (enabled or not) for the contact in test mode: emails go to the signed-in person (never the contact), waits last seconds, webhooks are called only with callWebhooks, nothing is counted',
    params: IdParams,
    body: WorkflowTestBody,
    responses: {
      201: { description: 'the test run started; its path is GET /workflows/:id/executions/:executionId', schema: WorkflowTestOut },
      422: { description: 'unknown contact, no address to send to, or a graph that cannot run' },
    },
    async handler(ctx, { params, body, project }) {
      const workflow = await workflowOr404(ctx, project.id, params.id);
      if (!(await findContact(ctx.deps.knex, project.id, body.contactId))) {
        throw validationError([{ field: 'contactId', code: 'custom', message: 'Contact not found in this project' }]);
      }
      // The signed-in person's own address; a secret key (no person) names one.
      const user = ctx.state.user;
      if (user && body.to !== undefined && body.to.toLowerCase() !== user.email.toLowerCase()) {
        throw validationError([{ field: 'to', code: 'custom', message: 'A test run from the dashboard mails the signed-in person only; leave out to' }]);
      }
      const to = user?.email ?? body.to;
      if (!to) throw validationError([{ field: 'to', code: 'custom', message: 'With a secret key, give the address the test emails go to' }]);
      await assertRunnable(ctx.deps.knex, project.id, workflow.id, registryOf(ctx), senderCheckWaived(ctx.deps.config));
      const created = await startExecution(ctx.deps, {
        id: uuid(),
        projectId: project.id,
        workflowId: workflow.id,
        contactId: body.contactId,
        context: {},
        mode: 'test',
        test: { to, callWebhooks: body.callWebhooks, userId: user?.id ?? null },
      });
      // A test run is bound by no rule on the contact's executions: it always starts.
      if ('skipped' in created) throw conflict('The test run could not start');
      ctx.status = 201;
      return { executionId: created.execution.id, to };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/workflows/:id/executions',
    summary:
      "Executions of the workflow, newest first (page pagination; status, contactId and search (the contact's email) filters; test runs only with test=true)",
    params: IdParams,
    query: ExecutionListQuery,
    responses: { 200: { description: 'a page of executions', schema: ExecutionPage } },
    async handler(ctx, { params, query, project }) {
      await workflowOr404(ctx, project.id, params.id);
      const { rows, total, totalPages } = await listExecutions(ctx.deps.knex, params.id, query);
      const current = await currentStepOf(ctx, params.id);
      return { data: rows.map((r) => presentExecution(r, current)), page: query.page, pageSize: query.pageSize, total, totalPages };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/workflows/:id/executions/:executionId',
    summary: 'One execution with its per-step history',
    params: ExecutionParams,
    responses: { 200: { description: 'the execution', schema: ExecutionDetail } },
    async handler(ctx, { params, project }) {
      await workflowOr404(ctx, project.id, params.id);
      const found = await findExecution(ctx.deps.knex, params.id, params.executionId);
      if (!found) throw notFound('Execution');
      const [row] = await withContactEmails(ctx.deps.knex, [found]);
      const current = await currentStepOf(ctx, params.id);
      return { ...presentExecution(row, current), steps: (await executionSteps(ctx.deps.knex, row.id)).map(presentExecutionStep) };
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/workflows/:id/executions/:executionId',
    summary: 'Cancel a RUNNING or WAITING execution (CANCELLED in Temporal and here)',
    params: ExecutionParams,
    responses: { 200: { description: 'the cancelled execution', schema: ExecutionOut }, 409: { description: 'the execution has already ended' } },
    async handler(ctx, { params, project }) {
      await workflowOr404(ctx, project.id, params.id);
      const row = await findExecution(ctx.deps.knex, params.id, params.executionId);
      if (!row) throw notFound('Execution');
      if (row.status !== 'RUNNING' && row.status !== 'WAITING') throw conflict(`The execution has already ended (${row.status})`);
      await cancelExecutions(ctx.deps, params.id, [row.id]);
      return presentExecution((await findExecution(ctx.deps.knex, params.id, row.id))!);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/workflows/:id/executions/cancel-all',
    summary: 'Cancel every RUNNING or WAITING execution of the workflow',
    params: IdParams,
    responses: { 200: { description: 'how many were cancelled', schema: CancelAllOut } },
    async handler(ctx, { params, project }) {
      await workflowOr404(ctx, project.id, params.id);
      const ids = await activeExecutionIds(ctx.deps.knex, params.id);
      return { cancelled: await cancelExecutions(ctx.deps, params.id, ids) };
    },
  }),
];
