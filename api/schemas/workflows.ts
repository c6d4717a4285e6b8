import { z } from 'zod';
import { nestedDeeperThan } from '../../lib/json';
import { PageQuery, Timestamp, Uuid } from './common';
import { FilterTree } from './filters';
import type { FieldError } from '../errors';
import { fieldErrors, safeParse } from '../validation';
import type { SentenceLanguage } from '../../lib/fieldSentences/types';
import { STEP_CATEGORIES, STEP_TYPES, StepRegistry, addableStepTypes, findStepType, eventNameSchema } from '../../temporal/steps';
import { stepConfigSchema } from '../../services/workflowGraphs';
import { EXECUTION_STATUSES } from '../../db/executions';

const Name = z.string().trim().min(1, 'name is required').max(200, 'name must be at most 200 characters');
const Description = z.string().max(2000, 'description must be at most 2000 characters').nullable().optional();
const Position = z.object({ x: z.number(), y: z.number() }).nullable().optional();
const EventNameSchema = eventNameSchema(z);
const TriggerConfig = z.object({ eventName: EventNameSchema });

/** Far more than any real context or filter tree needs. */
const MAX_NESTING = 32;

// ───────────────────────────── workflows ─────────────────────────────

export const WorkflowCreate = z
  .object({
    name: Name,
    description: Description,
    eventName: EventNameSchema.optional(),
    triggerConfig: TriggerConfig.optional(),
    triggerType: z.literal('EVENT').optional(),
    allowReentry: z.boolean().optional(),
  })
  .superRefine((v, ctx) => {
    if (!v.eventName && !v.triggerConfig) ctx.addIssue({ code: 'custom', path: ['eventName'], message: 'eventName (or triggerConfig.eventName) is required' });
    if (v.eventName && v.triggerConfig && v.eventName !== v.triggerConfig.eventName) {
      ctx.addIssue({ code: 'custom', path: ['triggerConfig', 'eventName'], message: 'eventName and triggerConfig.eventName differ' });
    }
  })
  .transform((v) => ({ name: v.name, description: v.description, eventName: (v.eventName ?? v.triggerConfig?.eventName)!, allowReentry: v.allowReentry }));

export const WorkflowUpdate = z
  .object({
    name: Name.optional(),
    description: Description,
    eventName: EventNameSchema.optional(),
    triggerConfig: TriggerConfig.optional(),
    triggerType: z.literal('EVENT').optional(),
    enabled: z.boolean().optional(),
    allowReentry: z.boolean().optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nothing to update' })
  .superRefine((v, ctx) => {
    if (v.eventName && v.triggerConfig && v.eventName !== v.triggerConfig.eventName) {
      ctx.addIssue({ code: 'custom', path: ['triggerConfig', 'eventName'], message: 'eventName and triggerConfig.eventName differ' });
    }
  })
  .transform((v) => ({
    name: v.name,
    description: v.description,
    eventName: v.eventName ?? v.triggerConfig?.eventName,
    enabled: v.enabled,
    allowReentry: v.allowReentry,
  }));

const BooleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export const WorkflowListQuery = PageQuery.extend({
  search: z.string().trim().max(200).optional(),
  enabled: BooleanQuery.optional(),
});

export const WorkflowFieldsQuery = z.object({ workflowId: Uuid.optional() });

// ───────────────────────────── steps and transitions ─────────────────────────────

/** A zod failure of a step config as field errors under `config.`, their sentences in `lang`. */
function configErrors(error: z.ZodError, prefix: string, lang: SentenceLanguage = 'en'): FieldError[] {
  return fieldErrors(error, lang).map((e) => ({ ...e, field: e.field === '(root)' ? prefix : `${prefix}.${e.field}` }));
}

/** The message a config issue gets from this module's parse where the step's schema wrote none of its own. */
const UNWORDED = '\u0000unworded';

/** The config parsed by its type's schema (defaults applied), or the field errors. */
export function parseStepConfig(
  type: string,
  config: unknown,
  registry: StepRegistry = STEP_TYPES,
  lang: SentenceLanguage = 'en',
): { data: Record<string, unknown> } | { errors: FieldError[] } {
  const def = findStepType(registry, type);
  if (!def) return { errors: [{ field: 'type', code: 'invalid_enum_value', message: `unknown step type ${type}` }] };
  const parsed = safeParse(stepConfigSchema(def), config, lang);
  return parsed.success ? { data: parsed.data as Record<string, unknown> } : { errors: configErrors(parsed.error, 'config', lang) };
}

const createSchemas = new WeakMap<StepRegistry, z.ZodType>();

/**
 * Built from the registry: the enum of addable types and the per-type config check both come from
 * `temporal/steps`, so a new step type needs no change here. One schema per registry (the route
 * asks for the app's, which tests may inject).
 */
export function stepCreateSchema(registry: StepRegistry = STEP_TYPES) {
  const cached = createSchemas.get(registry);
  if (cached) return cached as ReturnType<typeof buildStepCreate>;
  const schema = buildStepCreate(registry);
  createSchemas.set(registry, schema);
  return schema;
}

function buildStepCreate(registry: StepRegistry) {
  const types = addableStepTypes(registry) as [string, ...string[]];
  return z
    .object({
      type: z.enum(types),
      name: Name.optional(),
      config: z.record(z.string(), z.unknown()).default({}),
      position: Position,
      after: z
        .object({ stepId: Uuid, branch: z.string().min(1).max(50).default('next') })
        .optional()
        .describe("insert in place: the step goes on this branch of that step, and what the branch led to follows the new step on the new step's first branch"),
    })
    .transform((v, ctx) => {
      const def = findStepType(registry, v.type);
      if (!def) {
        ctx.addIssue({ code: 'custom', path: ['type'], message: `unknown step type ${v.type}` });
        return z.NEVER;
      }
      // This transform does not know the request's language; the enclosing parse does. An issue the step's
      // schema gave no words goes up carrying itself (`params.issue`), and that parse's error map words it
      // (lib/zodSentences.ts); one with the schema's own words keeps them. The code stays `custom`, as before.
      const parsed = stepConfigSchema(def).safeParse(v.config, { reportInput: true, error: () => UNWORDED });
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const path = ['config', ...issue.path];
          if (issue.message === UNWORDED) ctx.addIssue({ code: 'custom', path, params: { issue } });
          else ctx.addIssue({ code: 'custom', path, message: issue.message });
        }
        return z.NEVER;
      }
      return { ...v, config: parsed.data as Record<string, unknown> };
    });
}

export const StepCreate = stepCreateSchema();

export const StepUpdate = z
  .object({ name: Name.optional(), config: z.record(z.string(), z.unknown()).optional(), position: Position })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nothing to update' });

export const StepParams = z.object({ id: Uuid, stepId: Uuid });
export const StepDeleteQuery = z.object({
  splice: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

export const TransitionCreate = z.object({
  fromStepId: Uuid,
  toStepId: Uuid,
  // Judged against the source step's branches (fixed by its type, or derived from its config) by the route.
  branch: z.string().trim().min(1).max(100).default('next'),
});
export const TransitionParams = z.object({ id: Uuid, transitionId: Uuid });

/**
 * A filter tree's shape as the API's schema (`FilterTree`) judges it, for services/stepChecks.ts:
 * the field errors under `at`, none when the shape is right (the compiler then judges the rest).
 */
export function filterTreeShapeErrors(tree: unknown, at: string): FieldError[] {
  const shape = FilterTree.safeParse(tree, { reportInput: true });
  return shape.success ? [] : configErrors(shape.error, at);
}

// ───────────────────────────── executions ─────────────────────────────

const MAX_CONTEXT_BYTES = 64 * 1024;

export const ExecutionStart = z.object({
  contactId: z.string().trim().min(1).max(100),
  context: z
    .record(z.string(), z.unknown())
    .refine((c) => !nestedDeeperThan(c, MAX_NESTING), `context may nest at most ${MAX_NESTING} levels deep`)
    .refine(
      (c) => nestedDeeperThan(c, MAX_NESTING) || Buffer.byteLength(JSON.stringify(c)) <= MAX_CONTEXT_BYTES,
      `context must be at most ${MAX_CONTEXT_BYTES / 1024} KB of JSON`,
    )
    .optional(),
});

export const ExecutionListQuery = PageQuery.extend({
  status: z.enum(EXECUTION_STATUSES).optional(),
  contactId: z.string().max(100).optional(),
  test: BooleanQuery.optional().describe('true lists test runs (POST /workflows/:id/test) only; by default they are left out'),
  search: z.string().trim().max(200).optional().describe("part of the contact's email address"),
});

export const StarterParams = z.object({ key: z.string().min(1).max(100) });
export const StarterCreate = z.object({ name: Name.optional().describe("the new workflow's name; the starter's by default") });
export const WorkflowStarterOut = z.object({
  key: z.string(),
  name: z.string(),
  description: z.string(),
  eventName: z.string().describe('the event that starts it (changeable after creation)'),
  steps: z
    .array(z.object({ key: z.string().describe('names the step within the starter'), type: z.string(), title: z.string(), name: z.string() }))
    .describe('its steps in order, the trigger left out'),
  templatesToPick: z.number().int().describe('Send email steps created without a template'),
});
export const WorkflowStarterList = z.object({ data: z.array(WorkflowStarterOut) });

/** POST /workflows/:id/test: a test run for one contact (docs/workflows.md, "Test with a contact"). */
export const WorkflowTestBody = z.object({
  contactId: z.string().trim().min(1).max(100),
  callWebhooks: z.boolean().default(false).describe('call the WEBHOOK steps for real; by default they are skipped'),
  to: z
    .string()
    .trim()
    .max(320)
    .email()
    .optional()
    .describe("where the run's emails go, for a secret key (no signed-in person); with the dashboard's cookie they go to the signed-in person"),
});

export const WorkflowTestOut = z.object({
  executionId: z.string().describe('the test execution: GET /workflows/:id/executions/:executionId shows its path'),
  to: z.string().describe("where the run's emails go (never the contact)"),
});

export const WorkflowStatsQuery = z
  .object({
    from: z.string().datetime({ offset: true }).optional().describe('counted by the hour, from the start of the hour of `from`; absent: since the start'),
    to: z.string().datetime({ offset: true }).optional().describe('exclusive; absent: until now'),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { message: '`from` must not be after `to`', path: ['from'] });

export const ExecutionParams = z.object({ id: Uuid, executionId: Uuid });

// ───────────────────────────── responses ─────────────────────────────

export const StepOut = z.object({
  id: z.string(),
  workflowId: z.string(),
  type: z.string(),
  name: z.string(),
  title: z.string().describe("what people call the step's type (its registry `title`)"),
  summary: z
    .string()
    .describe(
      "what the step does, in words, with the names of the templates and topics it refers to (the type's `summary`), in the request's Accept-Language (en, fr or de; a plugin type may answer English)",
    ),
  config: z.record(z.string(), z.unknown()),
  position: z.object({ x: z.number(), y: z.number() }).nullable(),
  branches: z.array(z.string()).describe("the branches a transition from this step may use: fixed by its type, or derived from this step's config"),
  requiredBranches: z.array(z.string()).describe('the branches that must be connected before the workflow can be enabled'),
});

const BranchList = z.object({
  derived: z.boolean().describe("true: the names come from each step's config (see a step's `branches`); false: `names` is the fixed list"),
  names: z.array(z.string()),
});

export const StepTypeOut = z.object({
  type: z.string(),
  title: z.string().describe('what people call it ("Send email")'),
  description: z.string().describe('one sentence for people'),
  category: z.enum(STEP_CATEGORIES).describe('the palette group'),
  icon: z.string().describe('an icon name; the dashboard shows a generic icon for a name it does not know'),
  internal: z.boolean().describe('engine-owned (TRIGGER): created with its workflow, not addable'),
  branches: BranchList,
  requiredBranches: BranchList,
  configSchema: z
    .record(z.string(), z.unknown())
    .describe(
      "JSON Schema (2020-12) of the config's input, generated from the zod schema the API validates with; formats template-id, event-name, filter-tree and duration mark fields with a widget; `picker` (template, topic, segment, field, event) asks for a searchable list of the project's things",
    ),
  docs: z.object({ config: z.string(), notes: z.string() }).nullable(),
});

export const TransitionOut = z.object({
  id: z.string(),
  workflowId: z.string(),
  fromStepId: z.string(),
  toStepId: z.string(),
  branch: z.string(),
});

export const WorkflowOut = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  allowReentry: z.boolean(),
  triggerType: z.literal('EVENT'),
  triggerConfig: TriggerConfig,
  steps: z.array(StepOut),
  transitions: z.array(TransitionOut),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const WorkflowPage = z.object({
  data: z.array(WorkflowOut),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export const WorkflowFieldsOut = z.object({
  contactFields: z.array(z.object({ field: z.string(), type: z.string(), isCustom: z.boolean(), coverage: z.number() })),
  eventFields: z.array(
    z.object({
      eventName: z.string(),
      field: z.string(),
      data: z.array(z.object({ key: z.string(), field: z.string(), type: z.string() })),
    }),
  ),
});

export const ExecutionOut = z.object({
  id: z.string(),
  workflowId: z.string(),
  contactId: z.string(),
  contactEmail: z.string().nullable().optional().describe("the contact's email address (lists and single executions)"),
  status: z.enum(EXECUTION_STATUSES),
  currentStepId: z.string().nullable(),
  currentStep: z
    .object({ name: z.string(), type: z.string(), title: z.string() })
    .nullable()
    .optional()
    .describe('the step the execution is at (null when that step was since deleted)'),
  waitingReason: z.string().nullable().describe('why a WAITING execution waits on a timer (quiet hours, a local time); null otherwise'),
  waitingFor: z.string().nullable().optional().describe('the event a WAITING execution waits for; null otherwise'),
  wakeAt: Timestamp.nullable().optional().describe("when a WAITING execution's timer fires (a delay's end, a wait's timeout); null otherwise"),
  context: z.record(z.string(), z.unknown()),
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  error: z.string().nullable(),
  workflowVersion: z
    .number()
    .int()
    .nullable()
    .describe('the workflow version this execution runs (GET /workflows/:id/versions); null for a manual start of a disabled workflow (its draft)'),
  test: z.boolean().describe('a test run (POST /workflows/:id/test): its emails went to the tester, it counts in no stats'),
});

export const ExecutionDetail = ExecutionOut.extend({
  steps: z.array(
    z.object({
      stepId: z.string(),
      type: z.string(),
      status: z.string(),
      startedAt: Timestamp,
      finishedAt: Timestamp.nullable(),
      output: z.unknown(),
      error: z.string().optional(),
      branch: z.string().nullable().optional().describe('the branch the step was left by (null: it ended the execution, failed or was cancelled)'),
    }),
  ),
});

export const ExecutionPage = z.object({
  data: z.array(ExecutionOut),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export const CancelAllOut = z.object({ cancelled: z.number().int() });

// ───────────────────────────── versions ─────────────────────────────

export const VersionParams = z.object({ id: z.string().uuid(), number: z.coerce.number().int().min(1).max(2_147_483_647) });

export const VersionOut = z.object({
  number: z.number().int(),
  note: z.string().describe('what changed from the version before, in words'),
  createdBy: z.string().nullable().describe("the author's email, or the key that made the change; null when unknown"),
  createdAt: Timestamp,
  current: z.boolean().describe('whether new executions start on this version (the newest, while the workflow is enabled)'),
});

export const VersionList = z.object({ data: z.array(VersionOut) });

export const VersionDetail = VersionOut.extend({
  graph: z.object({
    eventName: z.string(),
    steps: z.array(z.object({ id: z.string(), type: z.string(), name: z.string(), config: z.record(z.string(), z.unknown()) })),
    transitions: z.array(z.object({ from: z.string(), to: z.string(), branch: z.string() })),
  }),
});

export const WorkflowStatsOut = z.object({
  workflowId: z.string(),
  from: Timestamp.nullable(),
  to: Timestamp.nullable(),
  steps: z.array(
    z.object({
      stepId: z.string(),
      entered: z.number().int().describe('executions that reached the step in the period'),
      waiting: z.number().int().describe('executions waiting at the step now (whatever the period)'),
      left: z.record(z.string(), z.number().int()).describe('executions that left the step in the period, by branch'),
      ended: z.number().int().describe('executions the step ended (an Exit, or a step that ends the run)'),
      failed: z.number().int(),
      cancelled: z.number().int(),
      emails: z
        .object({ sent: z.number().int(), opened: z.number().int(), clicked: z.number().int() })
        .optional()
        .describe('Send email steps: emails the step wrote in the period that were sent, opened, clicked'),
    }),
  ),
});
